/* glgemm gen: the fragment shader of a variant, exactly as the host compiles
 * it, with no GL context and no display (SPEC.md "Commands").
 *
 *  - `best` reads results/<card>/best-MxNxK.txt (first word of its first
 *    line: the canonical variant).  The card is --card SLUG, or this device's
 *    slug when a GL context can be made here; otherwise gen says that best
 *    needs --card.
 *  - -o FILE writes atomically: a temporary file beside FILE, then rename.
 *  - --write-shaders DIR (what `make shaders` runs) writes DIR/<preset>.frag
 *    for the presets at 1024^3, DIR/best-<card>-MxNxK.frag for every
 *    results/<card>/best-MxNxK.txt, and DIR/README.md saying so; stale .frag
 *    files in DIR are removed, so DIR is exactly the generator's output. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/nearest.h"
#include "base/fileio.h"
#include "store/records.h"

enum { OPT_O = 1, OPT_VERTEX, OPT_CARD, OPT_WRITE };

#define RESULTS_DIR "results"
#define SHADER_SIZE 1024

/* The help text.  Its list of keys, their values and defaults, and the
 * presets come from gen/ itself, so they cannot go stale: the keys from
 * gen_keys (the one key table), what each allows from the parser's own
 * message for a bad value, the defaults from gen_variant_default, the
 * presets' meaning from parsing them (tests/docs_check.py checks that
 * docs/ and the man pages name every one of them). */
static const char usage_head[] =
    "usage: glgemm gen VARIANT [--m M --n N --k K | --size S] [--card SLUG] [-o FILE] [--vertex]\n"
    "       glgemm gen --write-shaders DIR\n"
    "\n"
    "Prints the fragment shader of VARIANT for the problem (default 1024 each),\n"
    "exactly as `glgemm run` compiles it.  No GL context is needed.\n"
    "VARIANT: key=value pairs joined by commas, or a preset followed by overrides\n"
    "(e.g. nv-single,np=64); omitted keys take their defaults.\n"
    "\n"
    "keys (in the canonical form's order), their values and defaults:\n";

static const char usage_tail[] =
    "  out=image needs blk and profile=430 or 310es, and keeps mrt=1x1; blk needs\n"
    "  out=image.  out, blk and fetch are left out of the canonical form at their\n"
    "  defaults.  Which combinations a card runs: docs/variants.md.\n"
    "\n"
    "  --card SLUG          card whose results/SLUG/best-MxNxK.txt `best` reads\n"
    "                       (default: this device's, if a GL context can be made)\n"
    "  -o FILE              write to FILE (atomically) instead of stdout\n"
    "  --vertex             print the vertex shader instead\n"
    "  --write-shaders DIR  write DIR/<preset>.frag for the presets at 1024^3 and\n"
    "                       DIR/best-<card>-MxNxK.frag for each recorded best (and\n"
    "                       best-f16-<card>-MxNxK.frag, best-f16x8-<card>-MxNxK.frag\n"
    "                       for each half-storage best)\n"
    "  --m M --n N --k K, --size S   the problem (default 1024 each); the other\n"
    "                       problem options (--transa, --transb, --alpha, --beta,\n"
    "                       --seed, --a, --b, --c, --out, --reps) are accepted and\n"
    "                       change nothing in the shader\n"
    "  --backend egl|glfw|browser, --device N, --browser PATH, --headful, --angle A\n"
    "                       the context that names this card for `best` without --card\n"
    "exit status: 0 ok, 2 bad usage or input\n";

/* The presets gen knows besides `best` (also what --write-shaders writes). */
static const char *const shader_presets[] = {"larsen", "nv-single", "nv-multi", "tfjs"};

/* What key i allows: the parser's message for a value no key takes
 * ("<key>: '?' is not allowed; use <what>"), from "use " on. */
static void key_allowed(int i, char *buf, size_t len)
{
    char text[64], err[400];
    gg_variant v;
    snprintf(text, sizeof text, "%s=?", gen_keys[i].name);
    const char *use = NULL;
    if (gen_variant_parse(text, NULL, &v, err, sizeof err) != 0)
        use = strstr(err, "; use ");
    snprintf(buf, len, "%s", use ? use + 6 : "see docs/variants.md");
}

