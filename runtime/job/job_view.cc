#include "runtime/job/job_view.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/base/byte_strings.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/analysis/thread_spread.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

// The region's task-clock as RegionSoftwareMetrics gives it (summed over the
// threads measured), from totals already made: `task_clock` is the event's
// index in the run, if it has one.
std::optional<double> TaskClockNs(const RegionTotals& totals, std::optional<size_t> task_clock) {
  if (!task_clock || !totals.counters_measured || *task_clock >= totals.events.size()) return std::nullopt;
  return static_cast<double>(totals.events[*task_clock].inclusive);
}

// A rank's threads and thread imbalance as two CSV cells, empty where not known.
std::string ThreadsCsv(const RegionOnRank& on) {
  return absl::StrCat(on.threads == 0 ? "" : absl::StrCat(on.threads), ",",
                      on.thread_imbalance ? absl::StrFormat("%.4f", *on.thread_imbalance) : "");
}

// The ranks' files must be one job's: same program and job, each rank once.
absl::Status CheckOneJob(const std::vector<RankSummary>& runs) {
  std::map<int64_t, size_t> file_of_rank;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RankSummary& run = runs[i];
    if (!run.mpi) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is not a rank of an MPI job (no \"mpi\" in it); several files are reported together only as the "
          "ranks of one job (`td compare` compares separate runs)",
          Printable(run.file)));
    }
    const RankSummary& first = runs.front();
    if (run.program != first.program || run.mpi->job != first.mpi->job) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is %s of job \"%s\", but %s is %s of job \"%s\": give the files of one job", Printable(run.file),
          Printable(run.program), Printable(run.mpi->job), Printable(first.file), Printable(first.program),
          Printable(first.mpi->job)));
    }
    if (const auto [it, added] = file_of_rank.emplace(run.mpi->rank, i); !added) {
      return absl::InvalidArgumentError(absl::StrFormat("%s and %s are both rank %d of job \"%s\"",
                                                        Printable(runs[it->second].file), Printable(run.file),
                                                        run.mpi->rank, Printable(run.mpi->job)));
    }
  }
  return absl::OkStatus();
}

// The rank's whole run as one region (kProgramRegion), first: its wall time
// from td's start to its end, and every MPI call's time (the top-level
// regions' and those outside regions). Left out where a region of the
// program has that name, or the file has no times of the run.
void AddProgramRegion(const RunData& run, int64_t rank, RankSummary* summary) {
  const int64_t wall = run.program.end_unix_ns - run.program.start_unix_ns;
  if (run.program.start_unix_ns <= 0 || wall <= 0) return;
  MpiTime mpi;
  for (const Region& region : run.regions) {
    if (region.path == kProgramRegion) return;
    if (region.parent < 0) mpi.Add(Totals(region, 0).mpi);
  }
  RankRegion& row = summary->regions.emplace_back();
  row.path = kProgramRegion;
  row.on_rank.rank = rank;
  row.on_rank.calls = 1;
  row.on_rank.wall_ns = wall;
  if (run.mpi_outside_regions) {
    mpi.Add(*run.mpi_outside_regions);
    row.on_rank.mpi = mpi;
  }
}

}  // namespace

void SettleRegion(RegionAcrossRanks* region) {
  region->imbalance = region->wall_ns.mean > 0 ? region->wall_ns.max / region->wall_ns.mean : 1;
  region->slowest_rank = region->wall_ns.max_rank;
  SettleEfficiency(region);
}

void AddMpiShare(const RegionOnRank& on_rank, Spread* share) {
  if (on_rank.mpi && on_rank.wall_ns > 0) {
    share->Add(static_cast<double>(on_rank.mpi->ns) / static_cast<double>(on_rank.wall_ns), on_rank.rank);
  }
}

void CountTotals::Add(const CountTotals& other) {
  instructions += other.instructions;
  cycles += other.cycles;
  ranks += other.ranks;
}

void Spread::Add(double value, int64_t rank) {
  if (ranks == 0 || value < min) min = value;
  if (ranks == 0 || value > max) {
    max = value;
    max_rank = rank;
  }
  mean += (value - mean) / static_cast<double>(++ranks);
}

