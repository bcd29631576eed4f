! PAPI's high-level API from Fortran (PAPIf_hl_*, fpapi.h's interface), as
! PAPI documents it: nested regions, a blank-padded name, a reading, an end
! without a begin, stop. Built against the real libpapi; run preloaded.
program papi_fortran
  implicit none
  integer :: i, check
  character(len=12) :: name
  name = "padded"
  do i = 1, 2
    call PAPIf_hl_region_begin("outer", check)
    call PAPIf_hl_region_begin(name, check)
    call PAPIf_hl_read(name, check)
    call PAPIf_hl_region_end(name, check)
    call PAPIf_hl_region_end("outer", check)
  end do
  call PAPIf_hl_region_end("never", check)
  print '(a,i0)', 'rc: end never ', check
  call PAPIf_hl_stop(check)
  print '(a,i0)', 'rc: stop ', check
  print '(a)', 'papi_fortran done'
end program papi_fortran