/* Key i's default: its value in the default variant's canonical form, or
 * for the keys that form leaves out at their defaults, their value names. */
static void key_default(int i, char *buf, size_t len)
{
    gg_variant d;
    gen_variant_default(&d);
    char canon[GG_VARIANT_TEXT];
    gen_variant_format(&d, canon, sizeof canon);
    size_t n = strlen(gen_keys[i].name);
    for (char *p = canon; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (!strncmp(p, gen_keys[i].name, n) && p[n] == '=') {
            size_t vlen = strcspn(p + n + 1, ",");
            snprintf(buf, len, "%.*s", (int)vlen, p + n + 1);
            return;
        }
    }
    switch (gen_keys[i].bit) {
    case GG_KEY_OUT: snprintf(buf, len, "%s", gen_out_name(d.out)); return;
    case GG_KEY_FETCH: snprintf(buf, len, "%s", gen_fetch_name(d.fetch)); return;
    case GG_KEY_BLK: snprintf(buf, len, "none (needed with out=image)"); return;
    }
    snprintf(buf, len, "-");
}

/* The whole help text, built once. */
static const char *usage_text(void)
{
    static char buf[8192];
    if (buf[0])
        return buf;
    size_t len = 0;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (len < sizeof buf) {                                                                    \
            int w_ = snprintf(buf + len, sizeof buf - len, __VA_ARGS__);                           \
            len += w_ > 0 ? (size_t)w_ : 0;                                                        \
        }                                                                                          \
    } while (0)
    ADD("%s", usage_head);
    for (int i = 0; i < GG_KEY_COUNT; i++) {
        char allowed[300], def[64];
        key_allowed(i, allowed, sizeof allowed);
        key_default(i, def, sizeof def);
        char line[512];
        snprintf(line, sizeof line, "  %-9s default %s; %s", gen_keys[i].name, def, allowed);
        /* Wrapped at 79 columns, the rest indented under the text. */
        const char *p = line;
        while (strlen(p) > 79 - (p == line ? 0 : 12)) {
            int width = 79 - (p == line ? 0 : 12), cut = width;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                break;
            ADD("%s%.*s\n", p == line ? "" : "            ", cut, p);
            p += cut + 1;
        }
        ADD("%s%s\n", p == line ? "" : "            ", p);
    }
    ADD("\npresets (the other keys at their defaults):\n");
    for (size_t i = 0; i < sizeof shader_presets / sizeof *shader_presets; i++) {
        gg_variant v;
        char err[256], canon[GG_VARIANT_TEXT];
        if (gen_variant_parse(shader_presets[i], NULL, &v, err, sizeof err) == 0)
            ADD("  %-10s %s\n", shader_presets[i], gen_variant_format(&v, canon, sizeof canon));
    }
    ADD("  %-10s the card's recorded best for the problem (results/<card>/best-MxNxK.txt)\n\n",
        "best");
    ADD("%s", usage_tail);
#undef ADD
    if (len >= sizeof buf)
        buf[sizeof buf - 1] = '\0';
    return buf;
}

typedef struct {
    cli_common *common;
    const char *out;
    const char *card;
    const char *write_dir;
    bool vertex;
} gen_opts;

static int handle(void *self, int id, const char *value)
{
    gen_opts *o = self;
    switch (id) {
    case OPT_O: o->out = value; return 0;
    case OPT_VERTEX: o->vertex = true; return 0;
    case OPT_WRITE: o->write_dir = value; return 0;
    case OPT_CARD: return cli_card_option(o->common, value, &o->card);
    }
    return cli_error(o->common, "internal: unhandled option");
}

/* Writes text to path through a temporary file and rename.  0, or -1 with
 * a message printed. */
static int write_atomic(const cli_common *c, const char *path, const char *text)
{
    char err[600];
    if (base_write_atomic(path, text, strlen(text), err, sizeof err) != 0)
        return cli_error(c, "%s", err), -1;
    return 0;
}

/* The variant of that store's best file, results/<card>/best-MxNxK.txt,
 * best-f16-MxNxK.txt or best-f16x8-MxNxK.txt (store/records.h).  0, or -1
 * with why. */
