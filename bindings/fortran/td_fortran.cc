// The C side of the Fortran module `td` (td.f90): Fortran strings arrive as
// (address, length) without a NUL and without call-site statics, so each
// thread keeps a small table from (address, length) to the region's td_site.
// A repeated call with the same string is one integer hash of the address, a
// probe and a memcmp of the name against the site's copy (a character
// variable may hold another name at the same address since the last call);
// only a name new to the thread takes the process-wide lock and hashes its
// characters. Sites are process-wide, one per trimmed name, and never freed:
// the runtime keeps pointers to them in open regions and in its warnings.
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "td/td.h"

namespace {

// The sites' file. They have no line (0), so the runtime's warnings about
// them (an END without its BEGIN) say "(dynamic name)", as for
// td_region_begin_name(), where a C marker says file:line.
constexpr const char kFile[] = "(Fortran)";

// A name that cannot be a td region (it holds a NUL byte): markers with it
// are ignored; this entry only marks it as already warned about.
td_site g_rejected = {"", kFile, 0, 0, 1};

struct Slot {
  const char* address;  // null: empty
  size_t length;        // the Fortran length, trailing blanks included
  size_t trimmed;       // the length of site->name
  td_site* site;
};

struct Table {
  Slot* slots;
  size_t mask;  // capacity - 1; capacity is a power of two
  size_t used;
};

// Constant-initialised and trivially destructible, so access needs no guard;
// the slots are freed by the key's destructor when the thread exits. Initial
// exec, as the runtime's own thread state: no __tls_get_addr call per marker.
thread_local Table t_table __attribute__((tls_model("initial-exec"))) = {nullptr, 0, 0};

pthread_key_t g_table_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

// At thread exit; the table is reset too, so that a marker run by a later
// thread-exit destructor starts a new one instead of using the freed slots.
void FreeTable(void* slots) {
  std::free(slots);
  t_table = Table{nullptr, 0, 0};
}
void MakeKey() { pthread_key_create(&g_table_key, FreeTable); }

std::mutex& SitesMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
// fork() must not leave the lock held in the child (another thread may hold
// it at the fork), as the runtime does for its own locks.
void LockForFork() { SitesMutex().lock(); }
void UnlockAfterFork() { SitesMutex().unlock(); }
pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;
void RegisterAtFork() { pthread_atfork(LockForFork, UnlockAfterFork, UnlockAfterFork); }

std::unordered_map<std::string, td_site*>& Sites() {  // guarded by SitesMutex()
  static auto* sites = new std::unordered_map<std::string, td_site*>;
  return *sites;
}

inline size_t HashKey(const char* address, size_t length) {
  uint64_t h = reinterpret_cast<uintptr_t>(address) ^ (static_cast<uint64_t>(length) << 48);
  h *= 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h >> 32);
}

inline size_t TrimmedLength(const char* name, size_t length) {
  while (length > 0 && name[length - 1] == ' ') --length;
  return length;
}

constexpr char kBlanks[64] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
                               ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
                               ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
                               ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

// Whether the string still spells the slot's name: the site's bytes, then
// blanks only.
inline bool Spells(const char* name, size_t length, const Slot& slot) {
  if (std::memcmp(name, slot.site->name, slot.trimmed) != 0) return false;
  for (size_t i = slot.trimmed; i < length; i += sizeof kBlanks) {
    const size_t n = length - i < sizeof kBlanks ? length - i : sizeof kBlanks;
    if (std::memcmp(name + i, kBlanks, n) != 0) return false;
  }
  return true;
}

void Warn(const char* what, const std::string& name, const char* problem) {
  std::string shown;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7F || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      shown += hex;
    } else {
      shown += static_cast<char>(c);
    }
  }
  std::fprintf(stderr, "td: warning: %s(\"%s\") from Fortran: %s; ignored\n", what, shown.c_str(),
               problem);
}

// The process-wide site of a trimmed name; the first sight of a bad name
// warns once for the whole process.
td_site* SiteForName(const char* name, size_t trimmed, const char* what) {
  std::string key(name, trimmed);
  pthread_once(&g_atfork_once, RegisterAtFork);
  std::lock_guard<std::mutex> lock(SitesMutex());
  auto [it, inserted] = Sites().try_emplace(key, nullptr);
  if (!inserted) return it->second;
  if (std::memchr(name, '\0', trimmed) != nullptr) {
    Warn(what, key, "a td region name cannot hold a NUL byte (char(0))");
    it->second = &g_rejected;
    return it->second;
  }
  char* copy = static_cast<char*>(std::malloc(trimmed + 1));
  auto* site = static_cast<td_site*>(std::calloc(1, sizeof(td_site)));
  if (copy == nullptr || site == nullptr) {
    std::free(copy);
    std::free(site);
    Sites().erase(it);
    return &g_rejected;
  }
  std::memcpy(copy, name, trimmed);
  copy[trimmed] = '\0';
  site->name = copy;
  site->file = kFile;
  it->second = site;
  return site;
}