RankSummary SummarizeRank(const RunData& run, const RunAnalysis* analysis, std::string file) {
  RankSummary summary;
  summary.file = std::move(file);
  summary.program = run.program.name;
  summary.mpi = run.mpi;
  if (run.partial) summary.partial_after_ns = run.partial->flushed_unix_ns - run.program.start_unix_ns;
  const int64_t rank = run.mpi ? run.mpi->rank : 0;
  const bool trees = analysis != nullptr && analysis->HasTrees();
  summary.regions.reserve(run.regions.size() + 1);
  AddProgramRegion(run, rank, &summary);
  const std::vector<ThreadSpread> spreads = TeamSpreads(run);
  const std::optional<size_t> instructions = EventNamed(run, "instructions");
  const std::optional<size_t> cycles = EventNamed(run, "cycles");
  const std::optional<size_t> task_clock = run.EventIndex("task-clock");
  for (size_t r = 0; r < run.regions.size(); ++r) {
    const Region& region = run.regions[r];
    const RegionTotals totals = Totals(region, run.layout.events.size());
    RankRegion& row = summary.regions.emplace_back();
    row.path = region.path;
    row.on_rank.rank = rank;
    row.on_rank.calls = totals.calls;
    row.on_rank.wall_ns = totals.wall_inclusive_ns;
    row.on_rank.task_clock_ns = TaskClockNs(totals, task_clock);
    row.on_rank.threads = spreads[r].threads;
    if (spreads[r].mean > 0) row.on_rank.thread_imbalance = spreads[r].Imbalance();
    if (run.mpi_outside_regions) row.on_rank.mpi = totals.mpi;  // libtd-mpi timed this rank's MPI calls
    if (instructions && cycles) {
      const auto i = ScaledRegionCount(run, region, *instructions);
      const auto c = ScaledRegionCount(run, region, *cycles);
      if (i && c) row.counts = {*i, *c, 1};
    }
    if (trees && r < analysis->regions.size()) {
      for (const TreeNode& node : analysis->regions[r].tree) {
        if (node.level == 1 && node.value) row.level1.emplace_back(node.name, *node.value);
      }
    }
  }
  return summary;
}

absl::StatusOr<JobView> BuildJobView(const std::vector<RunData>& runs, const std::vector<std::string>& files,
                                     const std::vector<RunAnalysis>& analyses) {
  std::vector<RankSummary> summaries;
  summaries.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    summaries.push_back(SummarizeRank(runs[i], i < analyses.size() ? &analyses[i] : nullptr, files[i]));
  }
  return BuildJobView(std::move(summaries));
}

absl::StatusOr<JobView> BuildJobView(std::vector<RankSummary> runs) {
  if (runs.empty()) return absl::InvalidArgumentError("no files");
  TD_RETURN_IF_ERROR(CheckOneJob(runs));
  // Ranks in order, whatever order the files came in.
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return runs[a].mpi->rank < runs[b].mpi->rank; });

  JobView view;
  view.program = runs.front().program;
  view.job = runs.front().mpi->job;
  for (const RankSummary& run : runs) view.size = std::max(view.size, run.mpi->size);
  std::set<int64_t> present;
  absl::flat_hash_set<std::string> hosts;
  for (size_t i : order) {
    const MpiRank& mpi = *runs[i].mpi;
    view.present.push_back(mpi.rank);
    if (mpi.aborted) view.aborted.push_back(mpi.rank);
    if (mpi.signal != 0) view.signaled.emplace_back(mpi.rank, mpi.signal);
    if (runs[i].partial_after_ns) view.partial.emplace_back(mpi.rank, *runs[i].partial_after_ns);
    present.insert(mpi.rank);
    if (hosts.insert(mpi.host).second) view.hosts.push_back(mpi.host);
  }
  for (int64_t r = 0; r < view.size; ++r) {
    if (present.count(r) == 0) view.missing.push_back(r);
  }

  // Regions are matched by path. Parents come before children in every file,
  // so taking paths in first-seen order keeps that.
  absl::flat_hash_map<std::string, size_t> index_of;
  for (size_t i : order) {
    RankSummary& run = runs[i];
    const int64_t rank = run.mpi->rank;
    for (RankRegion& region : run.regions) {
      auto [it, added] = index_of.emplace(region.path, view.regions.size());
      if (added) {
        RegionAcrossRanks across;
        across.path = std::move(region.path);
        across.depth = PathDepth(across.path);
        view.regions.push_back(std::move(across));
      }
      RegionAcrossRanks& across = view.regions[it->second];
      const RegionOnRank& on_rank = region.on_rank;
      across.calls += on_rank.calls;
      across.wall_ns.Add(static_cast<double>(on_rank.wall_ns), rank);
      if (on_rank.task_clock_ns) across.task_clock_ns.Add(*on_rank.task_clock_ns, rank);
      AddMpiShare(on_rank, &across.mpi_share);
      across.ranks.push_back(on_rank);
      across.counts.Add(region.counts);
      for (const auto& node : region.level1) {
        auto spread = std::find_if(across.level1.begin(), across.level1.end(),
                                   [&](const auto& entry) { return entry.first == node.first; });
        if (spread == across.level1.end()) {
          across.level1.emplace_back(node.first, Spread{});
          spread = std::prev(across.level1.end());
        }
        spread->second.Add(node.second, rank);
      }
    }
    run.regions = {};  // what the view keeps is in it now
  }
  for (RegionAcrossRanks& across : view.regions) SettleRegion(&across);
  return view;
}

