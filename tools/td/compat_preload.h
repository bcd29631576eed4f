// `td run` and libtd_compat (docs/compat.md): whether a program is linked
// against liblikwid or libpapi, and where td's compatibility library lies.
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

// libtd_compat beside this td (installed) or in the build tree td was built
// in; "" when neither exists. `looked` lists where it looked.
std::string FindCompatLibrary(std::vector<std::string>* looked);

// LD_PRELOAD with `library` in front of `existing` (the value already set,
// possibly empty); unchanged when it is there already.
std::string PreloadValue(const std::string& library, const std::string& existing);

}  // namespace td

#endif  // TD_TOOLS_TD_COMPAT_PRELOAD_H_
