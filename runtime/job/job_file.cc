#include "runtime/job/job_file.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_file.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

constexpr int kJobFileVersion = 1;
// A size beyond this in a file is refused: the missing-rank list is built from it.
constexpr int64_t kLargestJob = int64_t{1} << 26;

int HistogramBin(double wall_ns) {
  if (!(wall_ns >= 1)) return -1;
  return static_cast<int>(std::floor(4 * std::log2(wall_ns)));
}

void MergeSpread(Spread* into, const Spread& later) {
  if (later.ranks == 0) return;
  if (into->ranks == 0) {
    *into = later;
    return;
  }
  into->min = std::min(into->min, later.min);
  // A tie keeps the lower rank, as Spread::Add does when ranks come in order.
  if (later.max > into->max || (later.max == into->max && later.max_rank < into->max_rank)) {
    into->max = later.max;
    into->max_rank = later.max_rank;
  }
  const double total = static_cast<double>(into->ranks + later.ranks);
  into->mean = into->mean * (static_cast<double>(into->ranks) / total) +
               later.mean * (static_cast<double>(later.ranks) / total);
  into->ranks += later.ranks;
}

std::map<int, uint64_t> HistogramOfRows(const RegionAcrossRanks& r) {
  std::map<int, uint64_t> bins;
  for (const RegionOnRank& on : r.ranks) ++bins[HistogramBin(static_cast<double>(on.wall_ns))];
  return bins;
}

void MergeViews(JobView* into, JobView later, bool keep_rows, std::vector<std::map<int, uint64_t>>* histograms,
                std::vector<std::map<int, uint64_t>> later_histograms) {
  into->size = std::max(into->size, later.size);
  std::vector<int64_t> present;
  std::merge(into->present.begin(), into->present.end(), later.present.begin(), later.present.end(),
             std::back_inserter(present));
  into->present = std::move(present);
  std::vector<int64_t> aborted;
  std::merge(into->aborted.begin(), into->aborted.end(), later.aborted.begin(), later.aborted.end(),
             std::back_inserter(aborted));
  into->aborted = std::move(aborted);
  std::vector<std::pair<int64_t, int>> signaled;
  std::merge(into->signaled.begin(), into->signaled.end(), later.signaled.begin(), later.signaled.end(),
             std::back_inserter(signaled));
  into->signaled = std::move(signaled);
  std::vector<std::pair<int64_t, int64_t>> partial;
  std::merge(into->partial.begin(), into->partial.end(), later.partial.begin(), later.partial.end(),
             std::back_inserter(partial));
  into->partial = std::move(partial);
  into->missing.clear();
  for (int64_t r = 0, i = 0; r < into->size; ++r) {
    while (i < static_cast<int64_t>(into->present.size()) && into->present[i] < r) ++i;
    if (i >= static_cast<int64_t>(into->present.size()) || into->present[i] != r) into->missing.push_back(r);
  }
  for (std::string& host : later.hosts) {
    if (std::find(into->hosts.begin(), into->hosts.end(), host) == into->hosts.end()) {
      into->hosts.push_back(std::move(host));
    }
  }
  absl::flat_hash_map<std::string, size_t> index_of;
  for (size_t i = 0; i < into->regions.size(); ++i) index_of.emplace(into->regions[i].path, i);
  for (size_t k = 0; k < later.regions.size(); ++k) {
    RegionAcrossRanks& region = later.regions[k];
    std::map<int, uint64_t> bins = k < later_histograms.size() ? std::move(later_histograms[k]) : HistogramOfRows(region);
    auto [it, added] = index_of.emplace(region.path, into->regions.size());
    if (added) {
      into->regions.push_back(std::move(region));
      histograms->push_back(std::move(bins));
      continue;
    }
    RegionAcrossRanks& r = into->regions[it->second];
    r.calls += region.calls;
    MergeSpread(&r.wall_ns, region.wall_ns);
    MergeSpread(&r.task_clock_ns, region.task_clock_ns);
    MergeSpread(&r.mpi_share, region.mpi_share);
    r.counts.Add(region.counts);
    for (auto& [node_name, spread] : region.level1) {
      // A plain local: C++20 lets lambdas capture structured bindings, clang 14 does not yet.
      const auto& node = node_name;
      auto at = std::find_if(r.level1.begin(), r.level1.end(), [&](const auto& e) { return e.first == node; });
      if (at == r.level1.end()) {
        r.level1.emplace_back(node, spread);
      } else {
        MergeSpread(&at->second, spread);
      }
    }
    r.ranks.insert(r.ranks.end(), region.ranks.begin(), region.ranks.end());
    std::stable_sort(r.ranks.begin(), r.ranks.end(),
                     [](const RegionOnRank& a, const RegionOnRank& b) { return a.rank < b.rank; });
    SettleRegion(&r);
    for (const auto& [bin, count] : bins) (*histograms)[it->second][bin] += count;
  }
  if (!keep_rows) {
    for (RegionAcrossRanks& r : into->regions) r.ranks.clear();
  }
}