static int read_best_file(const char *card, gg_store store, int m, int n, int k, gg_variant *v,
                          char *why, size_t len)
{
    char path[512], err[160];
    store_best_path_store(path, sizeof path, RESULTS_DIR, card, m, n, k, store);
    int rc = store_best_read_path(path, v, NULL, err, sizeof err);
    if (rc == GG_BEST_NONE)
        snprintf(why, len, "best: no %s (run glgemm tune --m %d --n %d --k %d on that card first)",
                 path, m, n, k);
    else if (rc)
        snprintf(why, len, "best: %.300s does not start with a variant (%.159s)", path, err);
    return rc ? -1 : 0;
}

/* --write-shaders: the presets, then each card's recorded bests. */

static int keep_name(char (*names)[300], int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

static int add_shader(const cli_common *c, const char *dir, const char *name, const gg_variant *v,
                      int m, int n, int k, char (*names)[300], int *count)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = gen_emit_fragment(v, m, n, k);
    if (!text)
        return cli_error(c, "cannot generate %s (sizes out of range or no memory)", name);
    int rc = write_atomic(c, path, text) ? EXIT_USAGE : 0;
    free(text);
    if (!rc && *count < 256)
        snprintf(names[(*count)++], 300, "%s", name);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of a folder (NULL-terminated, malloc'd); NULL if unreadable. */
static char **list_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    size_t n = 0, cap = 16;
    char **out = malloc(cap * sizeof *out);
    struct dirent *e;
    while (out && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n + 1 >= cap) {
            char **p = realloc(out, 2 * cap * sizeof *out);
            if (!p)
                break;
            out = p;
            cap *= 2;
        }
        out[n] = strdup(e->d_name);
        if (out[n])
            n++;
    }
    closedir(d);
    if (!out)
        return NULL;
    out[n] = NULL;
    qsort(out, n, sizeof *out, cmp_str);
    return out;
}

static void free_list(char **l)
{
    for (char **p = l; p && *p; p++)
        free(*p);
    free(l);
}

