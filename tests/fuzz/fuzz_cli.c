/* Fuzz target: the command line (cli_parse and cli_check_problem,
 * cli/options.c), with the problem options and a command's own options.
 * The input is split on NUL bytes into argv[1..] (argv[0] is the command).
 * Invariants: cli_parse returns 0, -1 (--help or --version: text on stdout,
 * nothing on stderr) or EXIT_USAGE (2) with exactly one line on stderr, of the
 * form "glgemm run: ...\n"; on success nothing is printed and the problem is
 * in range (sizes 1..2^20, reps 1..100000, finite alpha and beta, device
 * 0..1023); cli_check_problem then returns 0 or 2 with one line; a variant
 * given as the first argument parses or fails with one line. */
#define _GNU_SOURCE
#include <math.h>

#include "cli/cli.h"
#include "gen/gen.h"
#include "search/search.h"
#include "tests/fuzz/fuzz.h"

enum { OWN_CARD = 1, OWN_O, OWN_CSV, OWN_SEARCH, OWN_BUDGET, OWN_FIX, OWN_FRESH };

/* Options of the shape the commands have (value or flag, short -o). */
static const cli_opt own[] = {
    {"card", 1, OWN_CARD},     {"o", 1, OWN_O},         {"csv", 0, OWN_CSV},
    {"search", 1, OWN_SEARCH}, {"budget", 1, OWN_BUDGET}, {"fix", 1, OWN_FIX},
    {"fresh", 0, OWN_FRESH},   {NULL, 0, 0},
};

typedef struct {
    cli_common *c;
    int flags;
} own_state;

static int handler(void *self, int id, const char *value)
{
    own_state *s = self;
    long x;
    gg_variant v;
    char err[256];
    switch (id) {
    case OWN_CSV:
    case OWN_FRESH:
        FUZZ_CHECK(value == NULL, "flag with a value");
        s->flags |= 1 << id;
        return 0;
    case OWN_CARD:
    case OWN_O:
        FUZZ_CHECK(value != NULL, "option without its value");
        return 0;
    case OWN_SEARCH:
        if (search_strategy_parse(value) < 0)
            return cli_error(s->c, "--search must be phase, exhaustive or random, got '%s'", value);
        FUZZ_CHECK(!strcmp(search_strategy_name((gg_strategy)search_strategy_parse(value)), value),
                   "strategy '%s'", value);
        return 0;
    case OWN_BUDGET:
        if (cli_int(value, 1, 1000000, &x))
            return cli_error(s->c, "--budget must be a positive integer, got '%s'", value);
        return 0;
    case OWN_FIX: {
        /* search/'s --fix parser; what it holds formats and parses back. */
        gg_fix fix, again;
        char text[GG_VARIANT_TEXT], text2[GG_VARIANT_TEXT];
        if (search_fix_parse(value, &fix, err, sizeof err)) {
            FUZZ_CHECK(err[0] != '\0', "--fix without a message"); /* one line: cli_error */
            return cli_error(s->c, "%s", err);
        }
        search_fix_format(&fix, text, sizeof text);
        FUZZ_CHECK(search_fix_parse(text, &again, err, sizeof err) == 0, "fix '%s' -> '%s': %s", value,
                   text, err);
        search_fix_format(&again, text2, sizeof text2);
        FUZZ_CHECK(again.mask == fix.mask && !strcmp(text, text2), "fix '%s' -> '%s' -> '%s'",
                   value, text, text2);
        (void)v;
        return 0;
    }
    }
    FUZZ_CHECK(0, "unknown own id %d", id);
    return 0;
}

/* Captured output of one call. */
typedef struct {
    char *out, *err;
    size_t outlen, errlen;
    FILE *saved_out, *saved_err;
} capture;

static void capture_begin(capture *k)
{
    memset(k, 0, sizeof *k);
    k->saved_out = stdout;
    k->saved_err = stderr;
    stdout = open_memstream(&k->out, &k->outlen);
    stderr = open_memstream(&k->err, &k->errlen);
    FUZZ_CHECK(stdout && stderr, "open_memstream");
}

