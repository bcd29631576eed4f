// td — C++ conveniences on top of td.h.
//
//   void step() {
//     TD_SCOPE("step");   // ends when the scope exits, also by exception
//     ...
//   }
#ifndef TD_TD_HPP_
#define TD_TD_HPP_

#include "td/td.h"

namespace td {

// Ends the region it began when destroyed. Not copyable or movable, so a
// region can only end where it began.
class ScopedRegion {
 public:
  explicit ScopedRegion(td_site* site) noexcept : site_(site) {
    if (TD_MARKERS_ON_()) td_region_begin(site_);
  }
  // A parameterised region (see td_region_begin_p): one row per value.
  ScopedRegion(td_site* site, long long parameter) noexcept
      : site_(site), parameter_(parameter), has_parameter_(true) {
    if (TD_MARKERS_ON_()) td_region_begin_p(site_, parameter_);
  }
  ~ScopedRegion() {
    if (!TD_MARKERS_ON_()) return;
    if (has_parameter_) {
      td_region_end_p(site_, parameter_);
    } else {
      td_region_end(site_);
    }
  }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;

 private:
  td_site* site_;
  long long parameter_ = 0;
  bool has_parameter_ = false;
};

}  // namespace td

#define TD_CONCAT_INNER_(a, b) a##b
#define TD_CONCAT_(a, b) TD_CONCAT_INNER_(a, b)

#if defined(TD_NO_INSTRUMENTATION)
#define TD_SCOPE(name) ((void)0)
#define TD_SCOPE_P(name, parameter) ((void)0)
#else
#define TD_SCOPE(name)                                                          \
  static td_site TD_CONCAT_(td_scope_site_, __LINE__) = TD_SITE_INIT_(name);    \
  ::td::ScopedRegion TD_CONCAT_(td_scope_, __LINE__)(&TD_CONCAT_(td_scope_site_, __LINE__))
#define TD_SCOPE_P(name, parameter)                                                \
  static td_site TD_CONCAT_(td_scope_site_, __LINE__) = TD_SITE_INIT_(name);       \
  ::td::ScopedRegion TD_CONCAT_(td_scope_, __LINE__)(&TD_CONCAT_(td_scope_site_, __LINE__), \
                                                     (long long)(parameter))
#endif

#endif  // TD_TD_HPP_
