// See name_cache.h. Moved here from bindings/fortran/td_fortran.cc so that
// the compatibility layer (bindings/likwid, bindings/papi) caches names the
// same way; C strings use the same table with a length that no Fortran
// string has.
#include "bindings/common/name_cache.h"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

namespace td::bindings {
namespace {

// The length recorded for a C string: compared by content up to its NUL.
constexpr size_t kCString = SIZE_MAX;

// The sites' file. They have no line (0), so the runtime's warnings about
// them (an END without its BEGIN) say "(dynamic name)", as for
// td_region_begin_name(), where a C marker says file:line.
constexpr const char kFile[] = "(dynamic name)";

// A name that cannot be a td region (it holds a NUL byte): markers with it
// are ignored; this entry only marks it as already warned about.
NamedSite g_rejected = {{"", kFile, 0, 0, 1}, 0, UINT32_MAX};

struct Slot {
  const char* address;  // null: empty
  size_t length;        // the Fortran length, trailing blanks included; kCString for C
  NamedSite* site;
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

std::unordered_map<std::string, NamedSite*>& Sites() {  // guarded by SitesMutex()
  static auto* sites = new std::unordered_map<std::string, NamedSite*>;
  return *sites;
}
std::atomic<uint32_t> g_site_count{0};

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

// Whether the string still spells the slot's name: for C, the same bytes up
// to the NUL; for Fortran, the site's bytes, then blanks only.
inline bool Spells(const char* name, size_t length, const NamedSite& site) {
  if (length == kCString) return std::strcmp(name, site.site.name) == 0;
  if (length < site.length || std::memcmp(name, site.site.name, site.length) != 0) return false;
  for (size_t i = site.length; i < length; i += sizeof kBlanks) {
    const size_t n = length - i < sizeof kBlanks ? length - i : sizeof kBlanks;
    if (std::memcmp(name + i, kBlanks, n) != 0) return false;
  }
  return true;
}

void Warn(const char* what, const char* from, const std::string& name, const char* problem) {
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
  std::fprintf(stderr, "td: warning: %s(\"%s\") from %s: %s; ignored\n", what, shown.c_str(), from, problem);
}

// The process-wide site of a name; the first sight of a bad name warns once
// for the whole process.
NamedSite* SiteForName(const char* name, size_t length, const char* what, const char* from) {
  std::string key(name, length);
  pthread_once(&g_atfork_once, RegisterAtFork);
  std::lock_guard<std::mutex> lock(SitesMutex());
  auto [it, inserted] = Sites().try_emplace(key, nullptr);
  if (!inserted) return it->second;
  if (std::memchr(name, '\0', length) != nullptr) {
    Warn(what, from, key, "a td region name cannot hold a NUL byte (char(0))");
    it->second = &g_rejected;
    return it->second;
  }
  char* copy = static_cast<char*>(std::malloc(length + 1));
  auto* site = new (std::nothrow) NamedSite;
  if (copy == nullptr || site == nullptr) {
    std::free(copy);
    delete site;
    Sites().erase(it);
    return &g_rejected;
  }
  std::memcpy(copy, name, length);
  copy[length] = '\0';
  site->site = td_site{copy, kFile, 0, 0, 0};
  site->length = length;
  site->index = g_site_count.load(std::memory_order_relaxed);
  g_site_count.store(site->index + 1, std::memory_order_release);
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

NamedSite* SlowSite(const char* name, size_t length, const char* what, const char* from) {
  Table* table = &t_table;
  const size_t name_length = length == kCString ? std::strlen(name) : TrimmedLength(name, length);
  NamedSite* site = SiteForName(name, name_length, what, from);
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
  slot.site = site;  // a new string, or new contents at a known address
  return site;
}

inline NamedSite* Lookup(const char* name, size_t length, const char* what, const char* from) {
  const Table& table = t_table;
  if (__builtin_expect(table.slots != nullptr, 1)) {
    size_t i = HashKey(name, length) & table.mask;
    for (;;) {
      const Slot& slot = table.slots[i];
      if (slot.address == nullptr) break;
      if (slot.address == name && slot.length == length) {
        if (__builtin_expect(Spells(name, length, *slot.site), 1)) return slot.site;
        break;
      }
      i = (i + 1) & table.mask;
    }
  }
  NamedSite* site = SlowSite(name, length, what, from);
  return site == &g_rejected ? nullptr : site;
}

}  // namespace

NamedSite* SiteForFortran(const char* name, size_t length, const char* what, const char* from) {
  if (__builtin_expect(name == nullptr, 0)) {  // a zero-length string may come without storage
    name = "";
    length = 0;
  }
  if (__builtin_expect(length == kCString, 0)) --length;  // cannot happen; keeps the keys apart
  return Lookup(name, length, what, from);
}

NamedSite* SiteForC(const char* name) {
  if (__builtin_expect(name == nullptr, 0)) return nullptr;
  return Lookup(name, kCString, "", "C");  // a C string holds no NUL: never rejected
}

uint32_t SiteCount() { return g_site_count.load(std::memory_order_acquire); }

}  // namespace td::bindings
