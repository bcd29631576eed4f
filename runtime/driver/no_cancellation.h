// td's slow paths (start-up, a thread's first marker, finalize) open files
// and write lines, which are cancellation points: a thread cancelled there
// would be unwound half-way through td, with its locks held and its state
// half made. While one of these is alive the calling thread cannot be
// cancelled; a pending cancellation then acts at the thread's own next
// cancellation point, after td is done.
#ifndef TD_RUNTIME_DRIVER_NO_CANCELLATION_H_
#define TD_RUNTIME_DRIVER_NO_CANCELLATION_H_

#include <pthread.h>

namespace td {

class NoCancellation {
 public:
  NoCancellation() { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &before_); }
  ~NoCancellation() { pthread_setcancelstate(before_, nullptr); }
  NoCancellation(const NoCancellation&) = delete;
  NoCancellation& operator=(const NoCancellation&) = delete;

 private:
  int before_ = PTHREAD_CANCEL_ENABLE;
};

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_NO_CANCELLATION_H_
