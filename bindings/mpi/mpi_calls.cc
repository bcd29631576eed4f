// MPI time per region (docs/hpc.md#mpi-time-per-region): each MPI call
// defined here calls its PMPI_ version between td_mpi_now() and
// td_mpi_account(), which add the call's time, one call and its bytes to the
// innermost td region open on the calling thread. What a call returns is
// never changed, and nothing here locks or allocates.
//
// Bytes: mpi_bytes.h, whose rules the Fortran entry points
// (mpi_calls_fortran.cc) share.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>

#include "bindings/mpi/mpi_bytes.h"
#include "runtime/driver/mpi_api.h"

#define TD_MPI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace td_mpi_bytes;

// `call` (the PMPI_ call) timed and accounted with `bytes`.
template <typename Call>
inline int Timed(uint64_t bytes, Call call) {
  const long long start = td_mpi_now();
  const int rc = call();
  td_mpi_account(start, bytes);
  return rc;
}

}  // namespace

// Point to point.
TD_MPI_EXPORT int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Send(buf, count, type, dest, tag, comm); });
}
TD_MPI_EXPORT int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Ssend(buf, count, type, dest, tag, comm); });
}
TD_MPI_EXPORT int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Bsend(buf, count, type, dest, tag, comm); });
}
TD_MPI_EXPORT int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Rsend(buf, count, type, dest, tag, comm); });
}
TD_MPI_EXPORT int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                           MPI_Status* status) {
  return Timed(Bytes(count, type), [&] { return PMPI_Recv(buf, count, type, source, tag, comm, status); });
}
TD_MPI_EXPORT int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                            MPI_Request* request) {
  return Timed(Bytes(count, type), [&] { return PMPI_Isend(buf, count, type, dest, tag, comm, request); });
}
TD_MPI_EXPORT int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request) {
  return Timed(Bytes(count, type), [&] { return PMPI_Issend(buf, count, type, dest, tag, comm, request); });
}
TD_MPI_EXPORT int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                            MPI_Request* request) {
  return Timed(Bytes(count, type), [&] { return PMPI_Irecv(buf, count, type, source, tag, comm, request); });
}
TD_MPI_EXPORT int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                               MPI_Comm comm, MPI_Status* status) {
  return Timed(Bytes(sendcount, sendtype) + Bytes(recvcount, recvtype), [&] {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  });
}
TD_MPI_EXPORT int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                                       int recvtag, MPI_Comm comm, MPI_Status* status) {
  return Timed(2 * Bytes(count, type), [&] {
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  });
}

// Completion and probes.
TD_MPI_EXPORT int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return Timed(0, [&] { return PMPI_Wait(request, status); });
}
TD_MPI_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return Timed(0, [&] { return PMPI_Waitall(count, requests, statuses); });
}
TD_MPI_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return Timed(0, [&] { return PMPI_Waitany(count, requests, index, status); });
}
TD_MPI_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                               MPI_Status statuses[]) {
  return Timed(0, [&] { return PMPI_Waitsome(incount, requests, outcount, indices, statuses); });
}
TD_MPI_EXPORT int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return Timed(0, [&] { return PMPI_Test(request, flag, status); });
}
TD_MPI_EXPORT int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  return Timed(0, [&] { return PMPI_Testall(count, requests, flag, statuses); });
}
TD_MPI_EXPORT int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  return Timed(0, [&] { return PMPI_Testany(count, requests, index, flag, status); });
}
TD_MPI_EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                               MPI_Status statuses[]) {
  return Timed(0, [&] { return PMPI_Testsome(incount, requests, outcount, indices, statuses); });
}
TD_MPI_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return Timed(0, [&] { return PMPI_Probe(source, tag, comm, status); });
}
TD_MPI_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return Timed(0, [&] { return PMPI_Iprobe(source, tag, comm, flag, status); });
}

