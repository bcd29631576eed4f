! Cost of a Fortran BEGIN/END pair (module td) next to the C macro pair, in
! one process: R repetitions, each timing N C pairs, N Fortran pairs with a
! literal name and N with a blank-padded character variable, in turn; the
! medians per pair and their ratios are printed. docs/performance.md
! ("Bindings") has the figures and the command.
!
!   td_fortran_pairs [N [R]]     (default N = 20000, R = 15)
program fortran_pairs
  use td
  use, intrinsic :: iso_c_binding, only: c_long_long
  implicit none
  interface
    subroutine c_pairs(n) bind(C, name="td_bench_c_pairs")
      import :: c_long_long
      integer(c_long_long), value :: n
    end subroutine c_pairs
    function now_ns() bind(C, name="td_bench_now_ns")
      import :: c_long_long
      integer(c_long_long) :: now_ns
    end function now_ns
  end interface
  integer(c_long_long) :: n, i, t0
  integer :: r, reps, k
  character(len=32) :: arg, padded
  real(8), allocatable :: c(:), f(:), v(:)

  n = 20000
  reps = 15
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) reps
  end if
  if (n < 1 .or. reps < 1) error stop "usage: td_fortran_pairs [N [R]], both at least 1"
  allocate (c(reps), f(reps), v(reps))
  padded = "f_padded_pair"
  call td_init()
  ! Warm-up: first uses register the names and the thread.
  call c_pairs(100_c_long_long)
  do i = 1, 100
    call td_region_begin("f_pair")
    call td_region_end("f_pair")
    call td_region_begin(padded)
    call td_region_end(padded)
  end do
  do r = 1, reps
    do k = 0, 2
      ! The order rotates, so that no variant always follows the same one.
      select case (mod(r + k, 3))
      case (0)
        t0 = now_ns()
        call c_pairs(n)
        c(r) = real(now_ns() - t0, 8) / n
      case (1)
        t0 = now_ns()
        do i = 1, n
          call td_region_begin("f_pair")
          call td_region_end("f_pair")
        end do
        f(r) = real(now_ns() - t0, 8) / n
      case default
        t0 = now_ns()
        do i = 1, n
          call td_region_begin(padded)
          call td_region_end(padded)
        end do
        v(r) = real(now_ns() - t0, 8) / n
      end select
    end do
  end do
  print '(a, i0, a, i0, a, l1)', "pairs per timing: ", n, ", repetitions: ", reps, ", td active: ", td_is_active()
  print '(a, f10.1, a)', "C macro pair                      ", median(c), " ns"
  print '(a, f10.1, a, f6.3, a)', "Fortran pair, literal name        ", median(f), " ns  (", median(f) / median(c), "x C)"
  print '(a, f10.1, a, f6.3, a)', "Fortran pair, padded variable     ", median(v), " ns  (", median(v) / median(c), "x C)"

contains

  real(8) function median(x)
    real(8), intent(in) :: x(:)
    real(8) :: s(size(x)), t
    integer :: a, b
    s = x
    do a = 2, size(s)  ! insertion sort: a handful of values
      t = s(a)
      b = a - 1
      do while (b >= 1)
        if (s(b) <= t) exit
        s(b + 1) = s(b)
        b = b - 1
      end do
      s(b + 1) = t
    end do
    if (mod(size(s), 2) == 1) then
      median = s((size(s) + 1) / 2)
    else
      median = (s(size(s) / 2) + s(size(s) / 2 + 1)) / 2
    end if
  end function median

end program fortran_pairs
