// How one thread's markers read its counters, in the three forms a thread
// can have (regions/ picks the marker form from which one is set):
//  - one group read with one read() (SoleKernelRead: the software group);
//  - one group of hardware counters read in user space (SoleUserGroup: rdpmc
//    on the pages the kernel keeps, sole_user_read.h);
//  - anything else through the backend's virtual Read.
// Everything here is inline: the marker forms (regions/marker_forms.h) are
// this code plus a frame push or pop, so that their common case makes no
// call. A failed read leaves the snapshot as it was and is counted.
#ifndef TD_RUNTIME_COUNTERS_MARKER_READER_H_
#define TD_RUNTIME_COUNTERS_MARKER_READER_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/counters/backend.h"
#include "runtime/counters/read_syscall.h"
#include "runtime/counters/sole_user_read.h"

namespace td {

class MarkerReader {
 public:
  // Every snapshot buffer Read/ReadSoleGroup may be given has this many
  // words of room after the layout's words (ReadSoleGroup).
  static constexpr size_t kSlackWords = 1;

  // Takes the thread's counters (null: none) and finds which form reads them.
  void Use(std::unique_ptr<ThreadCounters> counters) {
    counters_ = std::move(counters);
    size_t bytes = 0;
    sole_read_fd_ = counters_ != nullptr ? counters_->SoleKernelRead(&bytes) : -1;
    sole_read_bytes_ = static_cast<ssize_t>(bytes);
    sole_read_request_ = sole_read_bytes_ + static_cast<ssize_t>(kSlackWords * sizeof(uint64_t));
    sole_user_ = counters_ != nullptr && sole_read_fd_ < 0 ? counters_->SoleUserGroup() : nullptr;
    general_read_ = counters_ != nullptr;
  }
  // Closes the counters (their descriptors and pages go with them).
  void Release() {
    Forget();
    counters_.reset();
  }
  // Nothing is read any more (the thread keeps no counter words); the
  // counters stay open.
  void Forget() {
    sole_read_fd_ = -1;
    sole_user_ = nullptr;
    general_read_ = false;
  }
  void ResetFailures() { read_failures_ = 0; }

  bool has_counters() const { return counters_ != nullptr; }
  ThreadCounters* counters() const { return counters_.get(); }
  // The software form is set: one group, one read().
  bool sole_kernel_read() const { return sole_read_fd_ >= 0; }
  // The user-read form's group; null when that form is not set.
  SoleUserRead* sole_user() const { return sole_user_; }
  uint64_t failures() const { return read_failures_; }

  // The software form's read. It asks for one word more than the group's
  // block (kSlackWords: the buffer has room for it): the kernel gives a
  // group exactly its block, while a file the program opened on a number
  // that was td's gives every byte asked for. So the one size check that
  // was there anyway also catches a reused descriptor, at no cost.
  // False when the read went wrong: the caller then calls SoleReadFailed()
  // (the marker forms as a tail call, so that the common case keeps nothing
  // across a call and needs no stack frame).
  __attribute__((always_inline)) bool ReadSoleGroup(uint64_t* snapshot) {
    const ssize_t got = ReadSyscall(sole_read_fd_, snapshot, sole_read_request_);
    if (__builtin_expect(got == sole_read_bytes_, 1)) return true;
    failed_read_ = got;
    return false;
  }
  // After ReadSoleGroup failed: counted, and a descriptor the program took
  // is given up (reads of -1 fail from then on, touching nothing of the
  // program's).
  __attribute__((noinline, cold)) void SoleReadFailed() {
    ++read_failures_;
    if (counters_ != nullptr && sole_read_fd_ >= 0 && counters_->SoleDescriptorLost(failed_read_)) sole_read_fd_ = -1;
  }
  // The user-read form's read of the whole group. Where the copied pages
  // cannot serve (a page forbids a user read now, or the kernel updated one
  // meanwhile), the group reader retries or read()s.
  __attribute__((always_inline)) void ReadSoleUserInline(uint64_t* snapshot) {
    if (__builtin_expect(ReadSoleUserGroup(*sole_user_, snapshot), 1)) return;
    if (!counters_->Read(snapshot)) ++read_failures_;
  }
  __attribute__((noinline)) void ReadSoleUser(uint64_t* snapshot) { ReadSoleUserInline(snapshot); }
  // The user-read form's members only (kMembers of them, the group's block at
  // kGroupWord or read from the group when -1), for forms made for one group
  // size. False: the copied pages could not serve; nothing was counted.
  template <bool kFake, uint32_t kMembers, int kGroupWord>
  __attribute__((always_inline)) bool ReadSoleUserMembersInline(uint64_t* snapshot) {
    return ReadSoleUserMembers<kFake, kMembers, kGroupWord>(*sole_user_, snapshot);
  }
  // END's read added straight to a node: `to` += now - `start`. kMembers 0:
  // any group size. False: the copied pages could not serve and `to` is
  // untouched; the caller reads a snapshot the slow way.
  template <uint32_t kMembers, bool kFake, int kGroupWord>
  __attribute__((always_inline)) bool AddSoleUserDeltas(const uint64_t* start, uint64_t* to) {
    if constexpr (kMembers == 0) {
      return AddSoleUserGroupDeltas(*sole_user_, start, to);
    } else {
      return AddSoleUserMemberDeltas<kFake, kMembers, kGroupWord>(*sole_user_, start, to);
    }
  }
  // Whichever form is set, else the backend's Read; nothing without counters
  // or after Forget.
  void Read(uint64_t* snapshot) {
    if (sole_read_fd_ >= 0) {
      if (!ReadSoleGroup(snapshot)) SoleReadFailed();
    } else if (sole_user_ != nullptr) {
      ReadSoleUser(snapshot);
    } else if (general_read_ && !counters_->Read(snapshot)) {
      ++read_failures_;
    }
  }
  // Another thread's counters, read by finalize through the kernel (a user
  // read would read the calling CPU's counters). False when it cannot.
  bool ReadFromAnotherThread(uint64_t* snapshot) {
    return counters_ != nullptr && counters_->ReadFromAnotherThread(snapshot);
  }

 private:
  std::unique_ptr<ThreadCounters> counters_;
  int sole_read_fd_ = -1;  // ThreadCounters::SoleKernelRead
  ssize_t sole_read_bytes_ = 0;
  ssize_t sole_read_request_ = 0;
  ssize_t failed_read_ = 0;  // what the last failed ReadSoleGroup got
  SoleUserRead* sole_user_ = nullptr;  // ThreadCounters::SoleUserGroup
  bool general_read_ = false;          // counters_ set and not forgotten
  uint64_t read_failures_ = 0;
};

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_MARKER_READER_H_
