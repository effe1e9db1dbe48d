/* How long the library's default check (base/checksum.h) takes, no GL:
 *   make build/checkspeed && build/checkspeed [options] [SIZE...]
 *     (default sizes 256 1024 4096; SIZE^3 problems, row-major)
 *   --reps R      timed repetitions per figure (default 9 below 2048, 3 above)
 *   --threads T   also time prepare with T threads (a pool made for each
 *                 call, and a kept base/pool of T) and the check split in T
 *                 row bands on T threads (default 0: single thread only)
 *   --band B      also time the check in bands of B rows, one thread
 *   --beta V      beta (default 0: C0 not read), --transa, --transb
 * C is computed by OpenBLAS on one thread (a right result, so every check runs to its end).
 * Prints the median and the minimum of each step in ms.  Not a test:
 * figures, never asserted; report them with `uptime`'s load. */
#include <cblas.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/checksum.h"
#include "base/clock.h"
#include "base/inputs.h"
#include "base/pool.h"

#define MAXREPS 64

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

typedef struct {
    const gg_checksum_plan *p;
    const float *c;
    int ldc, r0, r1, band, rc;
    double *acc;
} band_job;

static void *band_main(void *arg)
{
    band_job *b = arg;
    char why[400];
    b->rc = 0;
    for (int r = b->r0; r < b->r1 && !b->rc; r += b->band) {
        int e = r + b->band < b->r1 ? r + b->band : b->r1;
        b->rc = base_checksum_check_rows(b->p, b->c, b->ldc, r, e, b->acc, why, sizeof why);
    }
    return NULL;
}

/* The check as the library may run it: nt threads over row bands of band
 * rows each, then the accumulators merged and the columns judged. */
static int check_banded(const gg_checksum_plan *p, const float *c, int m, int n, int nt,
                        int band, double *acc)
{
    band_job jobs[64];
    pthread_t th[64];
    size_t len = base_checksum_colacc_len(p);
    memset(acc, 0, sizeof *acc * len * (size_t)nt);
    for (int t = 0; t < nt; t++) {
        jobs[t] = (band_job){p, c, n, (int)((long)m * t / nt), (int)((long)m * (t + 1) / nt),
                             band, 0, acc + len * (size_t)t};
        if (t && pthread_create(&th[t], NULL, band_main, &jobs[t]))
            return -1;
    }
    band_main(&jobs[0]);
    int rc = jobs[0].rc;
    for (int t = 1; t < nt; t++) {
        pthread_join(th[t], NULL);
        rc = rc ? rc : jobs[t].rc;
        base_checksum_colacc_add(p, acc, jobs[t].acc);
    }
    char why[400];
    return rc ? rc : base_checksum_check_cols(p, acc, why, sizeof why);
}

