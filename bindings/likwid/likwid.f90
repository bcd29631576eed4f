! td's own Fortran module `likwid` (docs/compat.md), installed with td-likwid
! in include/td/likwid: a program written for LIKWID's Fortran marker API
! (`use likwid`, `call likwid_markerStartRegion("name")`, …) builds against
! td alone:
!
!     gfortran prog.f90 $(pkg-config --cflags --libs td-likwid)
!
! The module holds interfaces only, so programs link no object of it. Each
! routine is an external procedure of libtd_compat (the likwid_marker*_
! entry points of bindings/likwid/likwid_compat.cc): names arrive
! blank-padded, with their length passed after the last argument as gfortran
! does, and trailing blanks are not part of the name. What each routine means
! in td is in docs/compat.md.
module likwid
  implicit none
  private
  public :: likwid_markerInit, likwid_markerThreadInit, likwid_markerRegisterRegion, &
            likwid_markerStartRegion, likwid_markerStopRegion, likwid_markerGetRegion, &
            likwid_markerResetRegion, likwid_markerNextGroup, likwid_markerClose

  interface
    ! Starts td (td_init); optional, td starts at the first marker.
    subroutine likwid_markerInit()
    end subroutine likwid_markerInit

    ! Nothing to do: td opens each thread's counters at its first marker.
    subroutine likwid_markerThreadInit()
    end subroutine likwid_markerThreadInit

    ! Optional: makes the name known to the calling thread.
    subroutine likwid_markerRegisterRegion(regionTag)
      character(len=*), intent(in) :: regionTag
    end subroutine likwid_markerRegisterRegion

    ! Begins the td region regionTag on the calling thread.
    subroutine likwid_markerStartRegion(regionTag)
      character(len=*), intent(in) :: regionTag
    end subroutine likwid_markerStartRegion

    ! Ends it.
    subroutine likwid_markerStopRegion(regionTag)
      character(len=*), intent(in) :: regionTag
    end subroutine likwid_markerStopRegion

    ! The calling thread's figures for regionTag since its last reset:
    ! nevents in: how many values events holds; out: how many td wrote (its
    ! events, in the order of td's report); time in seconds; count: the
    ! calls that have ended.
    subroutine likwid_markerGetRegion(regionTag, nevents, events, time, count)
      character(len=*), intent(in) :: regionTag
      integer, intent(inout) :: nevents
      double precision, intent(inout) :: events(*)
      double precision, intent(out) :: time
      integer, intent(out) :: count
    end subroutine likwid_markerGetRegion

    ! Zeroes the calling thread's recording of regionTag (and of what ran
    ! inside it): td's report shows it since the reset.
    subroutine likwid_markerResetRegion(regionTag)
      character(len=*), intent(in) :: regionTag
    end subroutine likwid_markerResetRegion

    ! Nothing: td counts one configuration per run.
    subroutine likwid_markerNextGroup()
    end subroutine likwid_markerNextGroup

    ! Writes td's report now (td_finalize); later markers are ignored.
    subroutine likwid_markerClose()
    end subroutine likwid_markerClose
  end interface
end module likwid