std::string FormatMpiShares(const JobView& view) {
  bool any = false;
  for (const RegionAcrossRanks& r : view.regions) any |= r.mpi_share.ranks != 0;
  if (!any) return "";
  std::string out =
      "\nMPI share of each rank's wall time in the region (libtd-mpi; min / mean / max over ranks; the rank "
      "with the max)\n";
  for (const RegionAcrossRanks& r : view.regions) {
    if (r.mpi_share.ranks == 0) continue;
    const std::string name = std::string(2 * r.depth, ' ') + Printable(r.path.substr(r.path.rfind('/') + 1));
    absl::StrAppendFormat(&out, "%-32s %5.1f%% %5.1f%% %5.1f%%  (rank %d)\n", name, 100 * r.mpi_share.min,
                          100 * r.mpi_share.mean, 100 * r.mpi_share.max, r.mpi_share.max_rank);
  }
  return out;
}

namespace {

// Per region that some rank ran on several threads: each rank's threads and
// thread imbalance (its slowest thread's wall time / its mean), up to
// kThreadRanksShown ranks, then the highest. "" where no rank had several.
std::string FormatThreadsPerRank(const JobView& view) {
  constexpr size_t kThreadRanksShown = 8;
  std::string rows;
  for (const RegionAcrossRanks& r : view.regions) {
    const RegionOnRank* worst = nullptr;
    std::vector<std::string> cells;
    for (const RegionOnRank& on : r.ranks) {
      if (on.threads < 2 || !on.thread_imbalance) continue;
      if (worst == nullptr || *on.thread_imbalance > *worst->thread_imbalance) worst = &on;
      cells.push_back(absl::StrFormat("rank %d: %d × %.2f", on.rank, on.threads, *on.thread_imbalance));
    }
    if (worst == nullptr) continue;
    if (cells.size() > kThreadRanksShown) {
      cells = {absl::StrFormat("%d ranks, highest rank %d: %d × %.2f", cells.size(), worst->rank, worst->threads,
                               *worst->thread_imbalance)};
    }
    const std::string name = std::string(2 * r.depth, ' ') + Printable(r.path.substr(r.path.rfind('/') + 1));
    absl::StrAppendFormat(&rows, "%-32s %s\n", name, absl::StrJoin(cells, ", "));
  }
  if (rows.empty()) return "";
  return "\nthreads within each rank (threads × thread imbalance = the rank's slowest thread's wall time / the mean "
         "over its threads that ran the region)\n" + rows;
}

}  // namespace

