! td — per-region Top-Down analysis, from Fortran.
!
!   use td
!   call td_region_begin("multiply")
!   ...
!   call td_region_end("multiply")
!
! Names are character(len=*); trailing blanks are not part of the name, so a
! character variable padded with blanks names the same region as its trimmed
! value. A repeated call with the same string costs no hashing of its
! characters: each thread caches the region per string address and length
! (td_fortran.cc). td_region_begin_p/td_region_end_p take an integer of any
! kind and make one region per value, named "name[value]". Link with
! td-fortran (pkg-config) or td::fortran (CMake). Every routine is safe to call
! from any thread, OpenMP parallel regions included: each thread has its own
! regions in the report.
module td
  use, intrinsic :: iso_c_binding, only: c_char, c_size_t, c_long_long, c_int
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64
  implicit none
  private

  public :: td_region_begin, td_region_end, td_region_begin_p, td_region_end_p
  public :: td_init, td_finalize, td_is_active, td_region_sample

  ! One region per value of an integer parameter (a sweep), any integer kind.
  interface td_region_begin_p
    module procedure td_region_begin_p_int8, td_region_begin_p_int16, &
                     td_region_begin_p_int32, td_region_begin_p_int64
  end interface td_region_begin_p
  interface td_region_end_p
    module procedure td_region_end_p_int8, td_region_end_p_int16, &
                     td_region_end_p_int32, td_region_end_p_int64
  end interface td_region_end_p

  interface
    subroutine c_begin(name, length) bind(C, name="td_fortran_region_begin")
      import :: c_char, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
    end subroutine c_begin
    subroutine c_end(name, length) bind(C, name="td_fortran_region_end")
      import :: c_char, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
    end subroutine c_end
    subroutine c_begin_p(name, length, parameter) bind(C, name="td_fortran_region_begin_p")
      import :: c_char, c_size_t, c_long_long
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
      integer(c_long_long), value :: parameter
    end subroutine c_begin_p
    subroutine c_end_p(name, length, parameter) bind(C, name="td_fortran_region_end_p")
      import :: c_char, c_size_t, c_long_long
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
      integer(c_long_long), value :: parameter
    end subroutine c_end_p
    subroutine c_sample(name, length, every) bind(C, name="td_fortran_region_sample")
      import :: c_char, c_size_t, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
      integer(c_int), value :: every
    end subroutine c_sample
    subroutine c_init() bind(C, name="td_init")
    end subroutine c_init
    subroutine c_finalize() bind(C, name="td_finalize")
    end subroutine c_finalize
    function c_is_active() bind(C, name="td_is_active")
      import :: c_int
      integer(c_int) :: c_is_active
    end function c_is_active
  end interface

contains

  subroutine td_region_begin(name)
    character(len=*), intent(in) :: name
    call c_begin(name, int(len(name), c_size_t))
  end subroutine td_region_begin

  subroutine td_region_end(name)
    character(len=*), intent(in) :: name
    call c_end(name, int(len(name), c_size_t))
  end subroutine td_region_end

  subroutine td_region_begin_p_int8(name, parameter)
    character(len=*), intent(in) :: name
    integer(int8), intent(in) :: parameter
    call c_begin_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_begin_p_int8

  subroutine td_region_begin_p_int16(name, parameter)
    character(len=*), intent(in) :: name
    integer(int16), intent(in) :: parameter
    call c_begin_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_begin_p_int16

  subroutine td_region_begin_p_int32(name, parameter)
    character(len=*), intent(in) :: name
    integer(int32), intent(in) :: parameter
    call c_begin_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_begin_p_int32

  subroutine td_region_begin_p_int64(name, parameter)
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: parameter
    call c_begin_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_begin_p_int64

  subroutine td_region_end_p_int8(name, parameter)
    character(len=*), intent(in) :: name
    integer(int8), intent(in) :: parameter
    call c_end_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_end_p_int8

  subroutine td_region_end_p_int16(name, parameter)
    character(len=*), intent(in) :: name
    integer(int16), intent(in) :: parameter
    call c_end_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_end_p_int16

  subroutine td_region_end_p_int32(name, parameter)
    character(len=*), intent(in) :: name
    integer(int32), intent(in) :: parameter
    call c_end_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_end_p_int32

  subroutine td_region_end_p_int64(name, parameter)
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: parameter
    call c_end_p(name, int(len(name), c_size_t), int(parameter, c_long_long))
  end subroutine td_region_end_p_int64

  ! Hot, tiny regions: counters and clock read on one call in `every` of
  ! region `name` on each thread, every call counted, the rest scaled (as
  ! TD_SAMPLE=every for all regions). Call it before the region is first
  ! entered; later it is ignored with one warning.
  subroutine td_region_sample(name, every)
    character(len=*), intent(in) :: name
    integer, intent(in) :: every
    call c_sample(name, int(len(name), c_size_t), int(every, c_int))
  end subroutine td_region_sample

  ! Optional: td starts itself at the first marker.
  subroutine td_init()
    call c_init()
  end subroutine td_init

  ! Writes the reports now (otherwise at normal program end); later markers
  ! are ignored. Call it outside parallel regions.
  subroutine td_finalize()
    call c_finalize()
  end subroutine td_finalize

  ! .true. while markers are recorded: not disabled (TD_DISABLE=1), not finalized.
  logical function td_is_active()
    td_is_active = c_is_active() /= 0
  end function td_is_active

end module td
