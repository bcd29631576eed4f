// Region names and their small integer ids, shared by all threads.
#ifndef TD_RUNTIME_REGIONS_REGION_REGISTRY_H_
#define TD_RUNTIME_REGIONS_REGION_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <mutex>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "td/td.h"

namespace td {

class RegionRegistry {
 public:
  // Hashes the name under a lock: the slow path, once per call site.
  uint32_t IdForName(std::string_view name);

  // The call site of a dynamic name (td_region_begin_name): one per name,
  // registered, kept for the life of the process, so that a warning about a
  // name is printed once. Hashes the name under the lock on every call.
  td_site* SiteForName(std::string_view name);

  // The hot path: after a site's first use this is one atomic load.
  uint32_t IdForSite(td_site* site) {
    const int cached = __atomic_load_n(&site->region_id_plus_one, __ATOMIC_ACQUIRE);
    if (__builtin_expect(cached != 0, 1)) return static_cast<uint32_t>(cached - 1);
    return RegisterSite(site);
  }

  // Where a marker site is, "file:line", as copied when it was registered:
  // its library may have been unloaded since (dlclose), so the site itself is
  // not read. Every site of an open frame was registered; a site not found
  // is a dynamic name's, which the registry keeps: "(dynamic name)".
  std::string SiteLocation(const td_site* site) const;

  // The region "base[parameter]" of a parameterised site: slow path, once per
  // value and thread (the thread caches the id).
  uint32_t IdForParameter(uint32_t base, long long parameter);

  struct Parameter {
    uint32_t base = 0;
    long long value = 0;
  };
  // The id of `name` if it is registered ("" as the empty name's stand-in);
  // registers nothing. Takes the lock.
  std::optional<uint32_t> Find(std::string_view name) const;
  std::string Name(uint32_t id) const;
  std::vector<std::string> AllNames() const;
  // Per region id: its base region and parameter, when it has one.
  std::vector<std::optional<Parameter>> AllParameters() const;

  // td_region_sample: times and counts of region `name` read on one call in
  // `every` (1: every call), whatever TD_SAMPLE says; "name[value]" regions
  // of a parameterised `name` follow it. Only before the region's first
  // BEGIN on any thread, so that all its calls share one interval: false
  // (nothing changed) after it.
  bool SetSampleEvery(std::string_view name, uint32_t every);
  // A call path of region `id` is entered for the first time on some thread:
  // its interval (0: the run's TD_SAMPLE), fixed from now on. Takes the
  // lock: callers ask only when AnyOwnInterval().
  uint32_t SampleEveryOfNewNode(uint32_t id);
  // Whether td_region_sample ever set an interval: until it does, a new
  // node needs nothing from the registry (no lock per thread and node).
  bool AnyOwnInterval() const { return any_own_interval_.load(std::memory_order_acquire); }

  // At most `max` distinct names; the ones after share kOverflowName.
  void SetMaxNames(size_t max) {
    std::lock_guard<std::mutex> lock(mu_);
    max_names_ = max;
  }
  static constexpr std::string_view kOverflowName = "(names beyond TD_MAX_NAMES)";
  // Some name went to kOverflowName: for the one line at exit.
  bool bound_reached() const { return bound_reached_.load(std::memory_order_relaxed); }

  // fork() must not leave the lock held in the child.
  void LockForFork() { mu_.lock(); }
  void UnlockAfterFork() { mu_.unlock(); }

 private:
  uint32_t RegisterSite(td_site* site);
  uint32_t IdForNameLocked(std::string_view name);

  // std::mutex rather than absl::Mutex throughout the runtime: Debian's
  // abseil is built without TSan, which then cannot see its synchronisation.
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, uint32_t> ids_;  // guarded by mu_
  std::vector<std::string> names_;                  // guarded by mu_
  std::vector<std::optional<Parameter>> parameters_;  // guarded by mu_, parallel to names_
  std::vector<uint32_t> sample_every_;                // guarded by mu_, parallel to names_; 0 = TD_SAMPLE's
  // A marker site of the region was registered, or a node of it made since
  // an interval was set: its interval is fixed.
  std::vector<bool> entered_;                         // guarded by mu_, parallel to names_
  std::atomic<bool> any_own_interval_{false};
  size_t max_names_ = SIZE_MAX;  // guarded by mu_
  std::atomic<bool> bound_reached_{false};
  // Dynamic names' sites and the names they point to; deques never move them.
  std::deque<std::string> dynamic_names_;              // guarded by mu_
  std::deque<td_site> dynamic_sites_;                  // guarded by mu_
  absl::flat_hash_map<uint32_t, td_site*> dynamic_site_of_;  // guarded by mu_
  // Marker sites with a line (not dynamic names'): where each is.
  absl::flat_hash_map<const td_site*, std::string> site_locations_;  // guarded by mu_
};

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_REGION_REGISTRY_H_
