// MPI time per region for Fortran programs (docs/hpc.md#mpi-time-per-region).
// Open MPI's Fortran bindings call the PMPI_ C functions themselves, so a
// Fortran program's MPI calls never reach the C wrappers of mpi_calls.cc.
// libtd-mpi therefore also defines the Fortran entry points of the same
// calls, in the two spellings gfortran uses: mpi_send_ (mpif.h and
// `use mpi`; Open MPI's libmpi_mpifh) and mpi_send_f08_ (`use mpi_f08`;
// libmpi_usempif08, whose routines call libmpi_mpifh's ompi_send_f, not
// mpi_send_, so one call is counted once); and in the three other spellings
// libmpi_mpifh exports for other compilers' name mangling: mpi_send (no
// underscore), mpi_send__ (g77/f2c: two, for a name that has one) and
// MPI_SEND (upper case). Each of Open MPI's is an alias of the same routine,
// which calls PMPI_Send, so a call through any of them is counted once.
//
// Each one times the next definition of its own name (dlsym(RTLD_NEXT):
// Open MPI's, which converts the Fortran arguments) between td_mpi_now()
// and td_mpi_account(), with the bytes mpi_bytes.h counts for the C call.
// Fortran passes every argument by reference (f08's handle types are one
// integer, passed the same way), so each is an address here, passed on
// unchanged; none of these calls has a character argument, hence no hidden
// lengths. f08's error argument is optional: null when left out. An entry
// point's first call looks up the next definition (dlsym); after it nothing
// here locks or allocates.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>

#include "bindings/mpi/mpi_bytes.h"
#include "runtime/driver/mpi_api.h"

namespace {

using namespace td_mpi_bytes;

// Every argument: an address (a buffer is passed on, or compared with
// MPI_IN_PLACE, never read).
using F = MPI_Fint*;

MPI_Datatype Type(F type) { return PMPI_Type_f2c(*type); }
MPI_Comm Comm(F comm) { return PMPI_Comm_f2c(*comm); }

// Fortran's MPI_IN_PLACE is the address of a variable of Open MPI's (a
// common block of gfortran's name), the same for mpif.h, `use mpi` and
// `use mpi_f08`.
bool InPlace(F buf) {
  static void* const in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
  return buf != nullptr && buf == in_place;
}

// No next definition (no Fortran MPI library after libtd-mpi): the call
// fails as an MPI call does, without reaching MPI.
void Missing(F ierr) {
  if (ierr != nullptr) *ierr = MPI_ERR_INTERN;
}

// `next(args...)` timed and accounted with `bytes`, worked out before it.
template <typename Next, typename... Args>
inline void Timed(uint64_t bytes, Next next, Args... args) {
  const long long start = td_mpi_now();
  next(args...);
  td_mpi_account(start, bytes);
}

}  // namespace

// TD_F_PARAMS(a, b, …) is `F a, F b, …` (up to 13 arguments, the most a
// wrapped call has: MPI_Sendrecv).
#define TD_F_NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, n, ...) n
#define TD_F_COUNT(...) TD_F_NTH(__VA_ARGS__, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TD_F_JOIN(a, b) TD_F_JOIN_(a, b)
#define TD_F_JOIN_(a, b) a##b
#define TD_F_PARAMS(...) TD_F_JOIN(TD_F_P, TD_F_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define TD_F_P1(a) F a
#define TD_F_P2(a, ...) F a, TD_F_P1(__VA_ARGS__)
#define TD_F_P3(a, ...) F a, TD_F_P2(__VA_ARGS__)
#define TD_F_P4(a, ...) F a, TD_F_P3(__VA_ARGS__)
#define TD_F_P5(a, ...) F a, TD_F_P4(__VA_ARGS__)
#define TD_F_P6(a, ...) F a, TD_F_P5(__VA_ARGS__)
#define TD_F_P7(a, ...) F a, TD_F_P6(__VA_ARGS__)
#define TD_F_P8(a, ...) F a, TD_F_P7(__VA_ARGS__)
#define TD_F_P9(a, ...) F a, TD_F_P8(__VA_ARGS__)
#define TD_F_P10(a, ...) F a, TD_F_P9(__VA_ARGS__)
#define TD_F_P11(a, ...) F a, TD_F_P10(__VA_ARGS__)
#define TD_F_P12(a, ...) F a, TD_F_P11(__VA_ARGS__)
#define TD_F_P13(a, ...) F a, TD_F_P12(__VA_ARGS__)