Spread SpreadFromJson(const nlohmann::json& j) {
  Spread s;
  if (j.is_null()) return s;
  s.min = j.at("min").get<double>();
  s.mean = j.at("mean").get<double>();
  s.max = j.at("max").get<double>();
  s.max_rank = j.at("max_rank").get<int64_t>();
  s.ranks = j.at("ranks").get<size_t>();
  return s;
}

// Present ranks as [first, last] runs: a 10,000-rank job that all arrived is one pair.
nlohmann::json RankRuns(const std::vector<int64_t>& ranks) {
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    runs.push_back({ranks[i], ranks[j]});
    i = j + 1;
  }
  return runs;
}

}  // namespace

JobTable EmptyJobTable() {
  JobTable table;
  table.td_version = "";
  return table;
}

JobTable TableOfView(JobView view) {
  JobTable table;
  table.per_rank = true;
  for (const RegionAcrossRanks& r : view.regions) table.histograms.push_back(HistogramOfRows(r));
  table.view = std::move(view);
  return table;
}

absl::StatusOr<JobTable> RankJobTable(const RunData& run, const RunAnalysis* analysis, bool per_rank) {
  std::vector<RunAnalysis> analyses;
  if (analysis != nullptr) analyses.push_back(*analysis);
  TD_ASSIGN_OR_RETURN(JobView view, BuildJobView({run}, {"this rank's recording"}, analyses));
  JobTable table = TableOfView(std::move(view));
  table.td_version = run.td_version;
  table.per_rank = per_rank;
  if (!per_rank) {
    for (RegionAcrossRanks& r : table.view.regions) r.ranks.clear();
  }
  return table;
}

absl::Status MergeJobTables(JobTable* into, JobTable later) {
  into->reduction.messages += later.reduction.messages;
  into->reduction.bytes += later.reduction.bytes;
  into->reduction.largest = std::max(into->reduction.largest, later.reduction.largest);
  if (later.view.present.empty()) return absl::OkStatus();
  if (into->view.present.empty()) {
    const ReductionStats stats = into->reduction;
    *into = std::move(later);
    into->reduction = stats;
    return absl::OkStatus();
  }
  if (into->view.program != later.view.program || into->view.job != later.view.job) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "job tables of %s (job \"%s\") and %s (job \"%s\") do not merge: give the files of one job",
        Printable(into->view.program), Printable(into->view.job), Printable(later.view.program),
        Printable(later.view.job)));
  }
  std::vector<int64_t> both;
  std::set_intersection(into->view.present.begin(), into->view.present.end(), later.view.present.begin(),
                        later.view.present.end(), std::back_inserter(both));
  if (!both.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("rank %d of job \"%s\" is there twice", both.front(), Printable(into->view.job)));
  }
  if (into->td_version.empty()) into->td_version = later.td_version;
  into->per_rank = into->per_rank && later.per_rank;
  MergeViews(&into->view, std::move(later.view), into->per_rank, &into->histograms, std::move(later.histograms));
  return absl::OkStatus();
}

void SettleJobTable(JobTable* table) {
  for (RegionAcrossRanks& r : table->view.regions) {
    if (table->per_rank && !r.ranks.empty()) {
      r.calls = 0;
      r.wall_ns = Spread{};
      r.task_clock_ns = Spread{};
      r.mpi_share = Spread{};
      for (const RegionOnRank& on : r.ranks) {
        r.calls += on.calls;
        r.wall_ns.Add(static_cast<double>(on.wall_ns), on.rank);
        if (on.task_clock_ns) r.task_clock_ns.Add(*on.task_clock_ns, on.rank);
        AddMpiShare(on, &r.mpi_share);
      }
    }
    SettleRegion(&r);
  }
}

