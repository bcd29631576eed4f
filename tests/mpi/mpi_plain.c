/* An MPI program that knows nothing of td: built with mpicc alone, no td
 * header, no td library. `mpirun -np N td run -- ./mpi_plain` must still give
 * one job file (tests/mpi/mpi_job_file.sh, mode td-run-plain): td run
 * preloads libtd-mpi and libtd because the program is linked with libmpi.
 * Each rank checks a sum over the job (so MPI really ran) and prints one line;
 * rank 0 also prints the LD_PRELOAD it was started with, which the test
 * compares with what td run says it preloads. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = rank + 1, total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (total != size * (size + 1) / 2) {
    fprintf(stderr, "rank %d: sum %d, expected %d\n", rank, total, size * (size + 1) / 2);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (rank == 0) {
    const char* preload = getenv("LD_PRELOAD");
    printf("preload=%s\n", preload != NULL ? preload : "");
  }
  printf("rank %d of %d done\n", rank, size);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
