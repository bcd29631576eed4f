#include "runtime/regions/region_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "runtime/base/diagnostics.h"
#include "runtime/base/byte_strings.h"

namespace td {
namespace {

// What an empty name is recorded as: a region needs a name in paths and reports.
constexpr std::string_view kEmptyName = "(empty name)";

}  // namespace

uint32_t RegionRegistry::IdForName(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  return IdForNameLocked(name);
}

td_site* RegionRegistry::SiteForName(std::string_view name) {
  if (name.empty()) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      ReportProblem(Severity::kWarning, absl::StrFormat("td_region_begin_name/td_region_end_name with an empty name: "
                                                 "recorded as \"%s\"",
                                                 kEmptyName));
    }
    name = kEmptyName;
  }
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t id = IdForNameLocked(name);
  entered_[id] = true;  // a marker names it: its interval is fixed from here
  auto [it, inserted] = dynamic_site_of_.try_emplace(id, nullptr);
  if (inserted) {
    const std::string& stored = dynamic_names_.emplace_back(name);
    it->second = &dynamic_sites_.emplace_back(
        td_site{stored.c_str(), "(dynamic name)", 0, static_cast<int>(id + 1), 0});
  }
  return it->second;
}

uint32_t RegionRegistry::IdForNameLocked(std::string_view name) {
  if (names_.size() >= max_names_ && !ids_.contains(absl::string_view(name.data(), name.size()))) {
    bound_reached_.store(true, std::memory_order_relaxed);
    name = kOverflowName;  // itself one name beyond the bound
  }
  auto [it, inserted] = ids_.try_emplace(std::string(name), static_cast<uint32_t>(names_.size()));
  if (inserted) {
    names_.emplace_back(name);
    parameters_.emplace_back();
    sample_every_.push_back(0);
    entered_.push_back(false);
  }
  return it->second;
}

uint32_t RegionRegistry::IdForParameter(uint32_t base, long long parameter) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = absl::StrCat(base < names_.size() ? names_[base] : "?", "[", parameter, "]");
  if (names_.size() >= max_names_ && !ids_.contains(absl::string_view(name.data(), name.size()))) {
    const uint32_t overflow = IdForNameLocked(name);  // counts it, gives the shared name's id
    entered_[overflow] = true;
    return overflow;
  }
  auto [it, inserted] = ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (inserted) {
    names_.push_back(name);
    parameters_.push_back(Parameter{base, parameter});
    sample_every_.push_back(base < sample_every_.size() ? sample_every_[base] : 0);
    entered_.push_back(false);
  }
  // A value's first use is a marker's: the value and its base are fixed.
  entered_[it->second] = true;
  if (base < entered_.size()) entered_[base] = true;
  return it->second;
}

bool RegionRegistry::SetSampleEvery(std::string_view name, uint32_t every) {
  if (name.empty()) name = kEmptyName;
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t id = IdForNameLocked(name);
  if (entered_[id]) return false;
  sample_every_[id] = every;
  any_own_interval_.store(true, std::memory_order_release);
  // Parameterised regions made from it before (no calls yet) follow it too.
  for (size_t r = 0; r < parameters_.size(); ++r) {
    if (parameters_[r] && parameters_[r]->base == id && !entered_[r]) sample_every_[r] = every;
  }
  return true;
}

uint32_t RegionRegistry::SampleEveryOfNewNode(uint32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (id >= names_.size()) return 0;
  entered_[id] = true;
  // A parameterised region's base counts as entered: its interval is now
  // the one this value's calls were read with.
  if (parameters_[id]) entered_[parameters_[id]->base] = true;
  return sample_every_[id];
}


std::vector<std::optional<RegionRegistry::Parameter>> RegionRegistry::AllParameters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return parameters_;
}

uint32_t RegionRegistry::RegisterSite(td_site* site) {
  std::string_view name = site->name != nullptr ? site->name : "";
  if (name.empty() && __atomic_exchange_n(&site->warned, 1, __ATOMIC_RELAXED) == 0) {
    ReportProblem(Severity::kWarning, absl::StrFormat("a region at %s:%d has %s name; recorded as \"%s\"",
                                               Printable(site->file != nullptr ? site->file : "?"), site->line,
                                               site->name == nullptr ? "a null" : "an empty", kEmptyName));
  }
  if (name.empty()) name = kEmptyName;
  // Copied now: the site may live in a library unloaded while its region is open.
  std::string location;
  if (site->line > 0) location = absl::StrFormat("%s:%d", site->file != nullptr ? site->file : "?", site->line);
  uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = IdForNameLocked(name);
    entered_[id] = true;  // a marker site names it: its interval is fixed from here
    if (!location.empty()) site_locations_.insert_or_assign(site, std::move(location));
  }
  // Several threads may race here; they all store the same value.
  __atomic_store_n(&site->region_id_plus_one, static_cast<int>(id + 1), __ATOMIC_RELEASE);
  return id;
}

std::string RegionRegistry::SiteLocation(const td_site* site) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = site_locations_.find(site);
  return it != site_locations_.end() ? it->second : "(dynamic name)";
}

std::optional<uint32_t> RegionRegistry::Find(std::string_view name) const {
  if (name.empty()) name = kEmptyName;
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = ids_.find(absl::string_view(name.data(), name.size()));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::string RegionRegistry::Name(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return id < names_.size() ? names_[id] : std::string("?");
}

std::vector<std::string> RegionRegistry::AllNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  return names_;
}

}  // namespace td