std::string JobTableText(const JobTable& table, int indent) {
  const JobView& view = table.view;
  nlohmann::json regions = nlohmann::json::array();
  for (size_t i = 0; i < view.regions.size(); ++i) {
    const RegionAcrossRanks& r = view.regions[i];
    nlohmann::json level1 = nlohmann::json::object();
    for (const auto& [node, s] : r.level1) level1[node] = SpreadJson(s);
    nlohmann::json histogram = nlohmann::json::array();
    if (i < table.histograms.size()) {
      for (const auto& [bin, count] : table.histograms[i]) histogram.push_back({bin, count});
    }
    nlohmann::json region = {{"path", EscapeBytes(r.path)},         {"calls", r.calls},
                             {"wall_ns", SpreadJson(r.wall_ns)},    {"task_clock_ns", SpreadJson(r.task_clock_ns)},
                             {"level1", std::move(level1)},         {"wall_histogram", std::move(histogram)}};
    if (table.per_rank) {
      nlohmann::json rows = nlohmann::json::array();
      for (const RegionOnRank& on : r.ranks) {
        rows.push_back({on.rank, on.calls, on.wall_ns,
                        on.task_clock_ns ? nlohmann::json(*on.task_clock_ns) : nlohmann::json(nullptr)});
        // A 5th member where the rank has MPI times: [ns, calls, bytes] (null
        // without); a 6th where several of its threads ran the region:
        // [threads, thread imbalance] (one thread costs no bytes).
        if (on.mpi) rows.back().push_back({on.mpi->ns, on.mpi->calls, on.mpi->bytes});
        if (on.threads >= 2) {
          if (!on.mpi) rows.back().push_back(nullptr);
          rows.back().push_back({on.threads, on.thread_imbalance ? nlohmann::json(*on.thread_imbalance) : nullptr});
        }
      }
      region["ranks"] = std::move(rows);
    }
    if (r.mpi_share.ranks != 0) region["mpi_share"] = SpreadJson(r.mpi_share);
    if (r.counts.ranks != 0) {  // left out where no rank counted both: older readers need not know
      region["counts"] = {
          {"instructions", r.counts.instructions}, {"cycles", r.counts.cycles}, {"ranks", r.counts.ranks}};
    }
    regions.push_back(std::move(region));
  }
  nlohmann::json hosts = nlohmann::json::array();
  for (const std::string& host : view.hosts) hosts.push_back(EscapeBytes(host));
  const ReductionStats& s = table.reduction;
  nlohmann::json out = {
      {"td_job", kJobFileVersion},
      {"td_version", table.td_version},
      {"program", EscapeBytes(view.program)},
      {"job", EscapeBytes(view.job)},
      {"size", view.size},
      {"ranks_present", RankRuns(view.present)},
      {"hosts", std::move(hosts)},
      {"per_rank", table.per_rank},
      {"reduction",
       {{"messages", s.messages},
        {"bytes", s.bytes},
        {"largest_message_bytes", s.largest},
        {"root_bytes", s.root_bytes},
        {"levels", s.levels},
        {"root_seconds", s.root_seconds}}},
      {"regions", std::move(regions)}};
  if (!view.aborted.empty()) out["ranks_aborted"] = view.aborted;  // left out when none: older readers need not know
  if (!view.signaled.empty()) out["ranks_ended_by_signal"] = view.signaled;
  if (!view.partial.empty()) out["ranks_partial"] = view.partial;
  std::string text = DumpJson(out, indent);
  if (indent >= 0) text += "\n";
  return text;
}

bool IsJobTableJson(const nlohmann::json& json) { return json.is_object() && json.contains("td_job"); }

