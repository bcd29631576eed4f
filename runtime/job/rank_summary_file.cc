#include "runtime/job/rank_summary_file.h"

#include <exception>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/recorded/run_file.h"

#ifndef TD_VERSION_STRING
#define TD_VERSION_STRING "0.0.0"
#endif

namespace td {
namespace {

using nlohmann::json;

// What a summary depends on besides the file: the loader's settings that
// change a rank's rows, and td's own version (its definitions).
json MadeWith(const AnalysisSettings& settings) {
  return {{"td_version", TD_VERSION_STRING},
          {"compensated", settings.compensate},
          {"uarch", settings.uarch},
          {"metrics_dir", settings.metrics_dir}};
}

template <typename T>
json OrNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json RegionRow(const RankRegion& region) {
  const RegionOnRank& on = region.on_rank;
  json level1 = json::array();
  for (const auto& [name, fraction] : region.level1) level1.push_back({name, fraction});
  json mpi = on.mpi ? json::array({on.mpi->ns, on.mpi->calls, on.mpi->bytes}) : json(nullptr);
  json counts = region.counts.ranks == 0
                    ? json(nullptr)
                    : json::array({region.counts.instructions, region.counts.cycles, region.counts.ranks});
  return json::array({region.path, on.calls, on.wall_ns, OrNull(on.task_clock_ns), std::move(mpi), on.threads,
                      OrNull(on.thread_imbalance), std::move(level1), std::move(counts)});
}

// Reading: any value of the wrong kind throws nlohmann's type_error, which
// FindRankSummary takes as "no summary".
template <typename T>
std::optional<T> Optional(const json& value) {
  if (value.is_null()) return std::nullopt;
  return value.get<T>();
}

RankRegion RegionOfRow(const json& row, int64_t rank) {
  if (!row.is_array() || row.size() != 9) throw std::invalid_argument("a region row");
  RankRegion region;
  region.path = row[0].get<std::string>();
  RegionOnRank& on = region.on_rank;
  on.rank = rank;
  on.calls = row[1].get<uint64_t>();
  on.wall_ns = row[2].get<int64_t>();
  on.task_clock_ns = Optional<double>(row[3]);
  if (!row[4].is_null()) {
    if (row[4].size() != 3) throw std::invalid_argument("mpi");
    on.mpi = MpiTime{row[4][0].get<int64_t>(), row[4][1].get<uint64_t>(), row[4][2].get<uint64_t>()};
  }
  on.threads = row[5].get<size_t>();
  on.thread_imbalance = Optional<double>(row[6]);
  for (const json& node : row[7]) {
    if (node.size() != 2) throw std::invalid_argument("level1");
    region.level1.emplace_back(node[0].get<std::string>(), node[1].get<double>());
  }
  if (!row[8].is_null()) {
    if (row[8].size() != 3) throw std::invalid_argument("counts");
    region.counts = {row[8][0].get<double>(), row[8][1].get<double>(), row[8][2].get<size_t>()};
  }
  return region;
}

RankSummary SummaryOfJson(const json& j, const std::string& file) {
  RankSummary summary;
  summary.file = file;
  summary.program = j.at("program").get<std::string>();
  absl::StatusOr<MpiRank> rank = MpiRankFromJson(j.at("mpi"));
  if (!rank.ok()) throw std::invalid_argument(std::string(rank.status().message()));
  summary.mpi = *rank;
  summary.partial_after_ns = Optional<int64_t>(j.at("partial_after_ns"));
  const json& regions = j.at("regions");
  if (!regions.is_array()) throw std::invalid_argument("regions");
  summary.regions.reserve(regions.size());
  for (const json& row : regions) summary.regions.push_back(RegionOfRow(row, rank->rank));
  return summary;
}

}  // namespace

std::string RankSummaryLineOf(const RunData& run, const AnalysisSettings& settings) {
  // Definitions from a folder (TD_METRICS_DIR) may change, or resolve
  // elsewhere, before the job is reported: such ranks are read whole.
  if (!run.mpi || !settings.metrics_dir.empty()) return "";
  size_t parts = 0;
  for (const Region& region : run.regions) parts += region.threads.size();
  if (parts > kMostSummarizedParts) return "";
  try {
    // As the job loader makes a rank's rows: the marker cost out of a copy
    // (the file keeps raw values), then analysed where there are hardware
    // counts (without them there is no tree to take fractions from).
    RunData shown = run;
    if (settings.compensate) TakeOutMarkerCost(&shown);
    std::optional<RunAnalysis> analysis;
    if (HasHardwareCounts(shown)) {
      AnalysisPipeline pipeline(settings);
      absl::StatusOr<RunAnalysis> analyzed = pipeline.Analyze(shown);
      if (!analyzed.ok()) return "";  // the loader then says why, reading the file
      analysis = *std::move(analyzed);
    }
    const RankSummary summary = SummarizeRank(shown, analysis ? &*analysis : nullptr, "");
    json regions = json::array();
    for (const RankRegion& region : summary.regions) regions.push_back(RegionRow(region));
    json j = {{"made_with", MadeWith(settings)},
              {"program", summary.program},
              {"mpi", MpiRankToJson(*summary.mpi)},  // as the run file's own
              {"partial_after_ns", OrNull(summary.partial_after_ns)},
              {"regions", std::move(regions)}};
    return j.dump();  // throws on a string that is not UTF-8: then no summary
  } catch (...) {
    return "";
  }
}

FoundRankSummary FindRankSummary(std::string_view head, const AnalysisSettings& settings, const std::string& file) {
  FoundRankSummary found;
  if (!settings.metrics_dir.empty()) return found;  // as RankSummaryLineOf: read whole
  // td writes the key at the start of a line, one space in, before "regions".
  const std::string key = "\n \"" + std::string(kRankSummaryKey) + "\": ";
  // A name's newline is escaped in the file: the key at a line's start is
  // the member's, and only before "regions" is it where td writes it.
  const size_t at = head.find(key);
  if (at == std::string_view::npos || head.substr(0, at).find("\n \"regions\": ") != std::string_view::npos) {
    return found;
  }
  const size_t start = at + key.size();
  const size_t end = head.find('\n', start);
  if (end == std::string_view::npos) {
    found.need_more = true;
    return found;
  }
  std::string_view line = head.substr(start, end - start);
  if (!line.empty() && line.back() == ',') line.remove_suffix(1);
  try {
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("made_with", json()) != MadeWith(settings)) return found;
    found.summary = SummaryOfJson(j, file);
  } catch (const std::exception&) {
    found.summary.reset();  // malformed: the file is read whole
  }
  return found;
}

}  // namespace td
