/* libtd-mpi's Fortran entry points under each name Open MPI's libmpi_mpifh
 * exports (tests/mpi/mpi_time.sh fortran-names): this C program, linked
 * with libtd-mpi before libmpi_mpifh, calls MPI_Send and MPI_Recv the way
 * a Fortran compiler's code would, every argument an MPI_Fint by reference,
 * through one spelling per region:
 *   "gfortran"  mpi_send_ / mpi_recv_     1 int
 *   "plain"     mpi_send / mpi_recv       2 ints
 *   "f2c"       mpi_send__ / mpi_recv__   3 ints
 *   "upper"     MPI_SEND / MPI_RECV       4 ints
 * Rank 0 sends, rank 1 receives; each region holds one call on each rank
 * with 4 × its ints in bytes. MPI is started with MPI_INIT and ended with
 * mpi_finalize__ (libtd-mpi must take both over for the ranks to write one
 * job file). Each call's error argument must come back MPI_SUCCESS:
 * "rank R ierr=0 0 0 0 0 0" on stdout (init, the four calls, finalize). */
#include <mpi.h>
#include <stdio.h>

#include "td/td.h"

typedef void Send(void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag, MPI_Fint* comm,
                  MPI_Fint* ierr);
typedef void Recv(void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* source, MPI_Fint* tag, MPI_Fint* comm,
                  MPI_Fint* status, MPI_Fint* ierr);
Send mpi_send_, mpi_send, mpi_send__, MPI_SEND;
Recv mpi_recv_, mpi_recv, mpi_recv__, MPI_RECV;
void MPI_INIT(MPI_Fint* ierr);
void mpi_finalize__(MPI_Fint* ierr);

static const struct {
  const char* region;
  Send* send;
  Recv* recv;
} kNames[] = {{"gfortran", mpi_send_, mpi_recv_},
              {"plain", mpi_send, mpi_recv},
              {"f2c", mpi_send__, mpi_recv__},
              {"upper", MPI_SEND, MPI_RECV}};
enum { kNamesCount = sizeof kNames / sizeof kNames[0] };

int main(void) {
  MPI_Fint init = -1, finalize = -1;
  MPI_INIT(&init);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD), type = MPI_Type_c2f(MPI_INT), tag = 7;
  MPI_Fint ierr[kNamesCount];
  int buffer[kNamesCount] = {0};
  MPI_Fint status[16];  /* Fortran's MPI_STATUS_SIZE is at most this */
  for (int i = 0; i < kNamesCount; ++i) {
    MPI_Fint count = i + 1, peer = 1 - rank;
    ierr[i] = -1;
    td_region_begin_name(kNames[i].region);
    if (rank == 0) kNames[i].send(buffer, &count, &type, &peer, &tag, &comm, &ierr[i]);
    if (rank == 1) kNames[i].recv(buffer, &count, &type, &peer, &tag, &comm, status, &ierr[i]);
    td_region_end_name(kNames[i].region);
  }
  mpi_finalize__(&finalize);
  printf("rank %d ierr=%d %d %d %d %d %d\n", rank, (int)init, (int)ierr[0], (int)ierr[1], (int)ierr[2], (int)ierr[3],
         (int)finalize);
  return 0;
}
