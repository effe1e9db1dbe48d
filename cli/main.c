/* glgemm: graphics-era GEMM shaders, their host and their autotuner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "glhost/progcache_entry.h"
#include "lib/env.h"
#ifdef GLGEMM_MPI
#include "eval/mpi.h" /* glgemm-mpi (make mpi) */
#endif

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} commands[] = {
    {"info", cmd_info, "the GL context: vendor, renderer, limits, features, slug"},
    {"devices", cmd_devices, "the EGL devices, with their index"},
    {"gen", cmd_gen, "print the fragment shader of a variant (no GL needed)"},
    {"run", cmd_run, "one verified, timed GEMM with a variant"},
    {"tune", cmd_tune, "search the variant space for the fastest verified variant"},
    {"bench", cmd_bench, "the presets, best and the CPU BLAS on one problem"},
    {"probe", cmd_probe, "microbenchmarks of the fragment path: the card's ceilings"},
    {"report", cmd_report, "write results/<card>/report.md and its figures"},
    {"export", cmd_export, "an ES module folder (WebGL2 runtime + generator) for web pages"},
};

/* The environment the commands read: the program cache's GLGEMM_CACHE
 * and the library's GLGEMM_VERIFY, GLGEMM_CROSSOVER, GLGEMM_STAGING,
 * GLGEMM_DEVICES and GLGEMM_SPLIT_* (bench --crossover runs the library).
 * A bad value is bad usage, as a bad option is. */
static int check_env(void)
{
    char err[300];
    long x;
    static const int lib_vars[] = {LIB_ENV_VERIFY, LIB_ENV_CROSSOVER, LIB_ENV_STAGING,
                                   LIB_ENV_SPLIT_MIN, LIB_ENV_SPLIT_TILES};
    for (size_t i = 0; i < sizeof lib_vars / sizeof *lib_vars; i++)
        if (lib_env_get(lib_vars[i], &x, err, sizeof err))
            return cli_error(NULL, "%s", err);
    int list[GLGEMM_MAX_DEVICES], n;
    if (lib_env_devices(getenv("GLGEMM_DEVICES"), list, &n, err, sizeof err))
        return cli_error(NULL, "%s", err);
    char *folder = NULL;
    int rc = host_pce_folder(getenv("GLGEMM_CACHE"), NULL, NULL, NULL, &folder, err, sizeof err);
    free(folder);
    return rc < 0 ? cli_error(NULL, "%s", err) : 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: glgemm COMMAND [options]   (glgemm COMMAND --help for its options)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
    fprintf(f, "\ncommon options: --backend egl|glfw|browser (default egl), --device N,\n"
               "  --browser PATH, --headful, --angle default|vulkan|gl-egl|swiftshader (with\n"
               "  --backend browser), --help, --version\n"
               "environment: GLGEMM_CACHE=on|off, GLGEMM_CACHE_DIR (the program cache),\n"
               "  GLGEMM_VERIFY, GLGEMM_CROSSOVER, GLGEMM_STAGING (the library: bench\n"
               "  --crossover); a bad value is bad usage;\n"
               "  GLGEMM_RESULTS, GLGEMM_CPU_BLAS, GLGEMM_THREADS, GLGEMM_BANDS,\n"
               "  GLGEMM_WARMUP (the library: bench --crossover),\n"
               "  GLGEMM_DEVICES, GLGEMM_SPLIT_MIN, GLGEMM_SPLIT_TILES (the library over\n"
               "  several devices: man 3 glgemm; a bad value is bad usage),\n"
               "  GLGEMM_BACKEND, GLGEMM_DEVICE, GLGEMM_LOG (the drop-in BLAS: man 3 glgemm),\n"
               "  GLGEMM_WARM_WORKER=0|1 (tune's warm worker),\n"
               "  GLGEMM_WEB (the browser worker's folder), GLGEMM_WEB_DIR (export's files)\n"
               "exit status: 0 ok, 1 GPU work failed, 2 bad usage or input, 3 no GL context\n");
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return cli_error(NULL, "no command given (commands: info, devices, gen, run, tune, bench, "
                               "probe, report; try glgemm --help)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("glgemm %s\n", GLGEMM_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return check_env() ? EXIT_USAGE : commands[i].fn(argc - 1, argv + 1);
    return cli_error(NULL, "unknown command '%s' (try glgemm --help)", argv[1]);
}

int main(int argc, char **argv)
{
#ifdef GLGEMM_MPI
    int rc = eval_mpi_start(&argc, &argv);
    if (rc)
        return rc;
    if (eval_mpi_runs(argc, argv))
        rc = dispatch(argc, argv);
    return eval_mpi_end(argc, argv, rc);
#else
    return dispatch(argc, argv);
#endif
}
