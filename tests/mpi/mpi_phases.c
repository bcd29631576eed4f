/* Phases with planted computation, communication and a late rank, for the
 * job view's wait states and efficiencies (tests/mpi/mpi_phases.sh,
 * docs/hpc.md#wait-states-and-efficiencies). Run with 4 ranks.
 *   mpi_phases phases  "solve", 3 times: rank r computes (sleeps) kSolveMs[r]
 *                      ms, then an MPI_Allreduce; ranks 0-2 wait for rank 3
 *                      there, 200 ms a time. Planted load balance: mean /
 *                      max of 100, 100, 100, 300 = 0.5.
 *                      "halo": rank 2 computes 150 ms, then sends 1 KiB to
 *                      rank 3, which waits for it in MPI_Recv.
 *                      "work": rank 3 spins 60 ms of CPU, the others 20 ms
 *                      (no MPI): CPU-time imbalance 60 / 30 = 2.
 *                      Each rank prints the time it measured around its MPI
 *                      calls (MPI_Wtime): "rank R solve_ns=N halo_ns=N".
 *   mpi_phases abort   "doomed": rank 1 calls MPI_Abort after 300 ms, the
 *                      others wait in MPI_Barrier until mpirun ends them.
 *   mpi_phases kill    "doomed": rank 1 runs "step" (100 ms each) for 2.5 s,
 *                      past two periodic flushes at TD_FLUSH_INTERVAL=1, then
 *                      raises SIGKILL on itself; the others wait in
 *                      MPI_Barrier until mpirun ends them.
 *   mpi_phases scaling strong scaling of "solve", 3 times: 400 ms of work
 *                      split evenly over the ranks, plus 40 ms every rank
 *                      repeats (setup no rank can share), then an
 *                      MPI_Allreduce. Useful time summed over p ranks:
 *                      1200 + 120 p ms, so between 2 and 4 ranks the
 *                      planted computation scalability is 1440 / 1680 =
 *                      0.857 (docs/hpc.md#two-jobs-side-by-side). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "td/td.h"
#include "spin.h"

static const int kSolveMs[4] = {100, 100, 100, 300};

static void SleepMs(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void Phases(int rank) {
  double solve = 0, halo = 0;
  for (int iteration = 0; iteration < 3; ++iteration) {
    double in = rank, out = 0;
    TD_REGION_BEGIN("solve");
    SleepMs(kSolveMs[rank % 4]);
    const double t0 = MPI_Wtime();
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    solve += MPI_Wtime() - t0;
    TD_REGION_END("solve");
  }

  int halo_buffer[256] = {0};
  TD_REGION_BEGIN("halo");
  const double t0 = MPI_Wtime();
  if (rank == 2) {
    SleepMs(150);
    const double sent = MPI_Wtime();
    MPI_Send(halo_buffer, 256, MPI_INT, 3, 9, MPI_COMM_WORLD);
    halo = MPI_Wtime() - sent;
  } else if (rank == 3) {
    MPI_Recv(halo_buffer, 256, MPI_INT, 2, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    halo = MPI_Wtime() - t0;
  }
  TD_REGION_END("halo");

  TD_REGION_BEGIN("work");
  Spin(rank == 3 ? 60 : 20);
  TD_REGION_END("work");
  printf("rank %d solve_ns=%.0f halo_ns=%.0f\n", rank, solve * 1e9, halo * 1e9);
}

static void Abort(int rank) {
  TD_REGION_BEGIN("doomed");
  if (rank == 1) {
    SleepMs(300);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* never returns: mpirun ends the job */
  TD_REGION_END("doomed");
}

static void Kill(int rank) {
  TD_REGION_BEGIN("doomed");
  if (rank == 1) {
    for (int step = 0; step < 25; ++step) {
      TD_REGION_BEGIN("step");
      SleepMs(100);
      TD_REGION_END("step");
    }
    fflush(stdout);
    raise(SIGKILL);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* never returns: mpirun ends the job */
  TD_REGION_END("doomed");
}

static void Scaling(int rank, int size) {
  for (int iteration = 0; iteration < 3; ++iteration) {
    double in = rank, out = 0;
    TD_REGION_BEGIN("solve");
    SleepMs(400 / size + 40);
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    TD_REGION_END("solve");
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "abort") == 0) {
    Abort(rank);
  } else if (argc > 1 && strcmp(argv[1], "kill") == 0) {
    Kill(rank);
  } else if (argc > 1 && strcmp(argv[1], "scaling") == 0) {
    Scaling(rank, size);
  } else {
    Phases(rank);
  }
  MPI_Finalize();
  return 0;
}
