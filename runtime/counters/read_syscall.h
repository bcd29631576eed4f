// read(2) as the bare system call, for the markers' read of the software
// group: libc's wrapper adds a cancellation-point check and a call, a
// tenth of what td spends on a marker pair besides the kernel, and makes the
// marker a non-leaf function. Returns what the kernel returns: bytes read,
// or -errno (the callers compare with the size they asked for).
#ifndef TD_RUNTIME_COUNTERS_READ_SYSCALL_H_
#define TD_RUNTIME_COUNTERS_READ_SYSCALL_H_

#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

namespace td {

inline ssize_t ReadSyscall(int fd, void* buffer, size_t bytes) {
#if defined(__x86_64__)
  ssize_t result;
  // The x86-64 syscall ABI: number in rax, arguments in rdi, rsi, rdx; the
  // instruction overwrites rcx and r11.
  asm volatile("syscall"
               : "=a"(result)
               : "0"(static_cast<long>(SYS_read)), "D"(fd), "S"(buffer), "d"(bytes)
               : "rcx", "r11", "memory");
  return result;
#elif defined(__aarch64__)
  // The AArch64 syscall ABI: number in x8, arguments and result in x0..x2.
  register long x0 __asm__("x0") = fd;
  register long x1 __asm__("x1") = reinterpret_cast<long>(buffer);
  register long x2 __asm__("x2") = static_cast<long>(bytes);
  register long x8 __asm__("x8") = SYS_read;
  asm volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x8) : "memory");
  return x0;
#else
  const ssize_t result = read(fd, buffer, bytes);
  return result;
#endif
}

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_READ_SYSCALL_H_
