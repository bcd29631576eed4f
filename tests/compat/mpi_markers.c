/* An MPI program instrumented for LIKWID's marker API and PAPI's high-level
 * API, built with mpicc against the real liblikwid and libpapi and run as a
 * job of two ranks with libtd_compat preloaded into each (compat_test.sh mpi):
 * every rank writes its own td JSON. Rank r computes r + 2 times (a LIKWID
 * region); both ranks exchange twice (a LIKWID region holding a PAPI region
 * around MPI_Allreduce). */
#include <likwid-marker.h>
#include <mpi.h>
#include <papi.h>
#include <stdio.h>

static volatile double sink;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  LIKWID_MARKER_INIT;
  double local = 0;
  for (int i = 0; i < rank + 2; ++i) {
    LIKWID_MARKER_START("compute");
    for (int k = 0; k < 100000; ++k) local += k * 1e-6;
    LIKWID_MARKER_STOP("compute");
  }
  for (int i = 0; i < 2; ++i) {
    LIKWID_MARKER_START("exchange");
    double sum = 0;
    PAPI_hl_region_begin("allreduce");
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    PAPI_hl_region_end("allreduce");
    sink = sum;
    LIKWID_MARKER_STOP("exchange");
  }
  LIKWID_MARKER_CLOSE;
  printf("rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}
