/* The MPI transport and glgemm-mpi's main: see mpi.h. */
#include "eval/mpi.h"

#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/pool.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool dropped; /* a rank stopped answering: MPI_Abort at the end */

static int mpi_send(void *self, int to, int tag, const void *buf, size_t len)
{
    (void)self;
    pthread_mutex_lock(&mu);
    int rc = MPI_Send(buf, (int)len, MPI_BYTE, to, tag, MPI_COMM_WORLD);
    pthread_mutex_unlock(&mu);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static long mpi_poll(void *self, int from, int tag, void *buf, size_t cap)
{
    (void)self;
    int flag = 0, count = 0;
    MPI_Status st;
    long got = -1;
    pthread_mutex_lock(&mu);
    if (MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag &&
        MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS) {
        /* a longer message than cap: whole into a buffer of its own, cut */
        void *into = (size_t)count <= cap ? buf : malloc((size_t)count);
        if (into && MPI_Recv(into, count, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                        MPI_SUCCESS) {
            got = count;
            if (into != buf) {
                memcpy(buf, into, cap);
                got = (long)cap;
            }
        }
        if (into != buf)
            free(into);
    }
    pthread_mutex_unlock(&mu);
    return got;
}

static void mpi_lost(void *self, int rank)
{
    (void)self;
    pthread_mutex_lock(&mu);
    dropped = true;
    pthread_mutex_unlock(&mu);
    fprintf(stderr, "glgemm-mpi: rank %d did not answer in time: its devices are dropped, its "
                    "evaluation goes to another device\n", rank);
}

/* Commands the other ranks take part in (serving their devices). */
static bool serving(int argc, char **argv)
{
    static const char *const cmds[] = {"tune", "bench", "run"};
    for (size_t i = 0; argc > 1 && i < sizeof cmds / sizeof *cmds; i++)
        if (!strcmp(argv[1], cmds[i]))
            return true;
    return false;
}

int eval_mpi_start(int *argc, char ***argv)
{
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "glgemm-mpi: MPI_Init_thread failed\n");
        return 3;
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        fprintf(stderr, "glgemm-mpi: this MPI gives no MPI_THREAD_SERIALIZED\n");
        MPI_Finalize();
        return 3;
    }
    static gg_transport t;
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.size);
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t.rank, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &t.local_rank);
    MPI_Comm_free(&host);
    t.send = mpi_send;
    t.poll = mpi_poll;
    t.lost = mpi_lost;
    eval_pool_transport = &t;
    if (t.rank > 0 && !freopen("/dev/null", "w", stdout)) /* rank 0 prints the results */
        fclose(stdout);
    return 0;
}

bool eval_mpi_runs(int argc, char **argv)
{
    return eval_pool_transport->rank == 0 || serving(argc, argv);
}

int eval_mpi_end(int argc, char **argv, int rc)
{
    const gg_transport *t = eval_pool_transport;
    fflush(NULL);
    /* A dropped rank may hang, and a rank 0 that failed before its pool
     * told the others to leave would leave them serving: end the job. */
    if (dropped || (t->rank == 0 && serving(argc, argv) && rc && t->size > 1 &&
                    !eval_pool_released()))
        MPI_Abort(MPI_COMM_WORLD, rc ? rc : 1);
    MPI_Finalize();
    return rc;
}
