#include "runtime/job/job_compare.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"
#include "runtime/job/job_metrics.h"

namespace td {
namespace {

using RegionPair = std::pair<const RegionAcrossRanks*, const RegionAcrossRanks*>;

// Region paths of both jobs, A's order first, with each job's entry or null.
std::vector<RegionPair> PairRegions(const JobView& a, const JobView& b) {
  std::vector<RegionPair> pairs;
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

std::optional<Scalability> ScalabilityOfPair(const RegionPair& pair, bool reference_is_a, Scaling scaling) {
  if (pair.first == nullptr || pair.second == nullptr) return std::nullopt;
  return ScalabilityOf(*pair.first, *pair.second, reference_is_a, scaling);
}

// Σ over the ranks, or the mean per rank under weak scaling.
double Scaled(double sum, size_t ranks, Scaling scaling) {
  return scaling == Scaling::kWeak ? sum / static_cast<double>(ranks) : sum;
}

// The instruction and IPC split of `s` (its computation scalability set),
// where both regions counted instructions and cycles.
std::optional<Scalability::Counts> CountsOf(const CountTotals& a, const CountTotals& b, bool reference_is_a,
                                            const Scalability& s) {
  if (a.ranks == 0 || b.ranks == 0 || !(a.cycles > 0) || !(b.cycles > 0) || !(a.instructions > 0) ||
      !(b.instructions > 0)) {
    return std::nullopt;
  }
  Scalability::Counts c{a, b, a.instructions / a.cycles, b.instructions / b.cycles};
  const CountTotals& ref = reference_is_a ? a : b;
  const CountTotals& other = reference_is_a ? b : a;
  c.instruction_scalability =
      Scaled(ref.instructions, ref.ranks, s.scaling) / Scaled(other.instructions, other.ranks, s.scaling);
  c.ipc_scalability = reference_is_a ? c.b_ipc / c.a_ipc : c.a_ipc / c.b_ipc;
  c.frequency_scalability = s.computation_scalability / (c.instruction_scalability * c.ipc_scalability);
  return c;
}

std::optional<double> SpeedupOf(const RegionPair& pair) {
  if (pair.first == nullptr || pair.second == nullptr || !(pair.second->wall_ns.mean > 0)) return std::nullopt;
  return pair.first->wall_ns.mean / pair.second->wall_ns.mean;
}

std::string JobTitle(const JobView& v) {
  return absl::StrFormat("%s, job %s, %d rank%s", Printable(v.program), v.job.empty() ? "(unnamed)" : Printable(v.job),
                         v.present.size(), v.present.size() == 1 ? "" : "s");
}

std::string Seconds(double ns) { return RightAligned(HumanDuration(static_cast<int64_t>(ns)), 11); }

// The scalability table, "" where no region has it on both sides; then the
// instruction and IPC split where both jobs counted them, else one line
// saying they did not.
std::string ScalabilityText(const JobView& a, const JobView& b, const std::vector<RegionPair>& pairs, Scaling scaling) {
  const bool a_ref = ReferenceIsA(a, b);
  std::string rows, split;
  for (const RegionPair& pair : pairs) {
    const auto s = ScalabilityOfPair(pair, a_ref, scaling);
    if (!s) continue;
    absl::StrAppendFormat(&rows, "%-32s %5d %5d %s %s %9.3f %7.3f %7.3f %8.3f %8.3f\n", IndentedName(*pair.first), s->a_ranks,
                          s->b_ranks, Seconds(s->a_useful_ns), Seconds(s->b_useful_ns), s->computation_scalability,
                          pair.first->efficiency.parallel_efficiency, pair.second->efficiency.parallel_efficiency,
                          s->a_global_efficiency, s->b_global_efficiency);
    if (!s->counts) continue;
    const Scalability::Counts& c = *s->counts;
    absl::StrAppendFormat(&split, "%-32s %7.3f %7.3f %10.3f %9.3f %9.3f\n", IndentedName(*pair.first), c.a_ipc, c.b_ipc,
                          c.instruction_scalability, c.ipc_scalability, c.frequency_scalability);
  }
  if (rows.empty()) return "";
  const char* ref = a_ref ? "A" : "B";
  const char* other = a_ref ? "B" : "A";
  const bool weak = scaling == Scaling::kWeak;
  // "Σ useful of A", or "mean useful per rank of A".
  const char* sum = weak ? "mean" : "Σ";
  const char* each = weak ? " per rank" : "";
  std::string out = absl::StrFormat(
      "\nscalability (POP, %s scaling; docs/hpc.md#scalability-between-two-rank-counts): reference %s (%d "
      "ranks); useful = wall − MPI time per rank; computation scalability = %s useful%s of %s / %s useful%s of %s; "
      "global efficiency = parallel efficiency × computation scalability (1 for the reference)\n",
      ScalingName(scaling), ref, (a_ref ? a : b).present.size(), sum, each, ref, sum, each, other);
  absl::StrAppendFormat(&out, "%-32s %5s %5s %11s %11s %9s %7s %7s %8s %8s\n", "region", "A rks", "B rks", "A useful",
                        "B useful", "comp scal", "A par", "B par", "A global", "B global");
  out += rows;
  if (split.empty()) {
    return out + "\ninstruction and IPC scalability: the jobs' recordings have no instructions/cycles counts\n";
  }
  absl::StrAppendFormat(&out,
                        "\ninstruction and IPC scalability: instruction = %s instructions%s of %s / %s "
                        "instructions%s of %s; IPC = IPC of %s / IPC of %s (IPC = Σ instructions / Σ cycles); "
                        "frequency = computation scalability / (instruction × IPC)\n",
                        sum, each, ref, sum, each, other, other, ref);
  absl::StrAppendFormat(&out, "%-32s %7s %7s %10s %9s %9s\n", "region", "A IPC", "B IPC", "instr scal", "IPC scal",
                        "freq scal");
  return out + split;
}

// The job's line: the (program) region's scalability, "" without it.
std::string JobScalabilityLine(const JobView& a, const JobView& b, const std::vector<RegionPair>& pairs,
                               Scaling scaling) {
  for (const RegionPair& pair : pairs) {
    if (pair.first == nullptr || pair.first->path != kProgramRegion) continue;
    const auto s = ScalabilityOfPair(pair, ReferenceIsA(a, b), scaling);
    if (!s) return "";
    return absl::StrFormat(
        "  job (%s): computation scalability %.3f, global efficiency A %.3f, B %.3f (reference: %s; %s scaling)\n",
        kProgramRegion, s->computation_scalability, s->a_global_efficiency, s->b_global_efficiency,
        ReferenceIsA(a, b) ? "A" : "B", ScalingName(scaling));
  }
  return "";
}

nlohmann::json JobJson(const JobView& v) {
  return {{"program", EscapeBytes(v.program)}, {"job", EscapeBytes(v.job)}, {"ranks", v.present.size()},
          {"size", v.size}};
}

nlohmann::json SideJson(const RegionAcrossRanks* r) {
  if (r == nullptr) return nullptr;
  const Efficiency& e = r->efficiency;
  return {{"ranks", r->wall_ns.ranks},
          {"wall_mean_ns", r->wall_ns.mean},
          {"wall_max_ns", r->wall_ns.max},
          {"imbalance", r->imbalance},
          {"slowest_rank", r->slowest_rank},
          {"parallel_efficiency", e.ranks == 0 ? nlohmann::json(nullptr) : nlohmann::json(e.parallel_efficiency)},
          {"useful_ns", e.ranks == 0 ? nlohmann::json(nullptr) : nlohmann::json(e.useful_mean_ns * e.ranks)}};
}

nlohmann::json ScalabilityJson(const std::optional<Scalability>& s) {
  if (!s) return nullptr;
  const auto& c = s->counts;
  const auto count = [&](auto field) { return c ? nlohmann::json((*c).*field) : nlohmann::json(nullptr); };
  const auto total = [&](const CountTotals Scalability::Counts::*side, double CountTotals::*field) {
    return c ? nlohmann::json(((*c).*side).*field) : nlohmann::json(nullptr);
  };
  return {{"a_ranks", s->a_ranks},
          {"b_ranks", s->b_ranks},
          {"a_useful_ns", s->a_useful_ns},
          {"b_useful_ns", s->b_useful_ns},
          {"computation_scalability", s->computation_scalability},
          {"a_global_efficiency", s->a_global_efficiency},
          {"b_global_efficiency", s->b_global_efficiency},
          {"a_instructions", total(&Scalability::Counts::a, &CountTotals::instructions)},
          {"b_instructions", total(&Scalability::Counts::b, &CountTotals::instructions)},
          {"a_cycles", total(&Scalability::Counts::a, &CountTotals::cycles)},
          {"b_cycles", total(&Scalability::Counts::b, &CountTotals::cycles)},
          {"a_ipc", count(&Scalability::Counts::a_ipc)},
          {"b_ipc", count(&Scalability::Counts::b_ipc)},
          {"instruction_scalability", count(&Scalability::Counts::instruction_scalability)},
          {"ipc_scalability", count(&Scalability::Counts::ipc_scalability)},
          {"frequency_scalability", count(&Scalability::Counts::frequency_scalability)}};
}

}  // namespace

bool ReferenceIsA(const JobView& a, const JobView& b) { return a.present.size() <= b.present.size(); }

const char* ScalingName(Scaling scaling) { return scaling == Scaling::kWeak ? "weak" : "strong"; }

std::optional<Scalability> ScalabilityOf(const RegionAcrossRanks& a, const RegionAcrossRanks& b, bool reference_is_a,
                                         Scaling scaling) {
  const Efficiency& ea = a.efficiency;
  const Efficiency& eb = b.efficiency;
  if (ea.ranks == 0 || eb.ranks == 0) return std::nullopt;
  Scalability s;
  s.scaling = scaling;
  s.a_ranks = ea.ranks;
  s.b_ranks = eb.ranks;
  s.a_useful_ns = ea.useful_mean_ns * static_cast<double>(ea.ranks);
  s.b_useful_ns = eb.useful_mean_ns * static_cast<double>(eb.ranks);
  const double a_useful = Scaled(s.a_useful_ns, s.a_ranks, scaling);
  const double b_useful = Scaled(s.b_useful_ns, s.b_ranks, scaling);
  const double reference = reference_is_a ? a_useful : b_useful;
  const double other = reference_is_a ? b_useful : a_useful;
  if (!(reference > 0) || !(other > 0)) return std::nullopt;
  s.computation_scalability = reference / other;
  s.a_global_efficiency = ea.parallel_efficiency * (reference_is_a ? 1 : s.computation_scalability);
  s.b_global_efficiency = eb.parallel_efficiency * (reference_is_a ? s.computation_scalability : 1);
  s.counts = CountsOf(a.counts, b.counts, reference_is_a, s);
  return s;
}

std::string FormatJobComparisonText(const JobView& a, const JobView& b, Scaling scaling) {
  const std::vector<RegionPair> pairs = PairRegions(a, b);
  std::string out = absl::StrFormat("td job comparison\n  A: %s\n  B: %s\n", JobTitle(a), JobTitle(b));
  if (a.program != b.program) {
    absl::StrAppendFormat(&out, "  (different programs: regions are matched by path)\n");
  }
  out += JobScalabilityLine(a, b, pairs, scaling);
  out += "\nspeedup = A's mean wall time over ranks / B's; imbalance = slowest rank / mean\n\n";
  absl::StrAppendFormat(&out, "%-32s %6s %10s %9s %8s %6s %10s %9s %8s %8s\n", "region", "A rks", "A mean", "A imbal",
                        "A slow", "B rks", "B mean", "B imbal", "B slow", "speedup");
  auto side = [](const RegionAcrossRanks* r) {
    if (r == nullptr) return absl::StrFormat("%6s %10s %9s %8s", "—", "—", "—", "—");
    return absl::StrFormat("%6d %s %9.2f %8s", r->wall_ns.ranks,
                           RightAligned(HumanDuration(static_cast<int64_t>(r->wall_ns.mean)), 10), r->imbalance,
                           absl::StrCat("rank ", r->slowest_rank));
  };
  for (const RegionPair& pair : pairs) {
    const auto [ra, rb] = pair;
    const auto speedup = SpeedupOf(pair);
    const std::string shown = ra == nullptr ? "B only"
                              : rb == nullptr ? "A only"
                              : speedup       ? absl::StrFormat("%.2fx", *speedup)
                                              : "—";
    absl::StrAppendFormat(&out, "%-32s %s %s %8s\n", IndentedName(ra != nullptr ? *ra : *rb), side(ra), side(rb), shown);
  }
  return out + ScalabilityText(a, b, pairs, scaling);
}

std::string FormatJobComparisonCsv(const JobView& a, const JobView& b, Scaling scaling) {
  const bool a_ref = ReferenceIsA(a, b);
  std::string out =
      "path,a_ranks,a_wall_mean_ns,a_wall_max_ns,a_imbalance,a_slowest_rank,"
      "b_ranks,b_wall_mean_ns,b_wall_max_ns,b_imbalance,b_slowest_rank,speedup,reference,"
      "a_useful_ns,b_useful_ns,a_parallel_efficiency,b_parallel_efficiency,computation_scalability,"
      "a_global_efficiency,b_global_efficiency,scaling,instruction_scalability,ipc_scalability,"
      "frequency_scalability,a_ipc,b_ipc\n";
  auto side = [](const RegionAcrossRanks* r) -> std::string {
    if (r == nullptr) return ",,,,";
    return absl::StrFormat("%d,%d,%d,%.4f,%d", r->wall_ns.ranks, SoftwareIntegerValue(r->wall_ns.mean),
                           SoftwareIntegerValue(r->wall_ns.max), r->imbalance, r->slowest_rank);
  };
  for (const RegionPair& pair : PairRegions(a, b)) {
    const auto [ra, rb] = pair;
    const auto speedup = SpeedupOf(pair);
    const auto s = ScalabilityOfPair(pair, a_ref, scaling);
    const std::string pop =
        s ? absl::StrFormat("%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f", SoftwareIntegerValue(s->a_useful_ns),
                            SoftwareIntegerValue(s->b_useful_ns), ra->efficiency.parallel_efficiency,
                            rb->efficiency.parallel_efficiency, s->computation_scalability, s->a_global_efficiency,
                            s->b_global_efficiency)
          : ",,,,,,";
    const std::string split = s && s->counts
                                  ? absl::StrFormat("%.4f,%.4f,%.4f,%.4f,%.4f", s->counts->instruction_scalability,
                                                    s->counts->ipc_scalability, s->counts->frequency_scalability,
                                                    s->counts->a_ipc, s->counts->b_ipc)
                                  : ",,,,";
    absl::StrAppendFormat(&out, "%s,%s,%s,%s,%s,%s,%s,%s\n", CsvField(ra != nullptr ? ra->path : rb->path), side(ra),
                          side(rb), speedup ? absl::StrFormat("%.4f", *speedup) : "", a_ref ? "a" : "b", pop,
                          ScalingName(scaling), split);
  }
  return out;
}

nlohmann::json JobComparisonJson(const JobView& a, const JobView& b, Scaling scaling) {
  const bool a_ref = ReferenceIsA(a, b);
  nlohmann::json json = {{"a", JobJson(a)},
                         {"b", JobJson(b)},
                         {"reference", a_ref ? "a" : "b"},
                         {"scaling", ScalingName(scaling)},
                         {"scalability", nullptr},
                         {"regions", nlohmann::json::array()}};
  for (const RegionPair& pair : PairRegions(a, b)) {
    const auto speedup = SpeedupOf(pair);
    const auto s = ScalabilityOfPair(pair, a_ref, scaling);
    const std::string& path = pair.first != nullptr ? pair.first->path : pair.second->path;
    if (path == kProgramRegion) json["scalability"] = ScalabilityJson(s);
    json["regions"].push_back({{"path", EscapeBytes(path)},
                               {"a", SideJson(pair.first)},
                               {"b", SideJson(pair.second)},
                               {"speedup", speedup ? nlohmann::json(*speedup) : nlohmann::json(nullptr)},
                               {"scalability", ScalabilityJson(s)}});
  }
  return json;
}

}  // namespace td
