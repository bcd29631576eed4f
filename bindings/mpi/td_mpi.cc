// libtd-mpi: one td file per MPI job, written in-process at MPI_Finalize
// (docs/hpc.md#one-file-per-job). The program keeps its source: it links
// this library before libmpi (-ltd-mpi -ltd) or has it preloaded, and the
// MPI standard's profiling interface does the rest: MPI_Init, MPI_Init_thread
// and MPI_Finalize are defined here and call the library's PMPI_ versions.
//
// At MPI_Finalize, before PMPI_Finalize, every rank stops recording and the
// ranks merge their tables up a binomial tree over MPI_COMM_WORLD: in step
// k = 0, 1, …, a rank whose bit k is set sends its table (with everything its
// children sent) to rank − 2^k and is done; the others receive from
// rank + 2^k when there is one. That is size − 1 messages in ceil(log2 size)
// steps, on a communicator of td's own (a duplicate of MPI_COMM_WORLD), so no
// message of the program can ever match one of td's. Rank 0 writes the job's
// file and tells every rank whether it did (one broadcast): where it did not,
// every rank writes its own files as it would have at exit.
//
// libtd builds, merges and writes the tables (runtime/driver/mpi_api.h); this
// file only moves bytes. It never changes what an MPI call returns.
// mpi_calls.cc times the program's MPI calls per region; MPI_Abort, here,
// writes the aborting rank's own files first.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/driver/mpi_api.h"
#include "td/td.h"

#define TD_MPI_EXPORT __attribute__((visibility("default")))

namespace {

constexpr int kTag = 7415;  // any tag: the communicator is td's alone

MPI_Comm g_comm = MPI_COMM_NULL;
std::atomic<bool> g_initialized{false};
std::atomic<bool> g_finalized{false};

void Say(const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  if (PMPI_Error_string(code, text, &length) != MPI_SUCCESS) text[0] = '\0';
  char line[MPI_MAX_ERROR_STRING + 200];
  std::snprintf(line, sizeof line, "MPI job file: %s failed (%s); every rank writes its own files", what, text);
  td_mpi_say(line);
}

// td's own communicator; made once, at MPI_Init or else at MPI_Finalize
// (both collective over MPI_COMM_WORLD, as MPI_Comm_dup is).
bool MakeCommunicator() {
  if (g_comm != MPI_COMM_NULL) return true;
  MPI_Comm comm = MPI_COMM_NULL;
  if (const int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &comm); rc != MPI_SUCCESS) {
    Say("MPI_Comm_dup", rc);
    return false;
  }
  // A failed call returns its code here instead of aborting the job.
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  g_comm = comm;
  return true;
}

void AfterInit() {
  int initialized = 0;
  if (PMPI_Initialized(&initialized) != MPI_SUCCESS || initialized == 0) return;
  if (g_initialized.exchange(true)) return;
  td_init();  // the run is recorded from here on, markers or not
  MakeCommunicator();
}

// Receives one child's table and merges it; a failed receive counts as a
// failed part.
void ReceiveFrom(int child) {
  MPI_Status status;
  int rc = PMPI_Probe(child, kTag, g_comm, &status);
  int count = 0;
  if (rc == MPI_SUCCESS) rc = PMPI_Get_count(&status, MPI_BYTE, &count);
  if (rc != MPI_SUCCESS || count < 0) {
    Say("receiving a rank's table", rc);
    td_mpi_add(nullptr, 0);
    return;
  }
  std::vector<char> bytes(static_cast<size_t>(count) + 1);
  rc = PMPI_Recv(bytes.data(), count, MPI_BYTE, child, kTag, g_comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    Say("receiving a rank's table", rc);
    td_mpi_add(nullptr, 0);
    return;
  }
  td_mpi_add(bytes.data(), static_cast<size_t>(count));
}

void SendTo(int parent) {
  char* bytes = nullptr;
  size_t length = 0;
  if (td_mpi_take(&bytes, &length) != 0 || length > static_cast<size_t>(INT_MAX)) {
    if (length > static_cast<size_t>(INT_MAX)) {
      td_mpi_say("MPI job file: this rank's part is over 2 GiB (set TD_MPI_RANKS=0); every rank writes its own files");
    }
    std::free(bytes);
    bytes = nullptr;
    length = 0;  // zero bytes: this part failed
  }
  char none = 0;
  const int rc = PMPI_Send(bytes != nullptr ? bytes : &none, static_cast<int>(length), MPI_BYTE, parent, kTag, g_comm);
  if (rc != MPI_SUCCESS) Say("sending this rank's table", rc);
  std::free(bytes);
}

