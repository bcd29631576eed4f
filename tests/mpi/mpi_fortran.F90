! An MPI program in Fortran with td regions (module td), for libtd-mpi's
! Fortran entry points (tests/mpi/mpi_fortran.sh). Built with mpifort, with
! `use mpi` (MPI_INIT, MPI_FINALIZE: mpi_init_, mpi_finalize_), or with
! -DTD_TEST_F08 with `use mpi_f08` (mpi_init_f08_, mpi_finalize_f08_).
!   mpi_fortran [thread]   thread: MPI_Init_thread instead of MPI_Init
! Per rank r of n: "compute" r + 2 calls, each with "step" twice inside (the
! calls differ per rank, so a row that went to the wrong rank shows), and
! "reduce" once around an MPI_Allreduce whose sum every rank checks.
program mpi_fortran
#ifdef TD_TEST_F08
  use mpi_f08
#else
  use mpi
#endif
  use td
  implicit none
  integer :: ierr, rank, size, provided, i, j, mine, total
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

  mine = rank + 1
  call td_region_begin("reduce")
  call MPI_Allreduce(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call td_region_end("reduce")
  if (total /= size * (size + 1) / 2) error stop "MPI_Allreduce: wrong sum"

  print '(a, i0, a, i0, a, f0.3, a)', "rank ", rank, " of ", size, " (", x, ") done"
  call MPI_Finalize(ierr)
  if (ierr /= MPI_SUCCESS) error stop "MPI_Finalize failed"
end program mpi_fortran