absl::StatusOr<JobTable> JobTableFromJson(const nlohmann::json& json, const std::string& where) {
  if (!IsJobTableJson(json)) return absl::InvalidArgumentError(Printable(where) + ": not a td job file (no \"td_job\")");
  JobTable table;
  try {
    if (json.at("td_job").get<int>() != kJobFileVersion) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: td_job %s is not a version this td reads (%d)",
                                                        Printable(where), json.at("td_job").dump(), kJobFileVersion));
    }
    table.td_version = json.value("td_version", "");
    JobView& view = table.view;
    view.program = UnescapeBytes(json.at("program").get<std::string>());
    view.job = UnescapeBytes(json.at("job").get<std::string>());
    view.size = json.at("size").get<int64_t>();
    if (view.size < 0 || view.size > kLargestJob) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: size %d is out of range", Printable(where), view.size));
    }
    for (const auto& run : json.at("ranks_present")) {
      const int64_t first = run.at(0).get<int64_t>(), last = run.at(1).get<int64_t>();
      if (first < 0 || last < first || last - first > kLargestJob ||
          (!view.present.empty() && first <= view.present.back())) {
        return absl::InvalidArgumentError(absl::StrFormat("%s: ranks_present: [%d, %d] is out of order or range",
                                                          Printable(where), first, last));
      }
      for (int64_t r = first; r <= last; ++r) view.present.push_back(r);
    }
    for (int64_t r = 0, i = 0; r < view.size; ++r) {
      while (i < static_cast<int64_t>(view.present.size()) && view.present[i] < r) ++i;
      if (i >= static_cast<int64_t>(view.present.size()) || view.present[i] != r) view.missing.push_back(r);
    }
    if (json.contains("ranks_aborted")) {
      for (const auto& rank : json.at("ranks_aborted")) view.aborted.push_back(rank.get<int64_t>());
      std::sort(view.aborted.begin(), view.aborted.end());
    }
    if (json.contains("ranks_ended_by_signal")) {
      for (const auto& pair : json.at("ranks_ended_by_signal")) {
        view.signaled.emplace_back(pair.at(0).get<int64_t>(), pair.at(1).get<int>());
      }
      std::sort(view.signaled.begin(), view.signaled.end());
    }
    if (json.contains("ranks_partial")) {
      for (const auto& pair : json.at("ranks_partial")) {
        view.partial.emplace_back(pair.at(0).get<int64_t>(), pair.at(1).get<int64_t>());
      }
      std::sort(view.partial.begin(), view.partial.end());
    }
    for (const auto& host : json.at("hosts")) view.hosts.push_back(UnescapeBytes(host.get<std::string>()));
    table.per_rank = json.at("per_rank").get<bool>();
    if (json.contains("reduction")) {
      const auto& s = json.at("reduction");
      table.reduction.messages = s.value("messages", uint64_t{0});
      table.reduction.bytes = s.value("bytes", uint64_t{0});
      table.reduction.largest = s.value("largest_message_bytes", uint64_t{0});
      table.reduction.root_bytes = s.value("root_bytes", uint64_t{0});
      table.reduction.levels = s.value("levels", 0);
      table.reduction.root_seconds = s.value("root_seconds", 0.0);
    }
    for (const auto& region : json.at("regions")) {
      RegionAcrossRanks r;
      r.path = UnescapeBytes(region.at("path").get<std::string>());
      r.depth = PathDepth(r.path);
      r.calls = region.at("calls").get<uint64_t>();
      r.wall_ns = SpreadFromJson(region.at("wall_ns"));
      r.task_clock_ns = SpreadFromJson(region.at("task_clock_ns"));
      if (region.contains("mpi_share")) r.mpi_share = SpreadFromJson(region.at("mpi_share"));
      if (region.contains("counts")) {
        const auto& c = region.at("counts");
        r.counts = {c.at("instructions").get<double>(), c.at("cycles").get<double>(), c.at("ranks").get<size_t>()};
      }
      for (const auto& [node, s] : region.at("level1").items()) r.level1.emplace_back(node, SpreadFromJson(s));
      std::map<int, uint64_t> bins;
      for (const auto& bin : region.at("wall_histogram")) bins[bin.at(0).get<int>()] += bin.at(1).get<uint64_t>();
      if (table.per_rank) {
        for (const auto& row : region.at("ranks")) {
          RegionOnRank on;
          on.rank = row.at(0).get<int64_t>();
          on.calls = row.at(1).get<uint64_t>();
          on.wall_ns = row.at(2).get<int64_t>();
          if (!row.at(3).is_null()) on.task_clock_ns = row.at(3).get<double>();
          if (row.size() > 5) {
            on.threads = row.at(5).at(0).get<size_t>();
            if (!row.at(5).at(1).is_null()) on.thread_imbalance = row.at(5).at(1).get<double>();
          }
          if (row.size() > 4 && !row.at(4).is_null()) {
            const auto& m = row.at(4);
            on.mpi = MpiTime{m.at(0).get<int64_t>(), m.at(1).get<uint64_t>(), m.at(2).get<uint64_t>()};
          }
          r.ranks.push_back(on);
        }
      }
      SettleRegion(&r);
      view.regions.push_back(std::move(r));
      table.histograms.push_back(std::move(bins));
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: not a td job file as this td writes it: %s",
                                                      Printable(where), e.what()));
  }
  return table;
}