// Strings at ever new addresses (temporaries such as trim(name), a large
// array of names) would grow a table without end: past this many slots it is
// emptied instead, and refills with what is in use.
constexpr size_t kMaxSlots = 8192;

// Doubles the thread's table (or makes its first one); empties a full one.
bool Grow(Table* table) {
  if (table->slots != nullptr && table->mask + 1 >= kMaxSlots) {
    std::memset(static_cast<void*>(table->slots), 0, (table->mask + 1) * sizeof(Slot));
    table->used = 0;
    return true;
  }
  const size_t capacity = table->slots == nullptr ? 64 : 2 * (table->mask + 1);
  auto* slots = static_cast<Slot*>(std::calloc(capacity, sizeof(Slot)));
  if (slots == nullptr) return false;
  if (table->slots == nullptr) {
    pthread_once(&g_key_once, MakeKey);
  } else {
    for (size_t i = 0; i <= table->mask; ++i) {
      const Slot& old = table->slots[i];
      if (old.address == nullptr) continue;
      size_t j = HashKey(old.address, old.length) & (capacity - 1);
      while (slots[j].address != nullptr) j = (j + 1) & (capacity - 1);
      slots[j] = old;
    }
    std::free(table->slots);
  }
  table->slots = slots;
  table->mask = capacity - 1;
  pthread_setspecific(g_table_key, slots);
  return true;
}

td_site* SlowSite(const char* name, size_t length, const char* what) {
  Table* table = &t_table;
  const size_t trimmed = TrimmedLength(name, length);
  td_site* site = SiteForName(name, trimmed, what);
  if (site == &g_rejected) return site;  // not cached: its name cannot be checked
  if ((table->slots == nullptr || 2 * (table->used + 1) > table->mask + 1) && !Grow(table)) {
    return site;  // out of memory: works, uncached
  }
  size_t i = HashKey(name, length) & table->mask;
  while (table->slots[i].address != nullptr &&
         (table->slots[i].address != name || table->slots[i].length != length)) {
    i = (i + 1) & table->mask;
  }
  Slot& slot = table->slots[i];
  if (slot.address == nullptr) {
    ++table->used;
    slot.address = name;
    slot.length = length;
  }
  slot.trimmed = trimmed;  // a new string, or new contents at a known address
  slot.site = site;
  return site;
}

// The site for a Fortran string; null when markers with it are ignored.
inline td_site* SiteFor(const char* name, size_t length, const char* what) {
  if (__builtin_expect(name == nullptr, 0)) {  // a zero-length string may come without storage
    name = "";
    length = 0;
  }
  const Table& table = t_table;
  if (__builtin_expect(table.slots != nullptr, 1)) {
    size_t i = HashKey(name, length) & table.mask;
    for (;;) {
      const Slot& slot = table.slots[i];
      if (slot.address == nullptr) break;
      if (slot.address == name && slot.length == length) {
        if (__builtin_expect(Spells(name, length, slot), 1)) return slot.site;
        break;
      }
      i = (i + 1) & table.mask;
    }
  }
  td_site* site = SlowSite(name, length, what);
  return site == &g_rejected ? nullptr : site;
}

inline bool MarkersOn() { return !__atomic_load_n(&td_markers_off, __ATOMIC_RELAXED); }

}  // namespace

extern "C" {

// Called by the module procedures of td.f90 with the string and its length.
TD_API void td_fortran_region_begin(const char* name, size_t length) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_begin")) td_region_begin(site);
}

TD_API void td_fortran_region_end(const char* name, size_t length) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_end")) td_region_end(site);
}

TD_API void td_fortran_region_begin_p(const char* name, size_t length, long long parameter) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_begin_p")) td_region_begin_p(site, parameter);
}

TD_API void td_fortran_region_end_p(const char* name, size_t length, long long parameter) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_end_p")) td_region_end_p(site, parameter);
}

}  // extern "C"