void JobAtFinalize() {
  if (g_finalized.exchange(true)) return;
  int initialized = 0, finalized = 0;
  if (PMPI_Initialized(&initialized) != MPI_SUCCESS || initialized == 0) return;
  if (PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized != 0) return;
  if (!MakeCommunicator()) return;  // td writes this rank's own files at exit
  int rank = 0, size = 1;
  if (PMPI_Comm_rank(g_comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(g_comm, &size) != MPI_SUCCESS) {
    td_mpi_say("MPI job file: MPI_Comm_rank failed; every rank writes its own files");
    return;
  }
  td_mpi_begin(rank, size);
  for (int step = 1; step < size; step <<= 1) {
    if ((rank & step) != 0) {
      SendTo(rank - step);
      break;
    }
    if (rank + step < size) ReceiveFrom(rank + step);
  }
  int written = rank == 0 ? (td_mpi_write_job() >= 0 ? 1 : 0) : 0;
  if (const int rc = PMPI_Bcast(&written, 1, MPI_INT, 0, g_comm); rc != MPI_SUCCESS) {
    Say("MPI_Bcast", rc);
    // Rank 0 knows; elsewhere the job file may or may not be there: write
    // this rank's own, which td report merges with the job file.
    if (rank != 0) written = 0;
  }
  td_mpi_end(written);
  PMPI_Comm_free(&g_comm);
  g_comm = MPI_COMM_NULL;
}

// The next definition of a Fortran entry point (libmpi's Fortran library,
// which handles the Fortran arguments): Open MPI's Fortran MPI_INIT and
// MPI_FINALIZE call PMPI_Init and PMPI_Finalize directly, so the C
// definitions below never see them.
template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

using FortranInit = void (*)(MPI_Fint*);
using FortranInitThread = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
using FortranFinalize = void (*)(MPI_Fint*);

void FortranInitVia(const char* name, MPI_Fint* ierr) {
  FortranInit f = Next<FortranInit>(name);
  if (f != nullptr) {
    f(ierr);
  } else {
    int argc = 0;
    char** argv = nullptr;
    const int rc = PMPI_Init(&argc, &argv);
    if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
  }
  AfterInit();
}

void FortranInitThreadVia(const char* name, MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  FortranInitThread f = Next<FortranInitThread>(name);
  if (f != nullptr) {
    f(required, provided, ierr);
  } else {
    int argc = 0;
    char** argv = nullptr;
    int got = 0;
    const int rc = PMPI_Init_thread(&argc, &argv, static_cast<int>(*required), &got);
    *provided = static_cast<MPI_Fint>(got);
    if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
  }
  AfterInit();
}

void FortranFinalizeVia(const char* name, MPI_Fint* ierr) {
  JobAtFinalize();
  FortranFinalize f = Next<FortranFinalize>(name);
  if (f != nullptr) {
    f(ierr);
  } else {
    const int rc = PMPI_Finalize();
    if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
  }
}

// MPI_Abort: this rank's recording is written before PMPI_Abort ends the
// process (no exit handler runs after it), marked aborted; between MPI_Init
// and MPI_Finalize only, where MPI_COMM_WORLD can be asked the rank.
void RecordAbort() {
  int initialized = 0, finalized = 0;
  if (PMPI_Initialized(&initialized) != MPI_SUCCESS || initialized == 0) return;
  if (PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized != 0 || g_finalized.load()) return;
  int rank = 0, size = 1;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS) {
    return;
  }
  td_mpi_abort(rank, size);
}

using FortranAbort = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);

void FortranAbortVia(const char* name, MPI_Fint* comm, MPI_Fint* code, MPI_Fint* ierr) {
  RecordAbort();
  FortranAbort f = Next<FortranAbort>(name);
  if (f != nullptr) {
    f(comm, code, ierr);
  } else {
    const int rc = PMPI_Abort(PMPI_Comm_f2c(*comm), static_cast<int>(*code));
    if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
  }
}

}  // namespace

extern "C" {

TD_MPI_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  RecordAbort();
  return PMPI_Abort(comm, errorcode);
}

TD_MPI_EXPORT int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) AfterInit();
  return rc;
}

TD_MPI_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) AfterInit();
  return rc;
}

TD_MPI_EXPORT int MPI_Finalize(void) {
  JobAtFinalize();
  return PMPI_Finalize();
}

// Fortran: MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE and MPI_ABORT under one
// spelling, each forwarding to the next definition of its own name.
#define TD_FORTRAN_LIFECYCLE(init, init_thread, finalize, abort)                           \
  TD_MPI_EXPORT void init(MPI_Fint* ierr) { FortranInitVia(#init, ierr); }                 \
  TD_MPI_EXPORT void init_thread(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) { \
    FortranInitThreadVia(#init_thread, required, provided, ierr);                          \
  }                                                                                        \
  TD_MPI_EXPORT void finalize(MPI_Fint* ierr) { FortranFinalizeVia(#finalize, ierr); }     \
  TD_MPI_EXPORT void abort(MPI_Fint* comm, MPI_Fint* code, MPI_Fint* ierr) {               \
    FortranAbortVia(#abort, comm, code, ierr);                                             \
  }

// gfortran's names: mpif.h and `use mpi` call mpi_init_ etc.; Open MPI's
// `use mpi_f08` calls mpi_init_f08_ etc., whose error argument is optional
// (null when left out). Then the other names Open MPI's libmpi_mpifh
// exports for other compilers' name mangling (docs/hpc.md, "Fortran").
TD_FORTRAN_LIFECYCLE(mpi_init_, mpi_init_thread_, mpi_finalize_, mpi_abort_)
TD_FORTRAN_LIFECYCLE(mpi_init_f08_, mpi_init_thread_f08_, mpi_finalize_f08_, mpi_abort_f08_)
TD_FORTRAN_LIFECYCLE(mpi_init, mpi_init_thread, mpi_finalize, mpi_abort)
TD_FORTRAN_LIFECYCLE(mpi_init__, mpi_init_thread__, mpi_finalize__, mpi_abort__)
TD_FORTRAN_LIFECYCLE(MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE, MPI_ABORT)

}  // extern "C"
