/* An MPI program with td regions and uneven work, for libtd-mpi's tests
 * (tests/mpi/mpi_job_file.sh) and its cost measurement (docs/hpc.md).
 *   mpi_regions [EXTRA [early]]
 * Per rank r of n: "solve" 3 calls of (1 + 3r) ms of CPU each, with "inner"
 * once inside the first; "halo" 2 calls on ranks > 0 (a ring exchange on
 * MPI_COMM_WORLD with the tag libtd-mpi uses on its own communicator);
 * EXTRA more regions "extra000"… one call each. With "early", rank 1 calls
 * td_finalize() before MPI_Finalize (its own file, written then). Rank 0
 * prints how long its MPI_Finalize took ("finalize_ms=…") on stdout. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "td/td.h"
#include "spin.h"


static double WallMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int extra = argc > 1 ? atoi(argv[1]) : 0;
  const int early = argc > 2 && strcmp(argv[2], "early") == 0;

  for (int call = 0; call < 3; ++call) {
    TD_REGION_BEGIN("solve");
    if (call == 0) {
      TD_REGION_BEGIN("inner");
      Spin(0.2);
      TD_REGION_END("inner");
    }
    /* Steps of 3 ms, so that a later rank still reads as the larger: on a
     * virtual machine, time the host steals counts in task-clock but not in
     * this thread's CPU clock, the likely cause of one run where rank 0's
     * 1 ms per call read as 2. */
    Spin(1.0 + 3.0 * rank);
    TD_REGION_END("solve");
  }
  if (size > 1) {
    for (int call = 0; call < 2; ++call) {
      int out = rank, in = -1;
      if (rank > 0) TD_REGION_BEGIN("halo");
      MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 7415, &in, 1, MPI_INT, (rank + size - 1) % size, 7415,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rank > 0) TD_REGION_END("halo");
      if (in != (rank + size - 1) % size) {
        fprintf(stderr, "rank %d: received %d\n", rank, in);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  }
  for (int i = 0; i < extra; ++i) {
    char name[32];
    snprintf(name, sizeof name, "extra%03d", i);
    td_region_begin_name(name);
    Spin(0.01);
    td_region_end_name(name);
  }
  if (early && rank == 1) td_finalize();
  printf("rank %d of %d done\n", rank, size);
  fflush(stdout);
  const double before = WallMs();
  MPI_Finalize();
  if (rank == 0) printf("finalize_ms=%.3f\n", WallMs() - before);
  return 0;
}
