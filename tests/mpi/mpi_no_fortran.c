/* libtd-mpi's Fortran entry points where no Fortran MPI library is loaded
 * (tests/mpi/mpi_time.sh no-fortran): this C program, linked with libmpi and
 * libtd-mpi only, calls mpi_barrier_ and mpi_barrier_f08_ as Fortran would,
 * every argument by reference. libtd-mpi finds no next definition of either,
 * so each must return MPI_ERR_INTERN in its error argument rather than crash,
 * and the f08 one must also return when its optional error argument is left
 * out (NULL). Prints "mpi_barrier_=E mpi_barrier_f08_=E MPI_ERR_INTERN=E". */
#include <mpi.h>
#include <stdio.h>

void mpi_barrier_(MPI_Fint* comm, MPI_Fint* ierr);
void mpi_barrier_f08_(MPI_Fint* comm, MPI_Fint* ierr);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD), plain = MPI_SUCCESS, f08 = MPI_SUCCESS;
  mpi_barrier_(&comm, &plain);
  mpi_barrier_f08_(&comm, &f08);
  mpi_barrier_f08_(&comm, NULL);
  printf("mpi_barrier_=%d mpi_barrier_f08_=%d MPI_ERR_INTERN=%d\n", (int)plain, (int)f08, MPI_ERR_INTERN);
  MPI_Finalize();
  return 0;
}
