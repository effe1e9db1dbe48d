/* eval/mpi: the MPI transport of the device pool (eval/pool.h's
 * gg_transport over Open MPI): MPI started and ended around glgemm-mpi's
 * command (cli/main.c built with GLGEMM_MPI).  Built only
 * by `make mpi` (this file's .c is not in the one-machine build, which
 * never needs MPI).
 *
 * Contract:
 *  - eval_mpi_start() starts MPI (MPI_THREAD_SERIALIZED: the pool's threads
 *    call it one at a time, under one mutex) and sets eval_pool_transport
 *    (rank, size, the rank's number on its host); the other ranks' stdout
 *    goes to /dev/null (rank 0 prints the results).
 *  - glgemm-mpi's main then runs the command as glgemm does where
 *    eval_mpi_runs() says so: rank 0 every command (searching, writing the
 *    records) with the devices of every rank, through the same calls as
 *    glgemm (the tune through eval/session.h, its pool reaching the other
 *    ranks); the other ranks tune, bench and run up to their inputs and
 *    then serve their devices (eval/serve.h) until rank 0 says to leave;
 *    any other command runs on rank 0 only.  eval_mpi_end() ends MPI.
 *  - Messages are polled, never waited for in a blocking call (Open MPI
 *    spins a core in one; llvmpipe's rasteriser needs the cores).
 *  - When rank 0 dropped a rank that stopped answering, eval_mpi_end ends
 *    with MPI_Abort (a rank that hangs would hang MPI_Finalize); else every
 *    rank calls MPI_Finalize.  A rank that dies makes Open MPI end the
 *    whole job: the records keep every measurement rank 0 had, and the
 *    next tune resumes from them. */
#ifndef GLGEMM_EVAL_MPI_H
#define GLGEMM_EVAL_MPI_H

#include <stdbool.h>

/* Starts MPI as above: 0, or the exit status (3) after one line. */
int eval_mpi_start(int *argc, char ***argv);

/* Whether this rank runs the command argv names (after eval_mpi_start). */
bool eval_mpi_runs(int argc, char **argv);

/* Ends MPI after the command (status rc, 0 where this rank did not run
 * it); returns rc. */
int eval_mpi_end(int argc, char **argv, int rc);

#endif
