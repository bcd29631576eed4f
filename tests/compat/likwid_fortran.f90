! LIKWID's marker API from Fortran (LIKWID's module `likwid`), as LIKWID
! documents it: literal names and a blank-padded character variable, GET,
! RESET.
! Built against the real liblikwid; run preloaded (compat_test.sh).
program likwid_fortran
  use likwid
  implicit none
  integer :: i, nevents, count
  double precision :: events(4), time
  character(len=32) :: text
  character(len=16) :: name
  call likwid_markerInit()
  call likwid_markerThreadInit()
  call likwid_markerRegisterRegion("loop")
  name = "padded"
  do i = 1, 3
    call likwid_markerStartRegion("loop")
    call likwid_markerStartRegion(name)
    call likwid_markerStopRegion(name)
    call likwid_markerStopRegion("loop")
  end do
  nevents = 4
  call likwid_markerGetRegion("loop", nevents, events, time, count)
  print '(a,i0)', 'get: count=', count
  call likwid_markerResetRegion("loop")
  nevents = 4
  call likwid_markerGetRegion("loop", nevents, events, time, count)
  print '(a,i0)', 'get: after reset count=', count
  call likwid_markerStartRegion("loop")
  call likwid_markerStartRegion(name)
  call likwid_markerStopRegion(name)
  call likwid_markerStopRegion("loop")
  nevents = 4
  call likwid_markerGetRegion("loop", nevents, events, time, count)
  write (text, '(es25.17e3)') time
  write (*, '(a,i0,a,i0,2a)', advance='no') 'getv: path=loop cap=4 count=', count, &
      ' nevents=', nevents, ' time=', trim(adjustl(text))
  write (*, '(a)', advance='no') ' events='
  do i = 1, nevents
    if (i > 1) write (*, '(a)', advance='no') ','
    write (*, '(f0.0)', advance='no') events(i)
  end do
  write (*, '(a)') ''
  call likwid_markerClose()
  print '(a)', 'likwid_fortran done'
end program likwid_fortran
