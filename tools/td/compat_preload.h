// What `td run` preloads: libtd_compat for programs linked against liblikwid
// or libpapi (docs/compat.md), libtd-mpi with libtd for programs linked
// against MPI (docs/hpc.md#one-file-per-job); whether a program is linked
// against those, and where td's own libraries lie.
#ifndef TD_TOOLS_TD_COMPAT_PRELOAD_H_
#define TD_TOOLS_TD_COMPAT_PRELOAD_H_

#include <string>
#include <vector>

namespace td {

// The libraries an ELF file names as DT_NEEDED (its direct dependencies), in
// order; empty when the file is not a dynamically linked ELF file (a script,
// a static program) or cannot be read.
std::vector<std::string> NeededLibraries(const std::string& path);

// The file execvp() would run for `program`: itself when it holds a '/',
// else the first executable match along `path_list` (the PATH value).
std::string FindProgram(const std::string& program, const std::string& path_list);

// The first of `needed` that is LIKWID's or PAPI's library ("liblikwid.so.5"),
// or "".
std::string MarkerLibrary(const std::vector<std::string>& needed);

// The first of `needed` that is an MPI library: libmpi.so* (the C library
// of Open MPI, MPICH and its kin) or a language library of theirs
// (libmpi_mpifh.so*, libmpi_usempif08.so*, libmpifort.so*, libmpicxx.so*:
// a Fortran program linked with --as-needed names only those); or "".
std::string MpiLibrary(const std::vector<std::string>& needed);

// td's libraries that `td run` preloads.
enum class TdLibrary { kTd, kCompat, kMpi };

// `which` beside this td (installed) or in the build tree td was built in;
// "" when neither exists or td was built without it. `looked` lists where it
// looked (nothing when td was built without it).
std::string FindTdLibrary(TdLibrary which, std::vector<std::string>* looked);

// libtd from the same place as `found` (what FindTdLibrary(which) returned):
// the installed one for an installed library, the build tree's for the build
// tree's, so that a preloaded library and the libtd it calls into are of
// one build; "" when that libtd is not there.
std::string LibtdBeside(TdLibrary which, const std::string& found);

// LD_PRELOAD with `library` in front of `existing` (the value already set,
// possibly empty); unchanged when it is there already.
std::string PreloadValue(const std::string& library, const std::string& existing);

}  // namespace td

#endif  // TD_TOOLS_TD_COMPAT_PRELOAD_H_
