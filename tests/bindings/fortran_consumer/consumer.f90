! Built outside td's tree against an installed td (pkg-config td-fortran, or
! CMake's td::fortran) by tests/bindings/fortran_installed.sh, which checks
! these exact counts in the JSON:
!   outer 1, outer/middle 3, outer/middle/inner 12, outer/loop_body 1000,
!   outer/padded 5 (a blank-padded variable and the literal: one region),
!   outer/dyn0 2 and outer/dyn1 3 (one variable, its contents changed),
!   outer/sweep[1..4] 1, 2, 3, 4 (int16, int32, int64 and default kinds),
!   omp_work: 2 threads, 10 calls each.
program consumer
  use td
  use omp_lib, only: omp_get_thread_num, omp_get_num_threads
  use, intrinsic :: iso_fortran_env, only: int16, int32, int64
  implicit none
  character(len=32) :: padded, dynamic
  integer :: i, j, threads
  integer(int16) :: p16
  integer(int64) :: p64
  real(8) :: total

  total = 0
  call td_init()
  call td_region_sample("loop_body  ", 10)  ! trailing blanks are not part of the name
  if (.not. td_is_active()) error stop "td_is_active() is false after td_init()"
  call td_region_begin("outer")
  do i = 1, 3
    call td_region_begin("middle")
    do j = 1, 4
      call td_region_begin("inner")
      total = total + i * j
      call td_region_end("inner")
    end do
    call td_region_end("middle")
  end do
  do i = 1, 1000
    call td_region_begin("loop_body")
    total = total + sqrt(real(i, 8))
    call td_region_end("loop_body")
  end do
  padded = "padded"
  do i = 1, 5
    if (mod(i, 2) == 0) then
      call td_region_begin(padded)
      call td_region_end("padded")
    else
      call td_region_begin("padded")
      call td_region_end(padded)
    end if
  end do
  do i = 1, 5
    write (dynamic, '(a, i0)') "dyn", mod(i, 2)
    call td_region_begin(dynamic)
    call td_region_end(dynamic)
  end do
  p16 = 1
  call td_region_begin_p("sweep", p16)
  call td_region_end_p("sweep", p16)
  do i = 1, 2
    call td_region_begin_p("sweep", 2_int32)
    call td_region_end_p("sweep", 2_int32)
  end do
  do p64 = 1, 3
    call td_region_begin_p("sweep", 3_int64)
    call td_region_end_p("sweep", 3_int64)
  end do
  do i = 1, 4
    call td_region_begin_p("sweep", 4)
    call td_region_end_p("sweep", 4)
  end do
  call td_region_end("outer")

  threads = 0
  !$omp parallel num_threads(2) private(i) reduction(+:total)
  !$omp single
  threads = omp_get_num_threads()
  !$omp end single
  do i = 1, 10
    call td_region_begin("omp_work")
    total = total + omp_get_thread_num()
    call td_region_end("omp_work")
  end do
  !$omp end parallel
  if (threads /= 2) error stop "the parallel region did not get 2 threads"

  call td_finalize()
  if (td_is_active()) error stop "td_is_active() is true after td_finalize()"
  call td_region_begin("after_finalize")  ! ignored
  call td_region_end("after_finalize")
  print '(a, f0.1)', "consumer: done, checksum ", total
end program consumer
