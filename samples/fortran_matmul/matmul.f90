! C = A × B in Fortran, each loop order in its own td region: the lesson of
! samples/matmul in column-major storage, where a(i, j) and a(i+1, j) are
! neighbours in memory. The C sample's "naive" and "interchanged" orders swap
! roles here:
!   multiply_ijk  C's naive order (multiply1): the inner k loop walks a(i, k)
!                 along a row, n elements apart, and b(k, j) down a column
!   multiply_ikj  C's interchanged order (multiply2): the inner j loop walks
!                 c(i, j) and b(k, j) along rows, both n elements apart
!   multiply_jki  the interchange that suits column-major arrays: the inner i
!                 loop walks c(i, j) and a(i, k) down columns, unit stride
!   multiply_intrinsic  the compiler's matmul()
!
!   td_fortran_matmul [N]      (default N = 1000; 1024 takes ~25 s here, as
!                               multiply_ikj's two row walks then also fight
!                               over the same cache sets)
program fortran_matmul
  use td
  implicit none
  integer :: n, i, status
  character(len=32) :: arg
  real(8), allocatable :: a(:, :), b(:, :), c(:, :, :)
  real(8) :: seconds(4), difference
  character(len=*), parameter :: names(4) = [character(len=18) :: "multiply_ijk", "multiply_ikj", &
                                                                   "multiply_jki", "multiply_intrinsic"]

  n = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=status) n
    if (status /= 0) n = 0
  end if
  if (n < 1 .or. n > 8192) then
    write (0, '(a)') "usage: td_fortran_matmul [N]  (1 <= N <= 8192)"
    stop 2
  end if
  allocate (a(n, n), b(n, n), c(n, n, 4), stat=status)
  if (status /= 0) then
    write (0, '(a, i0)') "out of memory for N=", n
    stop 1
  end if

  call td_region_begin("matmul")
  call td_region_begin("init")
  do i = 1, n * n
    ! The same values as the C sample's a[i] and b[i], stored column by column.
    a(mod(i - 1, n) + 1, (i - 1) / n + 1) = real(mod(i - 1, 7), 8) - 3
    b(mod(i - 1, n) + 1, (i - 1) / n + 1) = real(mod(i - 1, 5), 8) * 0.5d0
  end do
  call td_region_end("init")
  do i = 1, 4
    ! Names as blank-padded array elements: trailing blanks are not part of a
    ! td name, so this is the region "multiply_ijk", not "multiply_ijk      ".
    seconds(i) = timed(i)
  end do
  call td_region_end("matmul")

  difference = max(maxval(abs(c(:, :, 1) - c(:, :, 2))), maxval(abs(c(:, :, 1) - c(:, :, 3))), &
                   maxval(abs(c(:, :, 1) - c(:, :, 4))))
  print '(a, i0, a)', "fortran matmul N=", n, ":"
  do i = 1, 4
    print '(2x, a18, f8.3, a, f6.2, a)', names(i), seconds(i), " s (", seconds(1) / seconds(i), "x multiply_ijk)"
  end do
  print '(a, a, a, es9.2, a)', "results agree: ", merge("yes", "NO ", difference <= 1d-9 * n), &
    " (max difference ", difference, ")"
  if (difference > 1d-9 * n) stop 1

contains

  real(8) function timed(version)
    integer, intent(in) :: version
    integer(8) :: start, finish, rate
    call system_clock(start, rate)
    call td_region_begin(names(version))
    select case (version)
    case (1)
      call multiply_ijk(a, b, c(:, :, 1))
    case (2)
      call multiply_ikj(a, b, c(:, :, 2))
    case (3)
      call multiply_jki(a, b, c(:, :, 3))
    case default
      c(:, :, 4) = matmul(a, b)
    end select
    call td_region_end(names(version))
    call system_clock(finish)
    timed = real(finish - start, 8) / real(rate, 8)
  end function timed

  subroutine multiply_ijk(a, b, c)
    real(8), intent(in) :: a(:, :), b(:, :)
    real(8), intent(out) :: c(:, :)
    integer :: i, j, k
    real(8) :: s
    do i = 1, size(a, 1)
      do j = 1, size(b, 2)
        s = 0
        do k = 1, size(a, 2)
          s = s + a(i, k) * b(k, j)  ! a along a row: stride n
        end do
        c(i, j) = s
      end do
    end do
  end subroutine multiply_ijk

  subroutine multiply_ikj(a, b, c)
    real(8), intent(in) :: a(:, :), b(:, :)
    real(8), intent(out) :: c(:, :)
    integer :: i, j, k
    real(8) :: aik
    c = 0
    do i = 1, size(a, 1)
      do k = 1, size(a, 2)
        aik = a(i, k)
        do j = 1, size(b, 2)
          c(i, j) = c(i, j) + aik * b(k, j)  ! c and b along rows: stride n
        end do
      end do
    end do
  end subroutine multiply_ikj

  subroutine multiply_jki(a, b, c)
    real(8), intent(in) :: a(:, :), b(:, :)
    real(8), intent(out) :: c(:, :)
    integer :: i, j, k
    real(8) :: bkj
    c = 0
    do j = 1, size(b, 2)
      do k = 1, size(a, 2)
        bkj = b(k, j)
        do i = 1, size(a, 1)
          c(i, j) = c(i, j) + a(i, k) * bkj  ! c and a down columns: unit stride
        end do
      end do
    end do
  end subroutine multiply_jki

end program fortran_matmul
