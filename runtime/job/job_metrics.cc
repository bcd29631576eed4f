#include "runtime/job/job_metrics.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"
#include "runtime/job/job_view.h"

namespace td {

std::string RightAligned(const std::string& text, size_t width) {
  size_t columns = 0;
  for (const unsigned char c : text) columns += (c & 0xC0) != 0x80;
  return std::string(width > columns ? width - columns : 0, ' ') + text;
}

Imbalance ImbalanceOf(const Spread& spread_ns) {
  Imbalance out;
  out.ranks = spread_ns.ranks;
  if (spread_ns.ranks == 0 || !(spread_ns.max > 0)) return out;
  out.ratio = spread_ns.mean > 0 ? spread_ns.max / spread_ns.mean : 1;
  out.percent = 100 * (spread_ns.max - spread_ns.mean) / spread_ns.max;
  out.lost_core_seconds = static_cast<double>(spread_ns.ranks) * (spread_ns.max - spread_ns.mean) / 1e9;
  return out;
}

void SettleEfficiency(RegionAcrossRanks* region) {
  Efficiency e;
  int64_t least_mpi = -1;
  double useful_sum = 0;
  for (RegionOnRank& on : region->ranks) {
    on.wait_ns.reset();
    if (!on.mpi) continue;
    const double useful = std::max<double>(0, static_cast<double>(on.wall_ns - on.mpi->ns));
    useful_sum += useful;
    if (e.ranks == 0 || useful > e.useful_max_ns) {
      e.useful_max_ns = useful;
      e.late_rank = on.rank;
    }
    e.runtime_ns = std::max(e.runtime_ns, static_cast<double>(on.wall_ns));
    if (least_mpi < 0 || on.mpi->ns < least_mpi) least_mpi = on.mpi->ns;
    ++e.ranks;
  }
  if (e.ranks == 0) {
    region->efficiency = Efficiency{};
    return;
  }
  e.useful_mean_ns = useful_sum / static_cast<double>(e.ranks);
  if (e.useful_max_ns > 0) e.load_balance = e.useful_mean_ns / e.useful_max_ns;
  if (e.runtime_ns > 0) e.communication_efficiency = e.useful_max_ns / e.runtime_ns;
  e.parallel_efficiency = e.load_balance * e.communication_efficiency;
  e.late_by_ns = e.useful_max_ns - e.useful_mean_ns;
  if (e.ranks < 2 || !(e.late_by_ns >= 0.01 * e.runtime_ns) || e.late_by_ns <= 0) e.late_rank = -1;
  for (RegionOnRank& on : region->ranks) {
    if (!on.mpi) continue;
    on.wait_ns = on.mpi->ns - least_mpi;
    e.waited_ns += static_cast<double>(*on.wait_ns);
    if (*on.wait_ns > e.most_waited_ns) {
      e.most_waited_ns = static_cast<double>(*on.wait_ns);
      e.most_waiting_rank = on.rank;
    }
  }
  region->efficiency = e;
}

namespace {

std::string Duration(double ns) { return HumanDuration(static_cast<int64_t>(ns)); }

std::string Rank(int64_t rank) { return rank < 0 ? "—" : absl::StrCat("rank ", rank); }

// "r0 400 ms, r1 12 µs, …": every rank's wait up to 16 ranks, else the 8
// longest.
std::string Waits(const RegionAcrossRanks& r) {
  std::vector<const RegionOnRank*> rows;
  for (const RegionOnRank& on : r.ranks) {
    if (on.wait_ns) rows.push_back(&on);
  }
  const bool all = rows.size() <= 16;
  if (!all) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const RegionOnRank* a, const RegionOnRank* b) { return *a->wait_ns > *b->wait_ns; });
    rows.resize(8);
  }
  std::string out;
  for (const RegionOnRank* on : rows) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", "r", on->rank, " ", HumanDuration(*on->wait_ns));
  }
  if (!all) absl::StrAppend(&out, ", … (the 8 longest)");
  return out;
}

const RegionAcrossRanks* ProgramRegion(const JobView& view) {
  for (const RegionAcrossRanks& r : view.regions) {
    if (r.path == kProgramRegion) return &r;
  }
  return nullptr;
}

nlohmann::json ImbalanceJsonOf(const Imbalance& i) {
  if (i.ranks == 0) return nullptr;
  return {{"ratio", i.ratio}, {"percent", i.percent}, {"lost_core_seconds", i.lost_core_seconds}};
}

}  // namespace

std::string FormatImbalances(const JobView& view) {
  std::string out =
      "\nimbalance by wall and CPU time (task-clock): max / mean over the ranks, percent = 100 × (max − mean) / "
      "max, lost = core-seconds the other ranks idle while the slowest finishes\n";
  absl::StrAppendFormat(&out, "%-32s %9s %7s %9s %9s %7s %9s\n", "region", "wall", "%", "lost s", "cpu", "%",
                        "lost s");
  for (const RegionAcrossRanks& r : view.regions) {
    const Imbalance wall = ImbalanceOf(r.wall_ns), cpu = ImbalanceOf(r.task_clock_ns);
    absl::StrAppendFormat(&out, "%-32s %9.2f %6.1f%% %9.3f ", IndentedName(r), wall.ratio, wall.percent,
                          wall.lost_core_seconds);
    if (cpu.ranks == 0) {
      absl::StrAppendFormat(&out, "%9s %7s %9s\n", "—", "—", "—");
    } else {
      absl::StrAppendFormat(&out, "%9.2f %6.1f%% %9.3f\n", cpu.ratio, cpu.percent, cpu.lost_core_seconds);
    }
  }
  return out;
}