int main(int argc, char **argv)
{
    /* One OpenBLAS thread: its pool's idle threads spin (sched_yield) and
     * take a core from the figures; the variable is read when it loads. */
    if (!getenv("OPENBLAS_NUM_THREADS")) {
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execv("/proc/self/exe", argv);
    }
    int sizes[16], ns = 0, reps = 0, threads = 0, band = 0;
    float beta = 0;
    bool ta = false, tb = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--band") && i + 1 < argc)
            band = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--beta") && i + 1 < argc)
            beta = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "--transa"))
            ta = true;
        else if (!strcmp(argv[i], "--transb"))
            tb = true;
        else if (ns < 16 && atoi(argv[i]) > 0 && atoi(argv[i]) <= 16384)
            sizes[ns++] = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: checkspeed [--reps R] [--threads T] [--band B] [--beta V] "
                            "[--transa] [--transb] [SIZE...]\n");
            return 2;
        }
    }
    if (reps < 0 || reps > MAXREPS || threads < 0 || threads > 64 || band < 0) {
        fprintf(stderr, "checkspeed: reps 1..%d, threads 0..64, band >= 0\n", MAXREPS);
        return 2;
    }
    if (!ns) {
        sizes[ns++] = 256;
        sizes[ns++] = 1024;
        sizes[ns++] = 4096;
    }
    printf("checkspeed: beta %g, op(A) %s, op(B) %s, 64 samples; ms, median (min)\n", beta,
           ta ? "T" : "N", tb ? "T" : "N");
    for (int s = 0; s < ns; s++) {
        int N = sizes[s], R = reps ? reps : N > 2048 ? 3 : 9;
        size_t nn = (size_t)N * N;
        float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
        float *c0 = malloc(nn * sizeof *c0), *c = malloc(nn * sizeof *c);
        int nt = threads > 1 ? threads : 1;
        double *acc = malloc(2 * (size_t)N * (size_t)nt * sizeof *acc);
        if (!a || !b || !c0 || !c || !acc) {
            fprintf(stderr, "checkspeed: out of memory at %d\n", N);
            return 1;
        }
        base_fill_uniform(a, nn, 1, 0);
        base_fill_uniform(b, nn, 1, 1);
        base_fill_uniform(c0, nn, 1, 2);
        memcpy(c, c0, nn * sizeof *c);
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    N, N, N, 1.0f, a, N, b, N, beta, c, N);
        gg_gemm_operands g = {N, N, N, 1.0f, beta, {a, N, ta}, {b, N, tb}, c0, N};
        double tp[MAXREPS], tc[MAXREPS], tpt[MAXREPS], tct[MAXREPS], tcb[MAXREPS],
            tpp[MAXREPS];
        base_pool *pool = threads > 1 ? base_pool_new(threads) : NULL;
        char why[400] = "";
        for (int r = 0; r < R; r++) {
            gg_checksum_plan *p;
            double t0 = base_now_s();
            if (base_checksum_prepare(&g, 100 + (uint64_t)r, 64, &p)) {
                fprintf(stderr, "checksped: out of memory\n");
                return 1;
            }
            double t1 = base_now_s();
            int rc = base_checksum_check(p, c, N, why, sizeof why);
            double t2 = base_now_s();
            tp[r] = 1e3 * (t1 - t0);
            tc[r] = 1e3 * (t2 - t1);
            if (rc) {
                fprintf(stderr, "checkspeed: %d: the check refused a right result: %s\n", N, why);
                return 1;
            }
            if (band) {
                t1 = base_now_s();
                rc = check_banded(p, c, N, N, 1, band, acc);
                tcb[r] = 1e3 * (base_now_s() - t1);
                if (rc) {
                    fprintf(stderr, "checkspeed: %d: banded check refused\n", N);
                    return 1;
                }
            }
            base_checksum_free(p);
            if (threads > 1) {
                t0 = base_now_s();
                if (base_checksum_prepare_threads(&g, 100 + (uint64_t)r, 64, threads, &p)) {
                    fprintf(stderr, "checksped: out of memory\n");
                    return 1;
                }
                t1 = base_now_s();
                rc = check_banded(p, c, N, N, threads, N, acc);
                t2 = base_now_s();
                tpt[r] = 1e3 * (t1 - t0);
                tct[r] = 1e3 * (t2 - t1);
                if (rc) {
                    fprintf(stderr, "checkspeed: %d: threaded check refused\n", N);
                    return 1;
                }
                base_checksum_free(p);
                t0 = base_now_s();
                if (base_checksum_prepare_pool(&g, 100 + (uint64_t)r, 64, pool, &p)) {
                    fprintf(stderr, "checksped: out of memory\n");
                    return 1;
                }
                tpp[r] = 1e3 * (base_now_s() - t0);
                base_checksum_free(p);
            }
        }
        base_pool_free(pool);
        double mp = median(tp, R), mc = median(tc, R); /* sorted: [0] is the min */
        printf("%5d  prepare %8.3f (%8.3f)  check %8.3f (%8.3f)", N, mp, tp[0], mc, tc[0]);
        if (band)
            printf("  check/%d-row bands %8.3f", band, median(tcb, R));
        if (threads > 1)
        {
            double mpt = median(tpt, R), mct = median(tct, R), mpp = median(tpp, R);
            printf("  | %d threads: prepare %8.3f (kept pool %8.3f)  check %8.3f", threads, mpt,
                   mpp, mct);
        }
        printf("\n");
        fflush(stdout);
        free(a), free(b), free(c0), free(c), free(acc);
    }
    return 0;
}