static int write_shaders(const cli_common *c, const char *dir)
{
    char names[256][300];
    int count = 0;
    char readme[4096];
    int rlen = snprintf(readme, sizeof readme,
                        "# shaders/\n\n"
                        "Written by `make shaders` (`glgemm gen --write-shaders shaders`); do not edit.\n"
                        "A test fails when these files differ from the generator's output.\n\n"
                        "- `<preset>.frag`: the presets larsen, nv-single, nv-multi and tfjs "
                        "(profile 330) for m = n = k = %d.\n"
                        "- `best-<card>-MxNxK.frag`: the best variant recorded in "
                        "`results/<card>/best-MxNxK.txt`, for that problem.\n"
                        "- `best-f16-<card>-MxNxK.frag`: the best half-storage (store=f16) "
                        "variant, from `results/<card>/best-f16-MxNxK.txt`: A and B as "
                        "half-float textures.\n"
                        "- `best-f16x8-<card>-MxNxK.frag`: the same for store=f16x8 "
                        "(`best-f16x8-MxNxK.txt`): eight halves a RGBA32UI texel.\n\n",
                        SHADER_SIZE);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_error(c, "cannot make %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof shader_presets / sizeof *shader_presets; i++) {
        gg_variant v;
        char err[256], name[64];
        if (gen_variant_parse(shader_presets[i], NULL, &v, err, sizeof err))
            return cli_error(c, "internal: %s", err);
        snprintf(name, sizeof name, "%s.frag", shader_presets[i]);
        if (add_shader(c, dir, name, &v, SHADER_SIZE, SHADER_SIZE, SHADER_SIZE, names, &count))
            return EXIT_USAGE;
    }
    char **cards = list_dir(RESULTS_DIR);
    for (char **card = cards; card && *card; card++) {
        if (!base_card_slug_ok(*card))
            continue;
        char sub[600];
        store_card_dir(sub, sizeof sub, RESULTS_DIR, *card);
        char **files = list_dir(sub);
        for (char **f = files; f && *f; f++) {
            int m, n, k;
            gg_store store; /* best-MxNxK.txt, or a half best best-f16(x8)-MxNxK.txt */
            if (!store_best_name_parse(*f, &m, &n, &k, &store))
                continue;
            gg_variant v;
            char why[700], name[300], prefix[32];
            if (read_best_file(*card, store, m, n, k, &v, why, sizeof why)) {
                free_list(files);
                free_list(cards);
                return cli_error(c, "%s", why);
            }
            snprintf(name, sizeof name, "%s%.100s-%dx%dx%d.frag",
                     store_best_prefix(prefix, sizeof prefix, store), *card, m, n, k);
            char vt[GG_VARIANT_TEXT];
            if (rlen > 0 && (size_t)rlen < sizeof readme)
                rlen += snprintf(readme + rlen, sizeof readme - (size_t)rlen, "  - `%s`: `%s`\n", name,
                                 gen_variant_format(&v, vt, sizeof vt));
            if (add_shader(c, dir, name, &v, m, n, k, names, &count)) {
                free_list(files);
                free_list(cards);
                return EXIT_USAGE;
            }
        }
        free_list(files);
    }
    free_list(cards);
    char path[1024];
    snprintf(path, sizeof path, "%s/README.md", dir);
    if (write_atomic(c, path, readme))
        return EXIT_USAGE;
    /* Stale shaders (a best that moved to another problem) go. */
    char **old = list_dir(dir);
    for (char **f = old; f && *f; f++) {
        size_t len = strlen(*f);
        if (len > 5 && !strcmp(*f + len - 5, ".frag") && !keep_name(names, count, *f)) {
            snprintf(path, sizeof path, "%s/%s", dir, *f);
            unlink(path);
        }
    }
    free_list(old);
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    static const cli_opt own[] = {
        {"o", 1, OPT_O},         {"vertex", 0, OPT_VERTEX},
        {"card", 1, OPT_CARD},   {"write-shaders", 1, OPT_WRITE},
        {NULL, 0, 0},
    };
    cli_common c = {.cmd = "gen"};
    gen_opts o = {.common = &c};
    int rc = cli_parse(argc, argv, &c, own, handle, &o, true, usage_text());
    if (rc < 0)
        return 0;
    if (rc)
        return rc;
    if (o.write_dir) {
        if (c.npositional > 0 || o.out || o.vertex || c.problem_given)
            return cli_error(&c, "--write-shaders DIR takes no variant, problem, -o or --vertex");
        return write_shaders(&c, o.write_dir);
    }
    if (c.npositional != 1)
        return cli_error(&c, c.npositional ? "one variant only, got '%s' and '%s'"
                                           : "give a variant, e.g. nv-single or mrt=2x2,mc=1x4%s%s",
                         c.npositional ? c.positional[0] : "", c.npositional ? c.positional[1] : "");
    const char *text = c.positional[0];
    int m = c.prob.m, n = c.prob.n, k = c.prob.k;

    gg_variant best, v;
    const gg_variant *bestp = NULL;
    char err[700];
    if (cli_names_best(text)) {
        char slug[GG_CARD_MAX];
        const char *card;
        if (cli_best_card(&c, o.card, slug, sizeof slug, &card))
            return EXIT_USAGE;
        char from[900], why[900];
        if (store_best_for(RESULTS_DIR, card, m, n, k, GG_STORE_F32, &best, from, sizeof from,
                           why, sizeof why))
            return cli_error(&c, "best: %s (run glgemm tune --m %d --n %d --k %d on that card "
                                 "first)", why, m, n, k);
        if (from[0])
            fprintf(stderr, "glgemm gen: best: no record for %dx%dx%d; the nearest recorded "
                            "problem's, %s\n", m, n, k, from);
        bestp = &best;
    }
    if (gen_variant_parse(text, bestp, &v, err, sizeof err))
        return cli_error(&c, "%s", err);
    char *shader = o.vertex ? gen_emit_vertex(&v) : gen_emit_fragment(&v, m, n, k);
    if (!shader && gen_variant_invalid(&v, err, sizeof err)) /* no geometry (mc=1x3,store=f16x8) */
        return cli_error(&c, "%s", err);
    if (!shader)
        return cli_error(&c, "cannot generate for %dx%dx%d (padded sizes overflow)", m, n, k);
    if (o.out) {
        rc = write_atomic(&c, o.out, shader) ? EXIT_USAGE : 0;
    } else {
        rc = fputs(shader, stdout) < 0 || fflush(stdout) ? cli_error(&c, "cannot write stdout") : 0;
    }
    free(shader);
    return rc;
}
