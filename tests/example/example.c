/* A program outside the tree: built against the installed glgemm through
 * `pkg-config --cflags --libs glgemm` (tests/example/run.sh), it checks
 * cblas_sgemm's semantics on both layouts with padded leading dimensions
 * against a double loop, the padding untouched, and one argument error.
 * Exit 0 when everything holds, 1 with a line naming what did not. */
#include <glgemm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 12345.0f

static float frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* X(r, c) of a matrix stored in layout with leading dimension ld. */
static double at(const float *x, int ld, int row_major, int r, int c)
{
    return row_major ? x[(size_t)r * ld + c] : x[(size_t)c * ld + r];
}

static int one(glgemm_context *g, int row_major, int ta, int tb, int m, int n, int k)
{
    const float alpha = 0.75f, beta = -0.5f;
    int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    int lda = (row_major ? ac : ar) + 3, ldb = (row_major ? bc : br) + 2;
    int ldc = (row_major ? n : m) + 5;
    size_t asz = (size_t)lda * (row_major ? ar : ac), bsz = (size_t)ldb * (row_major ? br : bc);
    size_t csz = (size_t)ldc * (row_major ? m : n);
    float *a = malloc(asz * sizeof *a), *b = malloc(bsz * sizeof *b);
    float *c = malloc(csz * sizeof *c), *c0 = malloc(csz * sizeof *c0);
    unsigned s = 7u + (unsigned)(row_major * 4 + ta * 2 + tb);
    for (size_t i = 0; i < asz; i++)
        a[i] = frand(&s);
    for (size_t i = 0; i < bsz; i++)
        b[i] = frand(&s);
    for (size_t i = 0; i < csz; i++)
        c[i] = SENTINEL;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            c[row_major ? (size_t)i * ldc + j : (size_t)j * ldc + i] = frand(&s);
    memcpy(c0, c, csz * sizeof *c);

    int rc = glgemm_sgemm(g, row_major ? GLGEMM_ROW_MAJOR : GLGEMM_COL_MAJOR,
                          ta ? GLGEMM_TRANS : GLGEMM_NOTRANS, tb ? GLGEMM_TRANS : GLGEMM_NOTRANS,
                          m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    int bad = 0;
    if (rc) {
        printf("example: %s %c%c: %s: %s\n", row_major ? "row" : "col", ta ? 'T' : 'N',
               tb ? 'T' : 'N', glgemm_strerror(rc), glgemm_last_error());
        bad = 1;
    }
    double worst = 0, bound = k * ldexp(1.0, -23);
    for (int i = 0; i < m && !bad; i++)
        for (int j = 0; j < n; j++) {
            double r = 0, sc = 0;
            for (int p = 0; p < k; p++) {
                double t = (ta ? at(a, lda, row_major, p, i) : at(a, lda, row_major, i, p)) *
                           (tb ? at(b, ldb, row_major, j, p) : at(b, ldb, row_major, p, j));
                r += t;
                sc += fabs(t);
            }
            double cz = at(c0, ldc, row_major, i, j);
            r = alpha * r + beta * cz;
            sc = fabs(alpha) * sc + fabs(beta * cz);
            double e = fabs(at(c, ldc, row_major, i, j) - r) / sc;
            worst = e > worst ? e : worst;
        }
    for (size_t i = 0; i < csz && !bad; i++)
        if (c0[i] == SENTINEL && c[i] != SENTINEL) {
            printf("example: padding element %zu written\n", i);
            bad = 1;
        }
    if (!bad && !(worst <= bound)) {
        printf("example: %s %c%c: rel_err %g beyond %g\n", row_major ? "row" : "col",
               ta ? 'T' : 'N', tb ? 'T' : 'N', worst, bound);
        bad = 1;
    }
    if (!bad)
        printf("example: %s-major %c%c %dx%dx%d ok, rel_err %.3g\n", row_major ? "row" : "col",
               ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, worst);
    free(a);
    free(b);
    free(c);
    free(c0);
    return bad;
}

int main(void)
{
    glgemm_context *g = glgemm_open(NULL, 0);
    if (!g) {
        printf("example: glgemm_open: %s\n", glgemm_last_error());
        return 1;
    }
    char variant[200];
    if (glgemm_variant_for(g, 33, 20, 41, variant, sizeof variant) == GLGEMM_OK)
        printf("example: card %s, variant %s\n", glgemm_card(g), variant);
    int bad = 0;
    for (int lay = 0; lay < 2; lay++)
        for (int t = 0; t < 4; t++)
            bad |= one(g, lay, t >> 1, t & 1, 33, 20, 41);
    float x = 1;
    int rc = glgemm_sgemm(g, GLGEMM_COL_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 4, 4, 4, 1, &x, 3,
                          &x, 4, 0, &x, 4);
    if (rc != GLGEMM_EARG_LDA || x != 1) {
        printf("example: lda 3 < m 4 gave %d (%s), wanted GLGEMM_EARG_LDA\n", rc,
               glgemm_strerror(rc));
        bad = 1;
    }
    glgemm_close(g);
    printf("example: %s\n", bad ? "FAILED" : "all ok");
    return bad;
}
