/* Fuzz target: the tuning-record row reader (store_csv_parse, store/csv.c).
 * Invariants: an accepted row has a slug card, m, n, k >= 1, a status of
 * SPEC's list, finite seconds and gflops >= 0 and rel_err empty (-1) or
 * >= 0; store_csv_format() writes it back (format after parse succeeds), that
 * row parses to the same values, and formatting those gives the same row
 * (format(parse(format(parse(x)))) == format(parse(x))); a rejected row
 * leaves one line in err; the header line is never a row. */
#include <math.h>

#include "store/csv.h"
#include "tests/fuzz/fuzz.h"

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_variant(const gg_variant *a, const gg_variant *b)
{
    char x[GG_VARIANT_TEXT], y[GG_VARIANT_TEXT];
    return !strcmp(gen_variant_format(a, x, sizeof x), gen_variant_format(b, y, sizeof y));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = fuzz_cstring(data, size);
    if (!line)
        return 0;
    char card[GG_CARD_MAX], card2[GG_CARD_MAX], err[256];
    gg_problem p, p2;
    gg_variant v, v2;
    gg_measurement m, m2;
    base_problem_default(&p);
    base_problem_default(&p2);
    int rc = store_csv_parse(line, card, sizeof card, &p, &v, &m, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1, "rc %d", rc);
        FUZZ_CHECK(fuzz_one_line(err), "message '%s'", err);
        free(line);
        return 0;
    }
    FUZZ_CHECK(!store_csv_is_header(line), "header accepted as a row");
    FUZZ_CHECK(base_card_slug_ok(card), "card '%s'", card);
    FUZZ_CHECK(p.m >= 1 && p.n >= 1 && p.k >= 1, "m n k %d %d %d", p.m, p.n, p.k);
    FUZZ_CHECK((unsigned)m.status < GG_STATUS_COUNT && m.passes >= 0, "status %d passes %d",
               m.status, m.passes);
    FUZZ_CHECK(isfinite(m.seconds) && m.seconds >= 0 && isfinite(m.gflops) && m.gflops >= 0,
               "seconds %g gflops %g", m.seconds, m.gflops);
    FUZZ_CHECK(m.rel_err == -1 || m.rel_err >= 0, "rel_err %g", m.rel_err);

    char row[GG_CSV_ROW_MAX + 2], row2[GG_CSV_ROW_MAX];
    FUZZ_CHECK(store_csv_format(row, sizeof row, card, &p, &v, &m) == 0,
               "accepted row cannot be written back: %s", line);
    FUZZ_CHECK(store_csv_parse(row, card2, sizeof card2, &p2, &v2, &m2, err, sizeof err) == 0,
               "written row '%s' rejected: %s", row, err);
    FUZZ_CHECK(!strcmp(card, card2) && p.m == p2.m && p.n == p2.n && p.k == p2.k, "problem");
    FUZZ_CHECK(same_variant(&v, &v2), "variant");
    FUZZ_CHECK(m.status == m2.status && m.passes == m2.passes, "status/passes");
    FUZZ_CHECK(same_double(m.seconds, m2.seconds) && same_double(m.gflops, m2.gflops) &&
                   same_double(m.rel_err, m2.rel_err),
               "numbers of '%s' came back as '%s'", line, row);
    FUZZ_CHECK(store_csv_format(row2, sizeof row2, card2, &p2, &v2, &m2) == 0 && !strcmp(row, row2),
               "'%s' then '%s'", row, row2);
    /* A row written by the tool reads back byte for byte with a newline too. */
    size_t n = strlen(row);
    row[n] = '\n';
    row[n + 1] = '\0';
    FUZZ_CHECK(store_csv_parse(row, card2, sizeof card2, &p2, &v2, &m2, err, sizeof err) == 0,
               "row with newline: %s", err);
    free(line);
    return 0;
}
