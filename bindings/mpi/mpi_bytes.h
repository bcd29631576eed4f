// The bytes of a timed MPI call (docs/hpc.md#mpi-time-per-region), one rule
// per kind of call, shared by the C wrappers (mpi_calls.cc) and the Fortran
// ones (mpi_calls_fortran.cc, which convert their handles with PMPI_*_f2c
// first), so that a call counts the same bytes from either language.
//
// Bytes are what the call's own arguments name, worked out before the call:
// count × PMPI_Type_size of the buffers this rank passes. A send counts its
// buffer, a receive the buffer it posts (its capacity, not what arrived),
// MPI_Sendrecv both. A collective counts what this rank puts in: its send
// buffer (MPI_Bcast: the buffer, on every rank; the scatters: the root's
// send buffer, 0 elsewhere; alltoall: sendcount per rank of the
// communicator; MPI_IN_PLACE: the part of the receive buffer that is this
// rank's). Waits, tests, probes, barriers and window synchronisation count
// no bytes: a non-blocking call's bytes went with the call that posted it.
// Nothing here locks or allocates.
#ifndef TD_BINDINGS_MPI_MPI_BYTES_H_
#define TD_BINDINGS_MPI_MPI_BYTES_H_

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>

namespace td_mpi_bytes {

inline uint64_t Bytes(int64_t count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0) return 0;
  return static_cast<uint64_t>(count) * static_cast<uint64_t>(size);
}

inline int Size(MPI_Comm comm) {
  int size = 0;
  return PMPI_Comm_size(comm, &size) == MPI_SUCCESS ? size : 0;
}

inline bool IsRoot(int root, MPI_Comm comm) {
  int rank = -1;
  return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}

// Σ counts[0 .. n) elements of `type` (int in C, MPI_Fint in Fortran).
template <typename Count>
uint64_t SumBytes(const Count* counts, int n, MPI_Datatype type) {
  if (counts == nullptr) return 0;
  int64_t sum = 0;
  for (int i = 0; i < n; ++i) sum += counts[i] > 0 ? counts[i] : 0;
  return Bytes(sum, type);
}

// MPI_Gather, MPI_Allgather and their non-blocking forms.
inline uint64_t GatherBytes(bool in_place, int64_t sendcount, MPI_Datatype sendtype, int64_t recvcount,
                            MPI_Datatype recvtype) {
  return in_place ? Bytes(recvcount, recvtype) : Bytes(sendcount, sendtype);
}

// MPI_Gatherv, MPI_Allgatherv: in place, this rank's part of the receive buffer.
template <typename Count>
uint64_t GathervBytes(bool in_place, int64_t sendcount, MPI_Datatype sendtype, const Count* recvcounts,
                      MPI_Datatype recvtype, MPI_Comm comm) {
  if (!in_place) return Bytes(sendcount, sendtype);
  int rank = 0;
  return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && recvcounts != nullptr ? Bytes(recvcounts[rank], recvtype) : 0;
}

// MPI_Scatter, MPI_Iscatter: the root's send buffer, sendcount per rank.
inline uint64_t ScatterBytes(int root, MPI_Comm comm, int64_t sendcount, MPI_Datatype sendtype) {
  return IsRoot(root, comm) ? Bytes(sendcount * Size(comm), sendtype) : 0;
}

template <typename Count>
uint64_t ScattervBytes(int root, MPI_Comm comm, const Count* sendcounts, MPI_Datatype sendtype) {
  return IsRoot(root, comm) ? SumBytes(sendcounts, Size(comm), sendtype) : 0;
}

// MPI_Alltoall, MPI_Ialltoall: a count per rank of the communicator.
inline uint64_t AlltoallBytes(bool in_place, int64_t sendcount, MPI_Datatype sendtype, int64_t recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm) {
  return in_place ? Bytes(recvcount * Size(comm), recvtype) : Bytes(sendcount * Size(comm), sendtype);
}

template <typename Count>
uint64_t AlltoallvBytes(bool in_place, const Count* sendcounts, MPI_Datatype sendtype, const Count* recvcounts,
                        MPI_Datatype recvtype, MPI_Comm comm) {
  return in_place ? SumBytes(recvcounts, Size(comm), recvtype) : SumBytes(sendcounts, Size(comm), sendtype);
}

// MPI_Reduce_scatter: what every rank gets, summed.
template <typename Count>
uint64_t ReduceScatterBytes(const Count* recvcounts, MPI_Datatype type, MPI_Comm comm) {
  return SumBytes(recvcounts, Size(comm), type);
}

inline uint64_t ReduceScatterBlockBytes(int64_t recvcount, MPI_Datatype type, MPI_Comm comm) {
  return Bytes(recvcount * Size(comm), type);
}

}  // namespace td_mpi_bytes

#endif  // TD_BINDINGS_MPI_MPI_BYTES_H_