absl::StatusOr<JobTable> ParseJobTable(const std::string& text, const std::string& where) {
  TD_ASSIGN_OR_RETURN(const nlohmann::json json, ParseJsonText(text, where));
  return JobTableFromJson(json, where);
}

bool IsJobFile(const std::string& path) {
  const absl::StatusOr<nlohmann::json> json = ReadJsonFile(path);
  return json.ok() && IsJobTableJson(*json);
}

absl::StatusOr<JobTable> ReadJobFile(const std::string& path) {
  TD_ASSIGN_OR_RETURN(const nlohmann::json json, ReadJsonFile(path));
  return JobTableFromJson(json, path);
}

std::string FormatJobTableText(const JobTable& table) {
  std::string out = FormatJobText(table.view);
  if (table.per_rank) return out;
  absl::StrAppendFormat(&out,
                        "\nper-rank rows not kept (TD_MPI_RANKS; docs/hpc.md): wall time over the ranks per region, "
                        "ranks per quarter-octave bin\n");
  for (size_t i = 0; i < table.view.regions.size() && i < table.histograms.size(); ++i) {
    absl::StrAppendFormat(&out, "%s\n", Printable(table.view.regions[i].path));
    for (const auto& [bin, count] : table.histograms[i]) {
      if (bin < 0) {
        absl::StrAppendFormat(&out, "  %23s %8d\n", "0", count);
        continue;
      }
      const auto low = static_cast<int64_t>(std::ceil(std::exp2(bin / 4.0)));
      const auto high = static_cast<int64_t>(std::ceil(std::exp2((bin + 1) / 4.0)));
      absl::StrAppendFormat(&out, "  %10s – %10s %8d\n", HumanDuration(low), HumanDuration(high), count);
    }
  }
  return out;
}

absl::StatusOr<JobTable> CombineJobTables(std::vector<JobTable> tables, const std::vector<std::string>& names) {
  if (tables.empty()) return absl::InvalidArgumentError("no files");
  std::map<int64_t, size_t> source_of_rank;
  size_t first = tables.size();
  for (size_t i = 0; i < tables.size(); ++i) {
    const JobView& v = tables[i].view;
    if (v.present.empty()) continue;
    if (first == tables.size()) first = i;
    const JobView& f = tables[first].view;
    if (v.program != f.program || v.job != f.job) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is %s of job \"%s\", but %s is %s of job \"%s\": give the files of one job", Printable(names[i]),
          Printable(v.program), Printable(v.job), Printable(names[first]), Printable(f.program), Printable(f.job)));
    }
    for (int64_t rank : v.present) {
      if (const auto [it, added] = source_of_rank.emplace(rank, i); !added) {
        return absl::InvalidArgumentError(absl::StrFormat("%s and %s both hold rank %d of job \"%s\"",
                                                          Printable(names[it->second]), Printable(names[i]), rank,
                                                          Printable(v.job)));
      }
    }
  }
  std::vector<size_t> order(tables.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto lowest = [&](size_t i) { return tables[i].view.present.empty() ? -1 : tables[i].view.present.front(); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lowest(a) < lowest(b); });
  JobTable all = EmptyJobTable();
  for (size_t i : order) TD_RETURN_IF_ERROR(MergeJobTables(&all, std::move(tables[i])));
  SettleJobTable(&all);
  return all;
}

}  // namespace td
