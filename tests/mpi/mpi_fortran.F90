! An MPI program in Fortran with td regions (module td), for libtd-mpi's
! Fortran entry points (tests/mpi/mpi_fortran.sh). Built with mpifort, with
! `use mpi` (MPI_INIT, MPI_FINALIZE: mpi_init_, mpi_finalize_), or with
! -DTD_TEST_F08 with `use mpi_f08` (mpi_init_f08_, mpi_finalize_f08_).
!   mpi_fortran [thread]   thread: MPI_Init_thread instead of MPI_Init
!   mpi_fortran cost N     one rank: N calls of MPI_Iprobe (no message
!                          waiting), then "ns_per_call=X" on stdout
! Per rank r of n: "compute" r + 2 calls, each with "step" twice inside (the
! calls differ per rank, so a row that went to the wrong rank shows);
! "exchange" once: an MPI_Sendrecv of 2 integers to the next rank and 2 from
! the one before, an MPI_Allgather in place (1 integer per rank) and an MPI_Barrier (3 timed
! calls, 16 + 4 bytes); "reduce" once: rank 0 sleeps 100 ms, then every rank
! makes one MPI_Allreduce of 1 integer, whose sum it checks (the others wait
! for rank 0 inside it).
program mpi_fortran
#ifdef TD_TEST_F08
  use mpi_f08
#else
  use mpi
#endif
  use td
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function usleep(microseconds) bind(C, name="usleep")
      import :: c_int
      integer(c_int), value :: microseconds
    end function usleep
  end interface
  integer :: ierr, rank, size, provided, i, j, mine, total, peer
  integer :: sent(2), got(2), ranks(64), n
  logical :: flag
  real(8) :: t0
  character(len=16) :: how
  real(8) :: x

  how = ""
  if (command_argument_count() > 0) call get_command_argument(1, how)
  if (how == "thread") then
    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  else
    call MPI_Init(ierr)
  end if
  if (ierr /= MPI_SUCCESS) error stop "MPI_Init failed"
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

  if (how == "cost") then
    call get_command_argument(2, how)
    read (how, *) n
    t0 = MPI_Wtime()
    do i = 1, n
      call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
    end do
    print '(a, f0.1)', "ns_per_call=", (MPI_Wtime() - t0) * 1d9 / n
    call MPI_Finalize(ierr)
    stop
  end if

  x = 0
  do i = 1, rank + 2
    call td_region_begin("compute")
    do j = 1, 2
      call td_region_begin("step")
      x = x + sqrt(real(i * j, 8))
      call td_region_end("step")
    end do
    call td_region_end("compute")
  end do

  peer = mod(rank + 1, size)
  sent = [rank, rank * 10]
  ranks = -1
  ranks(rank + 1) = rank
  call td_region_begin("exchange")
  call MPI_Sendrecv(sent, 2, MPI_INTEGER, peer, 1, got, 2, MPI_INTEGER, mod(rank + size - 1, size), 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ranks, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call td_region_end("exchange")
  if (got(1) /= mod(rank + size - 1, size)) error stop "MPI_Sendrecv: wrong data"
  if (any(ranks(1:size) /= [(i, i = 0, size - 1)])) error stop "MPI_Allgather: wrong data"

  mine = rank + 1
  call td_region_begin("reduce")
  if (rank == 0) then
    if (usleep(100000) /= 0) error stop "usleep failed"
  end if
  call MPI_Allreduce(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call td_region_end("reduce")
  if (total /= size * (size + 1) / 2) error stop "MPI_Allreduce: wrong sum"

  print '(a, i0, a, i0, a, f0.3, a)', "rank ", rank, " of ", size, " (", x, ") done"
  call MPI_Finalize(ierr)
  if (ierr /= MPI_SUCCESS) error stop "MPI_Finalize failed"
end program mpi_fortran