std::string FormatJobText(const JobView& view) {
  std::string out = absl::StrFormat("td job report: %s, job %s, %d rank%s", Printable(view.program),
                                    view.job.empty() ? "(unnamed)" : Printable(view.job), view.present.size(),
                                    view.present.size() == 1 ? "" : "s");
  if (view.size > 0) absl::StrAppendFormat(&out, " of %d", view.size);
  absl::StrAppendFormat(&out, " on %d host%s (%s)\n", view.hosts.size(), view.hosts.size() == 1 ? "" : "s",
                        Printable(absl::StrJoin(view.hosts, ", ")));
  if (!view.aborted.empty()) {
    absl::StrAppendFormat(&out, "failed ranks: called MPI_Abort: %s\n", absl::StrJoin(view.aborted, ", "));
  }
  if (!view.signaled.empty()) {
    std::vector<std::string> ranks;
    for (const auto& [rank, signal] : view.signaled) {
      const char* name = sigabbrev_np(signal);
      ranks.push_back(absl::StrCat(rank, " (", name != nullptr ? absl::StrCat("SIG", name) : absl::StrCat(signal), ")"));
    }
    absl::StrAppendFormat(&out, "failed ranks: ended by a signal: %s\n", absl::StrJoin(ranks, ", "));
  }
  if (!view.partial.empty()) {
    std::vector<std::string> ranks;
    for (const auto& [rank, after_ns] : view.partial) {
      const double seconds = static_cast<double>(after_ns) / 1e9;
      ranks.push_back(absl::StrFormat("%d (partial: last flushed at +%.0f s)", rank, seconds));
    }
    absl::StrAppendFormat(&out, "failed ranks: ended before their end, data up to their last periodic flush: %s\n",
                          absl::StrJoin(ranks, ", "));
  }
  if (!view.missing.empty()) {
    absl::StrAppendFormat(&out, "missing ranks (no file given for them): %s\n", absl::StrJoin(view.missing, ", "));
  }
  out += FormatJobEfficiency(view);
  out += "\nimbalance = slowest rank's wall time / mean over the ranks that ran the region\n\n";
  absl::StrAppendFormat(&out, "%-32s %5s %9s %10s %10s %10s %7s %9s %12s %12s\n", "region", "ranks", "calls",
                        "wall min", "wall mean", "wall max", "slowest", "imbalance", "task mean", "task max");
  for (const RegionAcrossRanks& r : view.regions) {
    const std::string name = std::string(2 * r.depth, ' ') + Printable(r.path.substr(r.path.rfind('/') + 1));
    absl::StrAppendFormat(
        &out, "%-32s %5d %9d %s %s %s %7s %9.2f %s %s\n", name, r.wall_ns.ranks, r.calls,
        RightAligned(HumanDuration(static_cast<int64_t>(r.wall_ns.min)), 10),
        RightAligned(HumanDuration(static_cast<int64_t>(r.wall_ns.mean)), 10),
        RightAligned(HumanDuration(static_cast<int64_t>(r.wall_ns.max)), 10), absl::StrCat("rank ", r.slowest_rank),
        r.imbalance,
        RightAligned(r.task_clock_ns.ranks ? HumanDuration(static_cast<int64_t>(r.task_clock_ns.mean)) : "—", 12),
        RightAligned(r.task_clock_ns.ranks ? HumanDuration(static_cast<int64_t>(r.task_clock_ns.max)) : "—", 12));
  }
  out += FormatThreadsPerRank(view);
  out += FormatImbalances(view);
  out += FormatMpiShares(view);
  out += FormatEfficiencies(view);
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
  std::string out = absl::StrCat("path,rank,calls,wall_ns,task_clock_ns,imbalance,slowest_rank,", kMetricsCsvHeader,
                                 ",threads,thread_imbalance\n");
  for (const RegionAcrossRanks& r : view.regions) {
    for (size_t row = 0; row < r.ranks.size(); ++row) {
      const RegionOnRank& on = r.ranks[row];
      absl::StrAppendFormat(&out, "%s,%d,%d,%d,%s,,,%s,%s\n", CsvField(r.path), on.rank, on.calls, on.wall_ns,
                            on.task_clock_ns ? absl::StrCat(SoftwareIntegerValue(*on.task_clock_ns)) : "",
                            MetricsCsvOfRank(r, row), ThreadsCsv(on));
    }
    // The "all" row's thread columns: the most threads and the highest
    // imbalance of any rank (the per-rank rows say which).
    RegionOnRank most;
    for (const RegionOnRank& on : r.ranks) {
      most.threads = std::max(most.threads, on.threads);
      if (on.thread_imbalance && (!most.thread_imbalance || *on.thread_imbalance > *most.thread_imbalance)) {
        most.thread_imbalance = on.thread_imbalance;
      }
    }
    absl::StrAppendFormat(&out, "%s,all,%d,%d,%s,%.4f,%d,%s,%s\n", CsvField(r.path), r.calls,
                          SoftwareIntegerValue(r.wall_ns.max),
                          r.task_clock_ns.ranks ? absl::StrCat(SoftwareIntegerValue(r.task_clock_ns.mean * r.task_clock_ns.ranks)) : "",
                          r.imbalance, r.slowest_rank, MetricsCsvOfRegion(r), ThreadsCsv(most));
  }
  return out;
}