std::string FormatEfficiencies(const JobView& view) {
  const auto known = [](const RegionAcrossRanks& r) { return r.efficiency.ranks != 0; };
  if (std::none_of(view.regions.begin(), view.regions.end(), known)) return "";
  std::string out =
      "\nefficiencies and wait states (docs/hpc.md#wait-states-and-efficiencies): useful = wall − MPI time per "
      "rank; load balance = mean useful / max useful; communication = max useful / longest wall; parallel = "
      "their product; late rank = the most useful time (the last to reach the MPI calls); a rank's wait = its "
      "MPI time − the least over the ranks\n";
  absl::StrAppendFormat(&out, "%-32s %8s %8s %8s %9s %10s %10s %s\n", "region", "load bal", "comm", "parallel",
                        "late", "late by", "waited", "most waiting");
  for (const RegionAcrossRanks& r : view.regions) {
    const Efficiency& e = r.efficiency;
    if (e.ranks == 0) continue;
    absl::StrAppendFormat(&out, "%-32s %8.3f %8.3f %8.3f %9s %10s %10s %s\n", IndentedName(r), e.load_balance,
                          e.communication_efficiency, e.parallel_efficiency, Rank(e.late_rank),
                          e.late_rank < 0 ? "—" : Duration(e.late_by_ns), Duration(e.waited_ns),
                          e.most_waiting_rank < 0 ? "—"
                                                  : absl::StrCat(Rank(e.most_waiting_rank), " (",
                                                                 Duration(e.most_waited_ns), ")"));
    if (e.most_waiting_rank >= 0) absl::StrAppendFormat(&out, "%-32s waits: %s\n", "", Waits(r));
  }
  return out;
}

std::string FormatJobEfficiency(const JobView& view) {
  const RegionAcrossRanks* program = ProgramRegion(view);
  if (program == nullptr || program->efficiency.ranks == 0) return "";
  const Efficiency& e = program->efficiency;
  return absl::StrFormat(
      "job (%s): load balance %.3f, communication efficiency %.3f, parallel efficiency %.3f; late rank: %s\n",
      kProgramRegion, e.load_balance, e.communication_efficiency, e.parallel_efficiency,
      e.late_rank < 0 ? "none" : absl::StrCat(e.late_rank));
}

nlohmann::json ImbalanceJson(const RegionAcrossRanks& region) {
  return {{"wall", ImbalanceJsonOf(ImbalanceOf(region.wall_ns))},
          {"cpu", ImbalanceJsonOf(ImbalanceOf(region.task_clock_ns))}};
}

nlohmann::json EfficiencyJson(const Efficiency& e) {
  if (e.ranks == 0) return nullptr;
  return {{"ranks", e.ranks},
          {"useful_mean_ns", e.useful_mean_ns},
          {"useful_max_ns", e.useful_max_ns},
          {"runtime_ns", e.runtime_ns},
          {"load_balance", e.load_balance},
          {"communication_efficiency", e.communication_efficiency},
          {"parallel_efficiency", e.parallel_efficiency},
          {"late_rank", e.late_rank < 0 ? nlohmann::json(nullptr) : nlohmann::json(e.late_rank)},
          {"late_by_ns", e.late_by_ns},
          {"waited_ns", e.waited_ns},
          {"most_waiting_rank", e.most_waiting_rank < 0 ? nlohmann::json(nullptr) : nlohmann::json(e.most_waiting_rank)},
          {"most_waited_ns", e.most_waited_ns}};
}

nlohmann::json JobEfficiencyJson(const JobView& view) {
  const RegionAcrossRanks* program = ProgramRegion(view);
  return program == nullptr ? nlohmann::json(nullptr) : EfficiencyJson(program->efficiency);
}

std::string MetricsCsvOfRank(const RegionAcrossRanks& region, size_t row) {
  const RegionOnRank& on = region.ranks[row];
  return absl::StrCat(on.mpi ? absl::StrCat(on.mpi->ns) : "", ",", on.wait_ns ? absl::StrCat(*on.wait_ns) : "",
                      ",,,,,,,,,");
}

std::string MetricsCsvOfRegion(const RegionAcrossRanks& region) {
  const Efficiency& e = region.efficiency;
  const Imbalance wall = ImbalanceOf(region.wall_ns), cpu = ImbalanceOf(region.task_clock_ns);
  std::string out = ",,";
  out += e.ranks == 0 ? ",,,"
                      : absl::StrFormat("%.4f,%.4f,%.4f,%s", e.load_balance, e.communication_efficiency,
                                        e.parallel_efficiency, e.late_rank < 0 ? "" : absl::StrCat(e.late_rank));
  out += cpu.ranks == 0 ? "," : absl::StrFormat(",%.4f", cpu.ratio);
  out += wall.ranks == 0 ? "," : absl::StrFormat(",%.2f", wall.percent);
  out += cpu.ranks == 0 ? "," : absl::StrFormat(",%.2f", cpu.percent);
  out += wall.ranks == 0 ? "," : absl::StrFormat(",%.4f", wall.lost_core_seconds);
  out += cpu.ranks == 0 ? "," : absl::StrFormat(",%.4f", cpu.lost_core_seconds);
  return out;
}

std::string IndentedName(const RegionAcrossRanks& r) {
  return std::string(2 * r.depth, ' ') + Printable(r.path.substr(r.path.rfind('/') + 1));
}

}  // namespace td
