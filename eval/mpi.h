/* eval/mpi: the MPI transport of the device pool (eval/pool.h's
 * gg_transport over Open MPI), and the main of glgemm-mpi.  Built only
 * by `make mpi` (this file's .c is not in the one-machine build, which
 * never needs MPI).
 *
 * Contract:
 *  - eval_mpi_main() starts MPI (MPI_THREAD_SERIALIZED: the pool's threads
 *    call it one at a time, under one mutex), sets eval_pool_transport
 *    (rank, size, the rank's number on its host), and runs the command:
 *    rank 0 runs it as glgemm does (searching, writing the records) with
 *    the devices of every rank; the other ranks run tune, bench and run up
 *    to their inputs and then serve their devices (eval/serve.h) until
 *    rank 0 says to leave; any other command runs on rank 0 only.
 *  - Messages are polled, never waited for in a blocking call (Open MPI
 *    spins a core in one; llvmpipe's rasteriser needs the cores).
 *  - When rank 0 dropped a rank that stopped answering, it ends with
 *    MPI_Abort (a rank that hangs would hang MPI_Finalize); else every rank
 *    calls MPI_Finalize.  A rank that dies makes Open MPI end the whole
 *    job: the records keep every measurement rank 0 had, and the next tune
 *    resumes from them. */
#ifndef GLGEMM_EVAL_MPI_H
#define GLGEMM_EVAL_MPI_H

/* Runs run(argc, argv) under MPI as above; its exit status. */
int eval_mpi_main(int argc, char **argv, int (*run)(int argc, char **argv));

#endif