namespace {

nlohmann::json RegionJson(const RegionAcrossRanks& r) {
  nlohmann::json per_rank = nlohmann::json::array();
  for (const RegionOnRank& on : r.ranks) {
    per_rank.push_back({{"rank", on.rank},
                        {"calls", on.calls},
                        {"wall_ns", on.wall_ns},
                        {"task_clock_ns", on.task_clock_ns ? nlohmann::json(*on.task_clock_ns) : nullptr}});
    if (on.mpi) {
      per_rank.back()["mpi_ns"] = on.mpi->ns;
      per_rank.back()["mpi_calls"] = on.mpi->calls;
      per_rank.back()["mpi_bytes"] = on.mpi->bytes;
    }
    if (on.wait_ns) per_rank.back()["wait_ns"] = *on.wait_ns;
    if (on.threads != 0) per_rank.back()["threads"] = on.threads;
    if (on.thread_imbalance) per_rank.back()["thread_imbalance"] = *on.thread_imbalance;
  }
  nlohmann::json level1 = nlohmann::json::object();
  for (const auto& [node, s] : r.level1) level1[node] = SpreadJson(s);
  nlohmann::json json = {{"path", EscapeBytes(r.path)},
                         {"calls", r.calls},
                         {"wall_ns", SpreadJson(r.wall_ns)},
                         {"task_clock_ns", SpreadJson(r.task_clock_ns)},
                         {"imbalance", r.imbalance},
                         {"slowest_rank", r.slowest_rank},
                         {"imbalance_by", ImbalanceJson(r)},
                         {"level1", level1},
                         {"ranks", per_rank}};
  if (r.mpi_share.ranks != 0) json["mpi_share"] = SpreadJson(r.mpi_share);
  if (r.efficiency.ranks != 0) json["efficiency"] = EfficiencyJson(r.efficiency);
  return json;
}

nlohmann::json ViewWithoutRegionsJson(const JobView& view) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const std::string& host : view.hosts) hosts.push_back(EscapeBytes(host));
  nlohmann::json json = {{"program", EscapeBytes(view.program)}, {"job", EscapeBytes(view.job)},
                         {"size", view.size},
                         {"ranks_present", view.present},       {"ranks_missing", view.missing},
                         {"hosts", hosts},
                         {"regions", nlohmann::json::array()}};
  if (!view.aborted.empty()) json["ranks_aborted"] = view.aborted;
  if (!view.signaled.empty()) json["ranks_ended_by_signal"] = view.signaled;
  if (!view.partial.empty()) json["ranks_partial"] = view.partial;
  json["efficiency"] = JobEfficiencyJson(view);
  return json;
}

}  // namespace

nlohmann::json JobViewToJson(const JobView& view) {
  nlohmann::json json = ViewWithoutRegionsJson(view);
  for (const RegionAcrossRanks& r : view.regions) json["regions"].push_back(RegionJson(r));
  return json;
}

std::string JobViewJsonText(const JobView& view) {
  // The view without its regions, then each region dumped on its own and
  // indented to where nlohmann puts it (two levels deep): the same text as
  // dumping the whole view, without ever holding all of it as one tree.
  const std::string head = DumpJson(ViewWithoutRegionsJson(view), 1);
  static constexpr std::string_view kEmpty = "\n \"regions\": []";
  const size_t at = head.find(kEmpty);
  if (head.empty() || at == std::string::npos || view.regions.empty()) return head;
  // Written in place, in one buffer sized from the first region (a large
  // job's view is tens of MB: growing it by doubling copied it over again).
  std::string text(head, 0, at);
  text += "\n \"regions\": [";
  for (size_t i = 0; i < view.regions.size(); ++i) {
    const std::string one = DumpJson(RegionJson(view.regions[i]), 1);
    if (one.empty()) return "";
    if (i == 0) text.reserve(head.size() + (one.size() + one.size() / 4) * view.regions.size() * 5 / 4);
    text += i == 0 ? "\n  " : ",\n  ";
    for (size_t from = 0; from < one.size();) {
      const size_t line_end = std::min(one.find('\n', from), one.size() - 1) + 1;
      text.append(one, from, line_end - from);
      if (one[line_end - 1] == '\n') text += "  ";
      from = line_end;
    }
  }
  text += "\n ]";
  text.append(head, at + kEmpty.size());
  return text;
}

nlohmann::json SpreadJson(const Spread& s) {
  if (s.ranks == 0) return nullptr;
  return {{"min", s.min}, {"mean", s.mean}, {"max", s.max}, {"max_rank", s.max_rank}, {"ranks", s.ranks}};
}

int PathDepth(const std::string& path) { return static_cast<int>(std::count(path.begin(), path.end(), '/')); }

}  // namespace td
