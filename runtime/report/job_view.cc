#include "runtime/report/job_view.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/base/byte_strings.h"
#include "runtime/report/csv_field.h"
#include "runtime/report/software_metrics.h"
#include "runtime/report/text_report.h"

namespace td {
namespace {

std::optional<double> TaskClockNs(const RunData& run, const Region& region) {
  for (const SoftwareMetric& m : RegionSoftwareMetrics(run, region)) {
    if (m.key == "task-clock") return m.value;
  }
  return std::nullopt;
}

// Right-aligned in `width` columns: "µs" is one column but two bytes.
std::string Column(const std::string& text, size_t width) {
  size_t columns = 0;
  for (unsigned char c : text) columns += (c & 0xC0) != 0x80;
  return std::string(width > columns ? width - columns : 0, ' ') + text;
}

int Depth(const std::string& path) { return static_cast<int>(std::count(path.begin(), path.end(), '/')); }

// The ranks' files must be one job's: same program and job, each rank once.
absl::Status CheckOneJob(const std::vector<RunData>& runs, const std::vector<std::string>& files) {
  std::map<int64_t, size_t> file_of_rank;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunData& run = runs[i];
    if (!run.mpi) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is not a rank of an MPI job (no \"mpi\" in it); several files are reported together only as the "
          "ranks of one job (`td compare` compares separate runs)",
          Printable(files[i])));
    }
    const RunData& first = runs.front();
    if (run.program.name != first.program.name || run.mpi->job != first.mpi->job) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is %s of job \"%s\", but %s is %s of job \"%s\": give the files of one job", Printable(files[i]),
          Printable(run.program.name), Printable(run.mpi->job), Printable(files[0]), Printable(first.program.name),
          Printable(first.mpi->job)));
    }
    if (const auto [it, added] = file_of_rank.emplace(run.mpi->rank, i); !added) {
      return absl::InvalidArgumentError(absl::StrFormat("%s and %s are both rank %d of job \"%s\"",
                                                        Printable(files[it->second]), Printable(files[i]),
                                                        run.mpi->rank, Printable(run.mpi->job)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void Spread::Add(double value, int64_t rank) {
  if (ranks == 0 || value < min) min = value;
  if (ranks == 0 || value > max) {
    max = value;
    max_rank = rank;
  }
  mean += (value - mean) / static_cast<double>(++ranks);
}

absl::StatusOr<JobView> BuildJobView(const std::vector<RunData>& runs, const std::vector<std::string>& files,
                                     const std::vector<RunAnalysis>& analyses) {
  if (runs.empty()) return absl::InvalidArgumentError("no files");
  if (absl::Status one_job = CheckOneJob(runs, files); !one_job.ok()) return one_job;
  // Ranks in order, whatever order the files came in.
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return runs[a].mpi->rank < runs[b].mpi->rank; });

  JobView view;
  view.program = runs.front().program.name;
  view.job = runs.front().mpi->job;
  for (const RunData& run : runs) view.size = std::max(view.size, run.mpi->size);
  std::set<int64_t> present;
  for (size_t i : order) {
    const MpiRank& mpi = *runs[i].mpi;
    view.present.push_back(mpi.rank);
    present.insert(mpi.rank);
    if (std::find(view.hosts.begin(), view.hosts.end(), mpi.host) == view.hosts.end()) view.hosts.push_back(mpi.host);
  }
  for (int64_t r = 0; r < view.size; ++r) {
    if (present.count(r) == 0) view.missing.push_back(r);
  }

  // Regions are matched by path. Parents come before children in every file,
  // so taking paths in first-seen order keeps that.
  absl::flat_hash_map<std::string, size_t> index_of;
  for (size_t i : order) {
    const RunData& run = runs[i];
    const int64_t rank = run.mpi->rank;
    for (size_t r = 0; r < run.regions.size(); ++r) {
      const Region& region = run.regions[r];
      auto [it, added] = index_of.emplace(region.path, view.regions.size());
      if (added) {
        RegionAcrossRanks across;
        across.path = region.path;
        across.depth = Depth(region.path);
        view.regions.push_back(std::move(across));
      }
      RegionAcrossRanks& across = view.regions[it->second];
      const RegionTotals totals = Totals(region, run.layout.events.size());
      RegionOnRank on_rank{rank, totals.calls, totals.wall_inclusive_ns, TaskClockNs(run, region)};
      across.calls += on_rank.calls;
      across.wall_ns.Add(static_cast<double>(on_rank.wall_ns), rank);
      if (on_rank.task_clock_ns) across.task_clock_ns.Add(*on_rank.task_clock_ns, rank);
      across.ranks.push_back(on_rank);
      if (i < analyses.size() && analyses[i].HasTrees() && r < analyses[i].regions.size()) {
        for (const TreeNode& node : analyses[i].regions[r].tree) {
          if (node.level != 1 || !node.value) continue;
          auto spread = std::find_if(across.level1.begin(), across.level1.end(),
                                     [&](const auto& entry) { return entry.first == node.name; });
          if (spread == across.level1.end()) {
            across.level1.emplace_back(node.name, Spread{});
            spread = std::prev(across.level1.end());
          }
          spread->second.Add(*node.value, rank);
        }
      }
    }
  }
  for (RegionAcrossRanks& across : view.regions) {
    across.imbalance = across.wall_ns.mean > 0 ? across.wall_ns.max / across.wall_ns.mean : 1;
    across.slowest_rank = across.wall_ns.max_rank;
  }
  return view;
}

std::string FormatJobText(const JobView& view) {
  std::string out = absl::StrFormat("td job report: %s, job %s, %d rank%s", Printable(view.program),
                                    view.job.empty() ? "(unnamed)" : Printable(view.job), view.present.size(),
                                    view.present.size() == 1 ? "" : "s");
  if (view.size > 0) absl::StrAppendFormat(&out, " of %d", view.size);
  absl::StrAppendFormat(&out, " on %d host%s (%s)\n", view.hosts.size(), view.hosts.size() == 1 ? "" : "s",
                        Printable(absl::StrJoin(view.hosts, ", ")));
  if (!view.missing.empty()) {
    absl::StrAppendFormat(&out, "missing ranks (no file given for them): %s\n", absl::StrJoin(view.missing, ", "));
  }
  out += "\nimbalance = slowest rank's wall time / mean over the ranks that ran the region\n\n";
  absl::StrAppendFormat(&out, "%-32s %5s %9s %10s %10s %10s %7s %9s %12s %12s\n", "region", "ranks", "calls",
                        "wall min", "wall mean", "wall max", "slowest", "imbalance", "task mean", "task max");
  for (const RegionAcrossRanks& r : view.regions) {
    const std::string name = std::string(2 * r.depth, ' ') + Printable(r.path.substr(r.path.rfind('/') + 1));
    absl::StrAppendFormat(
        &out, "%-32s %5d %9d %s %s %s %7s %9.2f %s %s\n", name, r.ranks.size(), r.calls,
        Column(HumanDuration(static_cast<int64_t>(r.wall_ns.min)), 10),
        Column(HumanDuration(static_cast<int64_t>(r.wall_ns.mean)), 10),
        Column(HumanDuration(static_cast<int64_t>(r.wall_ns.max)), 10), absl::StrCat("rank ", r.slowest_rank),
        r.imbalance,
        Column(r.task_clock_ns.ranks ? HumanDuration(static_cast<int64_t>(r.task_clock_ns.mean)) : "—", 12),
        Column(r.task_clock_ns.ranks ? HumanDuration(static_cast<int64_t>(r.task_clock_ns.max)) : "—", 12));
  }
  bool any_tree = false;
  for (const RegionAcrossRanks& r : view.regions) any_tree |= !r.level1.empty();
  if (!any_tree) {
    out += "\nno Top-Down trees: the ranks' files hold no hardware counts (`td report FILE` says why)\n";
    return out;
  }
  out += "\nLevel 1 across ranks (min / mean / max of each fraction; the rank with the max)\n";
  for (const RegionAcrossRanks& r : view.regions) {
    if (r.level1.empty()) continue;
    absl::StrAppendFormat(&out, "%s\n", Printable(r.path));
    for (const auto& [node, spread] : r.level1) {
      absl::StrAppendFormat(&out, "  %-20s %5.1f%% %5.1f%% %5.1f%%  (rank %d)\n", node, 100 * spread.min,
                            100 * spread.mean, 100 * spread.max, spread.max_rank);
    }
  }
  return out;
}

std::string FormatJobCsv(const JobView& view) {
  std::string out = "path,rank,calls,wall_ns,task_clock_ns,imbalance,slowest_rank\n";
  for (const RegionAcrossRanks& r : view.regions) {
    for (const RegionOnRank& on : r.ranks) {
      absl::StrAppendFormat(&out, "%s,%d,%d,%d,%s,,\n", CsvField(r.path), on.rank, on.calls, on.wall_ns,
                            on.task_clock_ns ? absl::StrCat(SoftwareIntegerValue(*on.task_clock_ns)) : "");
    }
    absl::StrAppendFormat(&out, "%s,all,%d,%d,%s,%.4f,%d\n", CsvField(r.path), r.calls,
                          SoftwareIntegerValue(r.wall_ns.max),
                          r.task_clock_ns.ranks ? absl::StrCat(SoftwareIntegerValue(r.task_clock_ns.mean * r.task_clock_ns.ranks)) : "",
                          r.imbalance, r.slowest_rank);
  }
  return out;
}

namespace {

// Region paths of both jobs, A's order first, with each job's entry or null.
std::vector<std::pair<const RegionAcrossRanks*, const RegionAcrossRanks*>> PairRegions(const JobView& a,
                                                                                     const JobView& b) {
  std::vector<std::pair<const RegionAcrossRanks*, const RegionAcrossRanks*>> pairs;
  absl::flat_hash_map<std::string, size_t> at;
  for (const RegionAcrossRanks& r : a.regions) {
    at.emplace(r.path, pairs.size());
    pairs.push_back({&r, nullptr});
  }
  for (const RegionAcrossRanks& r : b.regions) {
    if (auto it = at.find(r.path); it != at.end()) {
      pairs[it->second].second = &r;
    } else {
      pairs.push_back({nullptr, &r});
    }
  }
  return pairs;
}

std::string JobTitle(const JobView& v) {
  return absl::StrFormat("%s, job %s, %d rank%s", Printable(v.program), v.job.empty() ? "(unnamed)" : Printable(v.job),
                         v.present.size(), v.present.size() == 1 ? "" : "s");
}

}  // namespace

std::string FormatJobComparisonText(const JobView& a, const JobView& b) {
  std::string out = absl::StrFormat("td job comparison\n  A: %s\n  B: %s\n", JobTitle(a), JobTitle(b));
  if (a.program != b.program) {
    absl::StrAppendFormat(&out, "  (different programs: regions are matched by path)\n");
  }
  out += "\nspeedup = A's mean wall time over ranks / B's; imbalance = slowest rank / mean\n\n";
  absl::StrAppendFormat(&out, "%-32s %6s %10s %9s %8s %6s %10s %9s %8s %8s\n", "region", "A rks", "A mean", "A imbal",
                        "A slow", "B rks", "B mean", "B imbal", "B slow", "speedup");
  auto side = [](const RegionAcrossRanks* r) {
    if (r == nullptr) return absl::StrFormat("%6s %10s %9s %8s", "—", "—", "—", "—");
    return absl::StrFormat("%6d %s %9.2f %8s", r->ranks.size(),
                           Column(HumanDuration(static_cast<int64_t>(r->wall_ns.mean)), 10), r->imbalance,
                           absl::StrCat("rank ", r->slowest_rank));
  };
  for (const auto& [ra, rb] : PairRegions(a, b)) {
    const RegionAcrossRanks& any = ra != nullptr ? *ra : *rb;
    const std::string name = std::string(2 * any.depth, ' ') + Printable(any.path.substr(any.path.rfind('/') + 1));
    std::string speedup = ra == nullptr ? "B only" : rb == nullptr ? "A only" : "—";
    if (ra != nullptr && rb != nullptr && rb->wall_ns.mean > 0) {
      speedup = absl::StrFormat("%.2fx", ra->wall_ns.mean / rb->wall_ns.mean);
    }
    absl::StrAppendFormat(&out, "%-32s %s %s %8s\n", name, side(ra), side(rb), speedup);
  }
  return out;
}

std::string FormatJobComparisonCsv(const JobView& a, const JobView& b) {
  std::string out =
      "path,a_ranks,a_wall_mean_ns,a_wall_max_ns,a_imbalance,a_slowest_rank,"
      "b_ranks,b_wall_mean_ns,b_wall_max_ns,b_imbalance,b_slowest_rank,speedup\n";
  auto side = [](const RegionAcrossRanks* r) -> std::string {
    if (r == nullptr) return ",,,,";
    return absl::StrFormat("%d,%d,%d,%.4f,%d", r->ranks.size(), SoftwareIntegerValue(r->wall_ns.mean),
                           SoftwareIntegerValue(r->wall_ns.max), r->imbalance, r->slowest_rank);
  };
  for (const auto& [ra, rb] : PairRegions(a, b)) {
    const std::string& path = ra != nullptr ? ra->path : rb->path;
    const std::string speedup = ra != nullptr && rb != nullptr && rb->wall_ns.mean > 0
                                    ? absl::StrFormat("%.4f", ra->wall_ns.mean / rb->wall_ns.mean)
                                    : "";
    absl::StrAppendFormat(&out, "%s,%s,%s,%s\n", CsvField(path), side(ra), side(rb), speedup);
  }
  return out;
}

nlohmann::json JobViewToJson(const JobView& view) {
  auto spread = [](const Spread& s) -> nlohmann::json {
    if (s.ranks == 0) return nullptr;
    return {{"min", s.min}, {"mean", s.mean}, {"max", s.max}, {"max_rank", s.max_rank}, {"ranks", s.ranks}};
  };
  nlohmann::json regions = nlohmann::json::array();
  for (const RegionAcrossRanks& r : view.regions) {
    nlohmann::json per_rank = nlohmann::json::array();
    for (const RegionOnRank& on : r.ranks) {
      per_rank.push_back({{"rank", on.rank},
                          {"calls", on.calls},
                          {"wall_ns", on.wall_ns},
                          {"task_clock_ns", on.task_clock_ns ? nlohmann::json(*on.task_clock_ns) : nullptr}});
    }
    nlohmann::json level1 = nlohmann::json::object();
    for (const auto& [node, s] : r.level1) level1[node] = spread(s);
    regions.push_back({{"path", EscapeBytes(r.path)},
                       {"calls", r.calls},
                       {"wall_ns", spread(r.wall_ns)},
                       {"task_clock_ns", spread(r.task_clock_ns)},
                       {"imbalance", r.imbalance},
                       {"slowest_rank", r.slowest_rank},
                       {"level1", level1},
                       {"ranks", per_rank}});
  }
  nlohmann::json hosts = nlohmann::json::array();
  for (const std::string& host : view.hosts) hosts.push_back(EscapeBytes(host));
  return {{"program", EscapeBytes(view.program)}, {"job", EscapeBytes(view.job)}, {"size", view.size},
          {"ranks_present", view.present},       {"ranks_missing", view.missing},
          {"hosts", hosts},
          {"regions", regions}};
}

}  // namespace td
