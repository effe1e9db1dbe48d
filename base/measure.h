/* What an evaluation is and what it returns: the face glhost/ shows to
 * search/ and the front end.  No GL here, so search/ builds and tests with
 * no GL at all.
 *
 * host_run_current() (glhost/run.h) runs one variant on one problem on the current
 * context and fills a gg_measurement: a status from SPEC.md's list, the median
 * time of the passes, GFLOP/s, rel_err, and the compile, upload and read-back
 * times apart.  A failure of the variant is a status, never an abort. */
#ifndef GLGEMM_MEASURE_H
#define GLGEMM_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    GG_OK,
    GG_INVALID,
    GG_UNSUPPORTED,
    GG_COMPILE_ERROR,
    GG_LINK_ERROR,
    GG_FBO_INCOMPLETE,
    GG_GL_ERROR,
    GG_WRONG_RESULT,
    GG_TIMEOUT,
    GG_CONTEXT_LOST,
    GG_COMPILE_TIMEOUT,  /* the shader's compilation ran past its limit (never drawn) */
    GG_PRUNED_BOUND,     /* not run: its upper bound (search/bound.h) is below the
                            best so far over the margin; gflops 0 */
    GG_PAGE_CRASH,       /* the browser backend: the page (or the browser) died */
    GG_STATUS_COUNT
} gg_status;

/* SPEC.md's spelling ("ok", "wrong_result", ...); parse returns -1 if unknown. */
const char *base_status_name(gg_status s);
int base_status_parse(const char *name);

/* One GEMM problem: C = alpha*op(A)*op(B) + beta*C0, SPEC.md "Problem options". */
typedef struct {
    int m, n, k;
    bool transa, transb;
    float alpha, beta;
    unsigned seed;
    int reps;             /* timed repetitions after one warm-up (default 10) */
    const char *a_path, *b_path, *c_path; /* optional .npy inputs */
    const char *out_path;                 /* optional .npy output */
} gg_problem;

void base_problem_default(gg_problem *p); /* 1024^3, alpha 1, beta 0, seed 1, 10 reps */

typedef struct {
    gg_status status;
    int passes;
    double seconds;       /* median over reps of first draw .. glFinish */
    double gflops;        /* 2*m*n*k / seconds / 1e9; 0 unless status is ok */
    double rel_err;       /* SPEC.md's error; -1 when not measured */
    double compile_s, upload_s, readback_s;
    double gpu_s;         /* GL_TIME_ELAPSED where available, else -1 (reported beside, never instead) */
    int reps;             /* timed repetitions run (fewer than asked: screened, or the spread was tight) */
    double spread;        /* (slowest - fastest) / median of the timed repetitions; 0 for one */
    bool screened;        /* stopped after one timed repetition: slower than the screening bound */
    bool program_cached;  /* the program came from a cache (memory or disk): compile_s is its cost */
    double run_s;         /* wall time of the warm-up, the timed repetitions and the re-initialisations */
    double verify_s;      /* judging C against the reference */
    double ahead_s;       /* building programs of the variants hinted to come next (evaluator) */
    /* Long draws (glhost/run.h): the draw calls of one run of the GEMM (the
     * last timed one; a pass is one draw, a strip one for fetch=ubo, more
     * when split), the fragments one draw held at most where a pass was
     * split (0: none was), and the bound on a draw's time that sized them
     * (seconds; 0: none). */
    long draws;
    long draw_cap;
    double max_draw_s;
    char detail[512];     /* one line: why the status is not ok */
} gg_measurement;

void base_measurement_init(gg_measurement *m);

#endif
