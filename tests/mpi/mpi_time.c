/* MPI time per region and MPI_Abort, for libtd-mpi's tests
 * (tests/mpi/mpi_time.sh) and its cost per wrapped call (docs/hpc.md).
 *   mpi_time regions   "step": 20 ms of CPU, then the last rank sleeps
 *                      LATE_MS before an MPI_Barrier and an MPI_Allreduce of
 *                      4 doubles: the other ranks wait in them. Each rank
 *                      prints the time it measured around those two calls
 *                      (MPI_Wtime) as "rank R step_mpi_ns=N". "exchange":
 *                      rank 0 sends 1000 ints to rank 1 (MPI_Send/MPI_Recv).
 *   mpi_time abort     "doomed": the last rank calls MPI_Abort inside it,
 *                      the others wait in MPI_Barrier until mpirun ends them.
 *   mpi_time cost N    N calls of MPI_Iprobe (one rank), then
 *                      "ns_per_call=X" on stdout. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "td/td.h"
#include "spin.h"

enum { kLateMs = 300 };


static void SleepMs(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void Regions(int rank, int size) {
  double in[4] = {1, 2, 3, (double)rank}, out[4];
  TD_REGION_BEGIN("step");
  Spin(20);
  if (rank == size - 1) SleepMs(kLateMs);
  const double t0 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double t1 = MPI_Wtime();
  TD_REGION_END("step");
  printf("rank %d step_mpi_ns=%.0f\n", rank, (t1 - t0) * 1e9);

  int buffer[1000] = {0};
  TD_REGION_BEGIN("exchange");
  if (rank == 0 && size > 1) MPI_Send(buffer, 1000, MPI_INT, 1, 5, MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(buffer, 1000, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  TD_REGION_END("exchange");
}

static void Abort(int rank, int size) {
  TD_REGION_BEGIN("doomed");
  Spin(5);
  if (rank == size - 1) {
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Barrier(MPI_COMM_WORLD);  /* never returns: mpirun ends the job */
  TD_REGION_END("doomed");
}

static void Cost(long n) {
  int flag = 0;
  MPI_Status status;
  for (long i = 0; i < 1000; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &status);  /* warm */
  const double t0 = MPI_Wtime();
  for (long i = 0; i < n; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &status);
  const double t1 = MPI_Wtime();
  printf("ns_per_call=%.1f\n", (t1 - t0) * 1e9 / (double)n);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "regions";
  if (strcmp(mode, "abort") == 0) {
    Abort(rank, size);
  } else if (strcmp(mode, "cost") == 0) {
    Cost(argc > 2 ? atol(argv[2]) : 100000);
  } else {
    Regions(rank, size);
  }
  MPI_Finalize();
  printf("done\n");
  return 0;
}
