#include "runtime/regions/region_registry.h"

#include "absl/strings/str_cat.h"

namespace td {

uint32_t RegionRegistry::IdForName(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = ids_.try_emplace(std::string(name), static_cast<uint32_t>(names_.size()));
  if (inserted) {
    names_.emplace_back(name);
    parameters_.emplace_back();
  }
  return it->second;
}

uint32_t RegionRegistry::IdForParameter(uint32_t base, long long parameter) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = absl::StrCat(base < names_.size() ? names_[base] : "?", "[", parameter, "]");
  auto [it, inserted] = ids_.try_emplace(name, static_cast<uint32_t>(names_.size()));
  if (inserted) {
    names_.push_back(name);
    parameters_.push_back(Parameter{base, parameter});
  }
  return it->second;
}

std::vector<std::optional<RegionRegistry::Parameter>> RegionRegistry::AllParameters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return parameters_;
}

uint32_t RegionRegistry::RegisterSite(td_site* site) {
  const uint32_t id = IdForName(site->name != nullptr ? site->name : "(null)");
  // Several threads may race here; they all store the same value.
  __atomic_store_n(&site->region_id_plus_one, static_cast<int>(id + 1), __ATOMIC_RELEASE);
  return id;
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
