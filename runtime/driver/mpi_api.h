/* Entry points of libtd.so for td's MPI library (libtd-mpi, bindings/mpi/:
 * one file per job written in-process at MPI_Finalize, docs/hpc.md).
 * Exported because libtd-mpi is a library of its own, but not part of td's
 * public interface: not installed, not in td.h, and free to change with any
 * release. C linkage; nothing here throws or calls MPI: libtd-mpi moves the
 * bytes between ranks, libtd builds, merges and writes the tables.
 *
 * On each rank, in this order, from the thread that calls MPI_Finalize:
 *   td_mpi_begin   once;
 *   td_mpi_add     once per child in the reduction tree, lowest rank first;
 *   td_mpi_take    once on every rank but 0 (the bytes for its parent);
 *   td_mpi_write_job  on rank 0 only;
 *   td_mpi_end     once, with rank 0's answer. */
#ifndef TD_RUNTIME_DRIVER_MPI_API_H_
#define TD_RUNTIME_DRIVER_MPI_API_H_

#include <stddef.h>

#include "td/td.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stops recording on this rank, as td_finalize() would, but writes nothing
 * yet: this rank's data becomes its table of the job (rank and size as
 * MPI_COMM_WORLD says). Returns 0; 1 when td has nothing of this rank's to
 * add (disabled, or finalized earlier, which wrote this rank's own files);
 * -1 when its table could not be made (one td: line; this rank's own files
 * are written now). The rank takes part in the reduction in every case. */
TD_API int td_mpi_begin(int rank, int size);

/* Merges a child's bytes (from its td_mpi_take) into this rank's table.
 * Zero bytes mean the child's part failed: the job then gets no job file and
 * every rank writes its own files. Returns 0, or -1 when the bytes could not
 * be merged (one td: line; the same consequence). */
TD_API int td_mpi_add(const char* bytes, size_t length);

/* This rank's table with its children's, as bytes for the parent, in a
 * malloc'd buffer the caller frees. Returns 0, or -1 when the part failed
 * (*bytes is then NULL: send zero bytes). */
TD_API int td_mpi_take(char** bytes, size_t* length);

/* Rank 0: writes the job's file (TD_OUTPUT_DIR, never replacing a file) and
 * prints the job view as the text report. Returns 0 when written, 1 when
 * no rank had anything to write, -1 when it failed (one td: line). */
TD_API int td_mpi_write_job(void);

/* Ends this rank's part: with in_job_file = 0 (the job file was not
 * written) this rank writes its own files now, as at exit. */
TD_API void td_mpi_end(int in_job_file);

/* One td: warning line from libtd-mpi (an MPI call that failed). */
TD_API void td_mpi_say(const char* line);

/* MPI time per region (docs/hpc.md#mpi-time-per-region). libtd-mpi's
 * wrapper of an MPI call takes td_mpi_now() before calling its PMPI_
 * version and td_mpi_account(start, bytes) after it: the call's time, one
 * call and `bytes` go to the innermost region open on the calling thread
 * (outside every region: the run's mpi_outside_regions). Both run on the
 * program's MPI path: no lock, no allocation (but the thread's first call,
 * which attaches it as a first marker would), nothing thrown.
 * td_mpi_now returns TD_MPI_NOT_TIMED where td does not record the thread;
 * td_mpi_account ignores that start. */
#define TD_MPI_NOT_TIMED (-9223372036854775807LL - 1)
TD_API long long td_mpi_now(void);
TD_API void td_mpi_account(long long start, unsigned long long bytes);

/* MPI_Abort, before PMPI_Abort: writes this rank's own files now, their
 * "mpi" marked "aborted" (rank and size as MPI_COMM_WORLD says). */
TD_API void td_mpi_abort(int rank, int size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TD_RUNTIME_DRIVER_MPI_API_H_ */