// One entry point: `symbol`, arguments named as listed (the last is always
// ierr), counting `bytes`. The next definition is resolved once (a
// function-local static: one load and a test on every later call).
#define TD_F_ENTRY(symbol, bytes, ...)                                                    \
  extern "C" __attribute__((visibility("default"))) void symbol(TD_F_PARAMS(__VA_ARGS__)) { \
    static const auto next = reinterpret_cast<decltype(&symbol)>(dlsym(RTLD_NEXT, #symbol)); \
    if (next == nullptr) return Missing(ierr);                                            \
    Timed(bytes, next, __VA_ARGS__);                                                       \
  }

// Every name of MPI routine `name` (lower case, no trailing underscore;
// `upper` the same in upper case, which the preprocessor cannot derive).
#define TD_FORTRAN(name, upper, bytes, ...)   \
  TD_F_ENTRY(name##_, bytes, __VA_ARGS__)     \
  TD_F_ENTRY(name##_f08_, bytes, __VA_ARGS__) \
  TD_F_ENTRY(name, bytes, __VA_ARGS__)        \
  TD_F_ENTRY(name##__, bytes, __VA_ARGS__)    \
  TD_F_ENTRY(upper, bytes, __VA_ARGS__)

// Point to point.
TD_FORTRAN(mpi_send, MPI_SEND, Bytes(*count, Type(type)), buf, count, type, dest, tag, comm, ierr)
TD_FORTRAN(mpi_ssend, MPI_SSEND, Bytes(*count, Type(type)), buf, count, type, dest, tag, comm, ierr)
TD_FORTRAN(mpi_bsend, MPI_BSEND, Bytes(*count, Type(type)), buf, count, type, dest, tag, comm, ierr)
TD_FORTRAN(mpi_rsend, MPI_RSEND, Bytes(*count, Type(type)), buf, count, type, dest, tag, comm, ierr)
TD_FORTRAN(mpi_recv, MPI_RECV, Bytes(*count, Type(type)), buf, count, type, source, tag, comm, status, ierr)
TD_FORTRAN(mpi_isend, MPI_ISEND, Bytes(*count, Type(type)), buf, count, type, dest, tag, comm, request, ierr)
TD_FORTRAN(mpi_issend, MPI_ISSEND, Bytes(*count, Type(type)), buf, count, type, dest, tag, comm, request, ierr)
TD_FORTRAN(mpi_irecv, MPI_IRECV, Bytes(*count, Type(type)), buf, count, type, source, tag, comm, request, ierr)
TD_FORTRAN(mpi_sendrecv, MPI_SENDRECV, Bytes(*sendcount, Type(sendtype)) + Bytes(*recvcount, Type(recvtype)), sendbuf,
           sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status, ierr)
TD_FORTRAN(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE, 2 * Bytes(*count, Type(type)), buf, count, type, dest, sendtag,
           source, recvtag, comm, status, ierr)

// Completion and probes: no bytes.
TD_FORTRAN(mpi_wait, MPI_WAIT, 0, request, status, ierr)
TD_FORTRAN(mpi_waitall, MPI_WAITALL, 0, count, requests, statuses, ierr)
TD_FORTRAN(mpi_waitany, MPI_WAITANY, 0, count, requests, index, status, ierr)
TD_FORTRAN(mpi_waitsome, MPI_WAITSOME, 0, incount, requests, outcount, indices, statuses, ierr)
TD_FORTRAN(mpi_test, MPI_TEST, 0, request, flag, status, ierr)
TD_FORTRAN(mpi_testall, MPI_TESTALL, 0, count, requests, flag, statuses, ierr)
TD_FORTRAN(mpi_testany, MPI_TESTANY, 0, count, requests, index, flag, status, ierr)
TD_FORTRAN(mpi_testsome, MPI_TESTSOME, 0, incount, requests, outcount, indices, statuses, ierr)
TD_FORTRAN(mpi_probe, MPI_PROBE, 0, source, tag, comm, status, ierr)
TD_FORTRAN(mpi_iprobe, MPI_IPROBE, 0, source, tag, comm, flag, status, ierr)

// Collectives.
TD_FORTRAN(mpi_barrier, MPI_BARRIER, 0, comm, ierr)
TD_FORTRAN(mpi_bcast, MPI_BCAST, Bytes(*count, Type(type)), buf, count, type, root, comm, ierr)
TD_FORTRAN(mpi_reduce, MPI_REDUCE, Bytes(*count, Type(type)), sendbuf, recvbuf, count, type, op, root, comm, ierr)
TD_FORTRAN(mpi_allreduce, MPI_ALLREDUCE, Bytes(*count, Type(type)), sendbuf, recvbuf, count, type, op, comm, ierr)
TD_FORTRAN(mpi_scan, MPI_SCAN, Bytes(*count, Type(type)), sendbuf, recvbuf, count, type, op, comm, ierr)
TD_FORTRAN(mpi_exscan, MPI_EXSCAN, Bytes(*count, Type(type)), sendbuf, recvbuf, count, type, op, comm, ierr)
TD_FORTRAN(mpi_reduce_scatter, MPI_REDUCE_SCATTER, ReduceScatterBytes(recvcounts, Type(type), Comm(comm)), sendbuf,
           recvbuf, recvcounts, type, op, comm, ierr)
TD_FORTRAN(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
           ReduceScatterBlockBytes(*recvcount, Type(type), Comm(comm)), sendbuf, recvbuf, recvcount, type, op, comm,
           ierr)
TD_FORTRAN(mpi_gather, MPI_GATHER,
           GatherBytes(InPlace(sendbuf), *sendcount, Type(sendtype), *recvcount, Type(recvtype)), sendbuf, sendcount,
           sendtype, recvbuf, recvcount, recvtype, root, comm, ierr)
TD_FORTRAN(mpi_gatherv, MPI_GATHERV,
           GathervBytes(InPlace(sendbuf), *sendcount, Type(sendtype), recvcounts, Type(recvtype), Comm(comm)), sendbuf,
           sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr)
TD_FORTRAN(mpi_scatter, MPI_SCATTER, ScatterBytes(*root, Comm(comm), *sendcount, Type(sendtype)), sendbuf, sendcount,
           sendtype, recvbuf, recvcount, recvtype, root, comm, ierr)
TD_FORTRAN(mpi_scatterv, MPI_SCATTERV, ScattervBytes(*root, Comm(comm), sendcounts, Type(sendtype)), sendbuf,
           sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr)
TD_FORTRAN(mpi_allgather, MPI_ALLGATHER,
           GatherBytes(InPlace(sendbuf), *sendcount, Type(sendtype), *recvcount, Type(recvtype)), sendbuf, sendcount,
           sendtype, recvbuf, recvcount, recvtype, comm, ierr)
TD_FORTRAN(mpi_allgatherv, MPI_ALLGATHERV,
           GathervBytes(InPlace(sendbuf), *sendcount, Type(sendtype), recvcounts, Type(recvtype), Comm(comm)), sendbuf,
           sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr)
TD_FORTRAN(mpi_alltoall, MPI_ALLTOALL,
           AlltoallBytes(InPlace(sendbuf), *sendcount, Type(sendtype), *recvcount, Type(recvtype), Comm(comm)), sendbuf,
           sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr)
TD_FORTRAN(mpi_alltoallv, MPI_ALLTOALLV,
           AlltoallvBytes(InPlace(sendbuf), sendcounts, Type(sendtype), recvcounts, Type(recvtype), Comm(comm)),
           sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, ierr)

// Non-blocking collectives: the posting call's time and bytes.
TD_FORTRAN(mpi_ibarrier, MPI_IBARRIER, 0, comm, request, ierr)
TD_FORTRAN(mpi_ibcast, MPI_IBCAST, Bytes(*count, Type(type)), buf, count, type, root, comm, request, ierr)
TD_FORTRAN(mpi_ireduce, MPI_IREDUCE, Bytes(*count, Type(type)), sendbuf, recvbuf, count, type, op, root, comm, request,
           ierr)
TD_FORTRAN(mpi_iallreduce, MPI_IALLREDUCE, Bytes(*count, Type(type)), sendbuf, recvbuf, count, type, op, comm, request,
           ierr)
TD_FORTRAN(mpi_igather, MPI_IGATHER,
           GatherBytes(InPlace(sendbuf), *sendcount, Type(sendtype), *recvcount, Type(recvtype)), sendbuf, sendcount,
           sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierr)
TD_FORTRAN(mpi_iscatter, MPI_ISCATTER, ScatterBytes(*root, Comm(comm), *sendcount, Type(sendtype)), sendbuf, sendcount,
           sendtype, recvbuf, recvcount, recvtype, root, comm, request, ierr)
TD_FORTRAN(mpi_iallgather, MPI_IALLGATHER,
           GatherBytes(InPlace(sendbuf), *sendcount, Type(sendtype), *recvcount, Type(recvtype)), sendbuf, sendcount,
           sendtype, recvbuf, recvcount, recvtype, comm, request, ierr)
TD_FORTRAN(mpi_ialltoall, MPI_IALLTOALL,
           AlltoallBytes(InPlace(sendbuf), *sendcount, Type(sendtype), *recvcount, Type(recvtype), Comm(comm)), sendbuf,
           sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr)

// One-sided synchronisation.
TD_FORTRAN(mpi_win_fence, MPI_WIN_FENCE, 0, assertion, win, ierr)
TD_FORTRAN(mpi_win_lock, MPI_WIN_LOCK, 0, lock_type, rank, assertion, win, ierr)
TD_FORTRAN(mpi_win_unlock, MPI_WIN_UNLOCK, 0, rank, win, ierr)
TD_FORTRAN(mpi_win_lock_all, MPI_WIN_LOCK_ALL, 0, assertion, win, ierr)
TD_FORTRAN(mpi_win_unlock_all, MPI_WIN_UNLOCK_ALL, 0, win, ierr)
TD_FORTRAN(mpi_win_flush, MPI_WIN_FLUSH, 0, rank, win, ierr)
TD_FORTRAN(mpi_win_flush_all, MPI_WIN_FLUSH_ALL, 0, win, ierr)
