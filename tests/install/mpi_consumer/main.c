/* An MPI program with a td region, built outside td's tree against an
 * installed td by tests/install/install_mpi.sh: with pkg-config td-mpi, with
 * CMake's td::mpi, and with pkg-config td alone for `td run`. Rank r calls
 * "consumer_work" r + 3 times (the test expects exactly that per rank in the
 * job file), then the ranks check a sum over the job. */
#include <mpi.h>
#include <stdio.h>
#include <td/td.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  volatile long work = 0;
  for (int i = 0; i < rank + 3; ++i) {
    TD_REGION_BEGIN("consumer_work");
    for (int j = 0; j < 1000; ++j) work += j;
    TD_REGION_END("consumer_work");
  }
  int mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d done\n", rank, size);
  MPI_Finalize();
  return sum == size * (size + 1) / 2 && work == (rank + 3) * 499500L ? 0 : 1;
}