static void capture_end(capture *k)
{
    fclose(stdout);
    fclose(stderr);
    stdout = k->saved_out;
    stderr = k->saved_err;
}

static int count_char(const char *s, size_t n, char ch)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += s[i] == ch;
    return c;
}

/* One line "glgemm run: ...\n" and nothing else. */
static void check_one_line(const capture *k, const char *what)
{
    FUZZ_CHECK(k->errlen > 12 && count_char(k->err, k->errlen, '\n') == 1 &&
                   k->err[k->errlen - 1] == '\n' && !strncmp(k->err, "glgemm run: ", 12),
               "%s: stderr '%.*s'", what, (int)k->errlen, k->err);
    FUZZ_CHECK(k->outlen == 0, "%s: stdout '%.*s'", what, (int)k->outlen, k->out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    /* argv: "run", then the NUL-separated pieces, each its own allocation so
     * ASan sees reads past any of them. */
    char *argv[66];
    int argc = 0;
    argv[argc++] = strdup("run");
    for (size_t i = 0; i <= size && argc < 65;) {
        const uint8_t *end = memchr(data + i, '\0', size - i);
        size_t n = end ? (size_t)(end - (data + i)) : size - i;
        if (!end && n == 0 && argc > 1)
            break;
        argv[argc] = malloc(n + 1);
        memcpy(argv[argc], data + i, n);
        argv[argc][n] = '\0';
        argc++;
        i += n + 1;
    }
    argv[argc] = NULL;

    cli_common c = {.cmd = "run"};
    own_state s = {&c, 0};
    capture k;
    capture_begin(&k);
    int rc = cli_parse(argc, argv, &c, own, handler, &s, true, "usage: glgemm run ...\n");
    capture_end(&k);
    FUZZ_CHECK(rc == 0 || rc == -1 || rc == EXIT_USAGE, "cli_parse returned %d", rc);
    FUZZ_CHECK(!strcmp(c.cmd, "run"), "cmd '%s'", c.cmd);
    if (rc == -1) {
        FUZZ_CHECK(k.outlen > 0 && k.errlen == 0, "help/version: out %zu err %zu", k.outlen,
                   k.errlen);
    } else if (rc == EXIT_USAGE) {
        check_one_line(&k, "rejection");
    } else {
        FUZZ_CHECK(k.outlen == 0 && k.errlen == 0, "success printed '%.*s'", (int)k.errlen, k.err);
        const gg_problem *p = &c.prob;
        FUZZ_CHECK(p->m >= 1 && p->m <= 1 << 20 && p->n >= 1 && p->n <= 1 << 20 && p->k >= 1 &&
                       p->k <= 1 << 20,
                   "problem %d %d %d", p->m, p->n, p->k);
        FUZZ_CHECK(p->reps >= 1 && p->reps <= 100000, "reps %d", p->reps);
        FUZZ_CHECK(isfinite(p->alpha) && isfinite(p->beta), "alpha %g beta %g", p->alpha, p->beta);
        FUZZ_CHECK(c.device >= 0 && c.device <= 1023, "device %d", c.device);
        FUZZ_CHECK(c.backend == GG_BACKEND_EGL || c.backend == GG_BACKEND_GLFW ||
                       c.backend == GG_BACKEND_BROWSER,
                   "backend %d", c.backend);
        FUZZ_CHECK(c.npositional >= 0 && c.npositional <= 4, "positional %d", c.npositional);
        free(k.out);
        free(k.err);
        capture_begin(&k);
        int rc2 = cli_check_problem(&c);
        capture_end(&k);
        FUZZ_CHECK(rc2 == 0 || rc2 == EXIT_USAGE, "cli_check_problem returned %d", rc2);
        if (rc2)
            check_one_line(&k, "check_problem");
        else
            FUZZ_CHECK(k.errlen == 0 && k.outlen == 0, "check_problem printed");
        if (c.npositional > 0) {
            gg_variant v;
            char err[256];
            if (gen_variant_parse(c.positional[0], NULL, &v, err, sizeof err))
                FUZZ_CHECK(fuzz_one_line(err), "variant message '%s'", err);
        }
    }
    free(k.out);
    free(k.err);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return 0;
}
