#include "tools/td/region_lookup.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"
#include "tools/td/cli.h"

namespace td::tool {

int FindRegion(const RunData& run, const std::string& wanted) {
  int by_name = -1;
  int named = 0;
  for (size_t r = 0; r < run.regions.size(); ++r) {
    if (run.regions[r].path == wanted) return static_cast<int>(r);
    if (run.regions[r].name == wanted) {
      by_name = static_cast<int>(r);
      ++named;
    }
  }
  return named == 1 ? by_name : -1;
}

bool NamesARegion(const RunData& run, const std::string& wanted) {
  for (const Region& region : run.regions) {
    if (region.path == wanted || region.name == wanted) return true;
  }
  return false;
}

std::string NoRegion(const std::string& file, const RunData& run, const std::string& wanted) {
  if (NamesARegion(run, wanted)) {
    return absl::StrFormat("%s: several regions are named \"%s\"; give its path", file, Printable(wanted));
  }
  std::vector<std::string> candidates;
  for (const Region& region : run.regions) {
    candidates.push_back(region.path);
    if (region.name != region.path) candidates.push_back(region.name);
  }
  std::string hint = cli::DidYouMean(wanted, candidates);
  if (hint.empty() && !candidates.empty()) {
    // Not a likely typo: still the nearest, so that the line says what to type.
    const std::string lower = absl::AsciiStrToLower(wanted);
    const std::string* nearest = &candidates.front();
    for (const std::string& c : candidates) {
      if (EditDistance(lower, absl::AsciiStrToLower(c)) < EditDistance(lower, absl::AsciiStrToLower(*nearest))) {
        nearest = &c;
      }
    }
    hint = "; the nearest is " + *nearest;
  }
  if (candidates.empty()) hint = " (the run has no regions)";
  return absl::StrFormat("%s: no region \"%s\"%s", file, Printable(wanted), Printable(hint));
}

}  // namespace td::tool
