! A Fortran program instrumented for LIKWID's marker API the way LIKWID's
! documentation shows it (`use likwid`, likwid_markerInit, likwid_markerThreadInit
! in each OpenMP thread, regions in parallel and serial code, GET, RESET,
! likwid_markerClose), built against td alone: td's module `likwid` and
! libtd_compat through pkg-config td-likwid, no LIKWID on the command line
! (compat_test.sh td-likwid-fortran). "get:" lines are compared as they are,
! "getv:" lines with td's JSON.
program likwid_fortran_linked
  use likwid
  implicit none
  integer :: i, nevents, count
  double precision :: events(8), time
  character(len=32) :: text
  call likwid_markerInit()
!$omp parallel
  call likwid_markerThreadInit()
!$omp end parallel

!$omp parallel private(i)
  do i = 1, 3
    call likwid_markerStartRegion("pwork")
    call likwid_markerStopRegion("pwork")
  end do
!$omp end parallel

  call likwid_markerRegisterRegion("serial")
  do i = 1, 4
    call likwid_markerStartRegion("serial")
    call likwid_markerStartRegion("inner")
    call likwid_markerStopRegion("inner")
    call likwid_markerStopRegion("serial")
  end do
  nevents = 8
  call likwid_markerGetRegion("serial", nevents, events, time, count)
  print '(a,i0,a,l1)', 'get: serial count=', count, ' time_positive=', time > 0

  call likwid_markerResetRegion("inner")
  nevents = 8
  call likwid_markerGetRegion("inner", nevents, events, time, count)
  print '(a,i0)', 'get: inner after reset count=', count
  call likwid_markerStartRegion("serial")
  call likwid_markerStartRegion("inner")
  call likwid_markerStopRegion("inner")
  call likwid_markerStopRegion("serial")
  nevents = 8
  call likwid_markerGetRegion("inner", nevents, events, time, count)
  print '(a,i0)', 'get: inner count=', count

  nevents = 8
  call likwid_markerGetRegion("serial", nevents, events, time, count)
  write (text, '(es25.17e3)') time
  write (*, '(a,i0,a,i0,2a)', advance='no') 'getv: path=serial cap=8 count=', count, &
      ' nevents=', nevents, ' time=', trim(adjustl(text))
  write (*, '(a)', advance='no') ' events='
  do i = 1, nevents
    if (i > 1) write (*, '(a)', advance='no') ','
    write (*, '(f0.0)', advance='no') events(i)
  end do
  write (*, '(a)') ''
  call likwid_markerClose()
  print '(a)', 'likwid_fortran_linked done'
end program likwid_fortran_linked
