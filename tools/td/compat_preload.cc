#include "tools/td/compat_preload.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

// Set by bindings/mpi where libtd-mpi is built; without it td run finds none.
#ifndef TD_MPI_FROM_BINDIR
#define TD_MPI_FROM_BINDIR ""
#define TD_MPI_BUILD_LIBRARY ""
#endif

namespace td {
namespace {

class File {
 public:
  explicit File(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~File() {
    if (fd_ >= 0) close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  bool ok() const { return fd_ >= 0; }
  bool Read(uint64_t offset, void* out, size_t size) const {
    return pread(fd_, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
  }

 private:
  int fd_;
};

// DT_NEEDED names of one ELF class (Elf32_* or Elf64_* types).
template <typename Ehdr, typename Shdr, typename Dyn>
std::vector<std::string> Needed(const File& file) {
  std::vector<std::string> needed;
  Ehdr header;
  if (!file.Read(0, &header, sizeof header) || header.e_shentsize != sizeof(Shdr) || header.e_shnum == 0 ||
      header.e_shnum > 4096) {
    return needed;
  }
  std::vector<Shdr> sections(header.e_shnum);
  if (!file.Read(header.e_shoff, sections.data(), sections.size() * sizeof(Shdr))) return needed;
  for (const Shdr& dynamic : sections) {
    if (dynamic.sh_type != SHT_DYNAMIC || dynamic.sh_link >= sections.size()) continue;
    const Shdr& strings = sections[dynamic.sh_link];
    if (dynamic.sh_size > (1u << 24) || strings.sh_size > (1u << 26)) return needed;
    std::vector<Dyn> entries(dynamic.sh_size / sizeof(Dyn));
    std::vector<char> text(strings.sh_size + 1, '\0');
    if (!file.Read(dynamic.sh_offset, entries.data(), entries.size() * sizeof(Dyn)) ||
        !file.Read(strings.sh_offset, text.data(), strings.sh_size)) {
      return needed;
    }
    for (const Dyn& entry : entries) {
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_tag == DT_NEEDED && entry.d_un.d_val < strings.sh_size) {
        needed.emplace_back(text.data() + entry.d_un.d_val);
      }
    }
    break;
  }
  return needed;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::vector<std::string> NeededLibraries(const std::string& path) {
  const File file(path);
  unsigned char ident[EI_NIDENT];
  if (!file.ok() || !file.Read(0, ident, sizeof ident) || std::memcmp(ident, ELFMAG, SELFMAG) != 0) return {};
  if (ident[EI_CLASS] == ELFCLASS64) return Needed<Elf64_Ehdr, Elf64_Shdr, Elf64_Dyn>(file);
  if (ident[EI_CLASS] == ELFCLASS32) return Needed<Elf32_Ehdr, Elf32_Shdr, Elf32_Dyn>(file);
  return {};
}

std::string FindProgram(const std::string& program, const std::string& path_list) {
  if (program.find('/') != std::string::npos) return program;
  size_t start = 0;
  while (start <= path_list.size()) {
    const size_t end = path_list.find(':', start);
    const std::string_view dir =
        std::string_view(path_list).substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string candidate(dir.empty() ? std::string_view(".") : dir);
    candidate += '/';
    candidate += program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

std::string MarkerLibrary(const std::vector<std::string>& needed) {
  for (const std::string& name : needed) {
    if (StartsWith(name, "liblikwid.so") || StartsWith(name, "libpapi.so")) return name;
  }
  return "";
}

std::string MpiLibrary(const std::vector<std::string>& needed) {
  for (const std::string& name : needed) {
    if (StartsWith(name, "libmpi.so") || StartsWith(name, "libmpi_") || StartsWith(name, "libmpifort.so") ||
        StartsWith(name, "libmpicxx.so")) {
      return name;
    }
  }
  return "";
}

namespace {

// Where `which` may lie, in the order looked: beside this td in an install
// (the libdir as seen from the bindir), then in the build tree. An entry
// ending in '/' is one td was built without.
std::vector<std::string> Candidates(TdLibrary which) {
  const char* from_bindir = "";
  const char* built = "";
  switch (which) {
    case TdLibrary::kTd:
      from_bindir = TD_LIBRARY_FROM_BINDIR;
      built = TD_LIBRARY_BUILD_LIBRARY;
      break;
    case TdLibrary::kCompat:
      from_bindir = TD_COMPAT_FROM_BINDIR;
      built = TD_COMPAT_BUILD_LIBRARY;
      break;
    case TdLibrary::kMpi:
      from_bindir = TD_MPI_FROM_BINDIR;
      built = TD_MPI_BUILD_LIBRARY;
      break;
  }
  std::vector<std::string> candidates;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && std::strlen(from_bindir) > 0) {
    const std::filesystem::path installed(from_bindir);
    candidates.push_back(
        (installed.is_absolute() ? installed : self.parent_path() / installed).lexically_normal().string());
  } else {
    candidates.emplace_back();  // keeps the build tree's at index 1 for LibtdBeside
  }
  candidates.push_back(built);
  return candidates;
}

bool Usable(const std::string& candidate) { return !candidate.empty() && candidate.back() != '/'; }

}  // namespace

std::string FindTdLibrary(TdLibrary which, std::vector<std::string>* looked) {
  for (const std::string& candidate : Candidates(which)) {
    if (!Usable(candidate)) continue;  // built without it
    looked->push_back(candidate);
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "";
}

std::string LibtdBeside(TdLibrary which, const std::string& found) {
  const std::vector<std::string> places = Candidates(which);
  const std::vector<std::string> libtd = Candidates(TdLibrary::kTd);
  for (size_t i = 0; i < places.size() && i < libtd.size(); ++i) {
    if (Usable(places[i]) && places[i] == found && Usable(libtd[i]) && access(libtd[i].c_str(), R_OK) == 0) {
      return libtd[i];
    }
  }
  return "";
}

std::string PreloadValue(const std::string& library, const std::string& existing) {
  if (existing.empty()) return library;
  size_t start = 0;
  while (start <= existing.size()) {
    const size_t end = existing.find_first_of(": ", start);
    if (existing.substr(start, end == std::string::npos ? std::string::npos : end - start) == library) {
      return existing;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return library + ":" + existing;
}

}  // namespace td