// Collectives.
TD_MPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  return Timed(0, [&] { return PMPI_Barrier(comm); });
}
TD_MPI_EXPORT int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Bcast(buf, count, type, root, comm); });
}
TD_MPI_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                             MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); });
}
TD_MPI_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}
TD_MPI_EXPORT int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                           MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm); });
}
TD_MPI_EXPORT int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm) {
  return Timed(Bytes(count, type), [&] { return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm); });
}
TD_MPI_EXPORT int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                                     MPI_Op op, MPI_Comm comm) {
  return Timed(ReduceScatterBytes(recvcounts, type, comm),
               [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm); });
}
TD_MPI_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                                           MPI_Op op, MPI_Comm comm) {
  return Timed(ReduceScatterBlockBytes(recvcount, type, comm),
               [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); });
}
TD_MPI_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const uint64_t bytes = GatherBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype);
  return Timed(bytes, [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}
TD_MPI_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                              MPI_Comm comm) {
  const uint64_t bytes = GathervBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, recvtype, comm);
  return Timed(bytes, [&] {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  });
}
TD_MPI_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const uint64_t bytes = ScatterBytes(root, comm, sendcount, sendtype);
  return Timed(bytes, [&] {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}
TD_MPI_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const uint64_t bytes = ScattervBytes(root, comm, sendcounts, sendtype);
  return Timed(bytes, [&] {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}
TD_MPI_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const uint64_t bytes = GatherBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype);
  return Timed(bytes, [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
TD_MPI_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const uint64_t bytes = GathervBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, recvtype, comm);
  return Timed(bytes, [&] {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  });
}
TD_MPI_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const uint64_t bytes = AlltoallBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  return Timed(bytes, [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}
TD_MPI_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm) {
  const uint64_t bytes = AlltoallvBytes(sendbuf == MPI_IN_PLACE, sendcounts, sendtype, recvcounts, recvtype, comm);
  return Timed(bytes, [&] {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  });
}

// Non-blocking collectives: the posting call's time and bytes; the wait's
// time goes where the wait is.
TD_MPI_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return Timed(0, [&] { return PMPI_Ibarrier(comm, request); });
}
TD_MPI_EXPORT int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  return Timed(Bytes(count, type), [&] { return PMPI_Ibcast(buf, count, type, root, comm, request); });
}
TD_MPI_EXPORT int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                              MPI_Comm comm, MPI_Request* request) {
  return Timed(Bytes(count, type),
               [&] { return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request); });
}
TD_MPI_EXPORT int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm, MPI_Request* request) {
  return Timed(Bytes(count, type),
               [&] { return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request); });
}
TD_MPI_EXPORT int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const uint64_t bytes = GatherBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype);
  return Timed(bytes, [&] {
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  });
}
TD_MPI_EXPORT int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const uint64_t bytes = ScatterBytes(root, comm, sendcount, sendtype);
  return Timed(bytes, [&] {
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  });
}
TD_MPI_EXPORT int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const uint64_t bytes = GatherBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype);
  return Timed(bytes, [&] {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  });
}
TD_MPI_EXPORT int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const uint64_t bytes = AlltoallBytes(sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  return Timed(bytes, [&] {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  });
}

// One-sided synchronisation (the puts and gets themselves are not wrapped:
// their time is in these).
TD_MPI_EXPORT int MPI_Win_fence(int assertion, MPI_Win win) {
  return Timed(0, [&] { return PMPI_Win_fence(assertion, win); });
}
TD_MPI_EXPORT int MPI_Win_lock(int lock_type, int rank, int assertion, MPI_Win win) {
  return Timed(0, [&] { return PMPI_Win_lock(lock_type, rank, assertion, win); });
}
TD_MPI_EXPORT int MPI_Win_unlock(int rank, MPI_Win win) {
  return Timed(0, [&] { return PMPI_Win_unlock(rank, win); });
}
TD_MPI_EXPORT int MPI_Win_lock_all(int assertion, MPI_Win win) {
  return Timed(0, [&] { return PMPI_Win_lock_all(assertion, win); });
}
TD_MPI_EXPORT int MPI_Win_unlock_all(MPI_Win win) {
  return Timed(0, [&] { return PMPI_Win_unlock_all(win); });
}
TD_MPI_EXPORT int MPI_Win_flush(int rank, MPI_Win win) {
  return Timed(0, [&] { return PMPI_Win_flush(rank, win); });
}
TD_MPI_EXPORT int MPI_Win_flush_all(MPI_Win win) {
  return Timed(0, [&] { return PMPI_Win_flush_all(win); });
}
