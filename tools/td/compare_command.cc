// td compare: runs, regions of one run, or two MPI jobs side by side.
#include "tools/td/commands.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/output_files.h"
#include "runtime/job/job_compare.h"
#include "runtime/job/job_file.h"
#include "runtime/job/job_view.h"
#include "runtime/report/compare.h"
#include "runtime/report/regression_gate.h"
#include "runtime/report/report_pipeline.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"
#include "tools/td/region_lookup.h"

namespace td::tool {
namespace {

// A directory of one job's files (rank files, job files), or a job file.
bool IsJob(const std::string& operand) { return IsDirectory(operand) || td::IsJobFile(operand); }

int CompareJobs(const std::string& job_a, const std::string& job_b, bool csv, bool json, td::Scaling scaling) {
  const auto files = [](const std::string& job) { return IsDirectory(job) ? RunFilesIn(job) : Args{job}; };
  const auto a = LoadJob(files(job_a), "");
  if (!a.ok()) return Fail(a.status().message());
  const auto b = LoadJob(files(job_b), "");
  if (!b.ok()) return Fail(b.status().message());
  if (json) {
    std::printf("%s\n", td::DumpJson(td::JobComparisonJson(*a, *b, scaling), 1).c_str());
  } else {
    const std::string out =
        csv ? td::FormatJobComparisonCsv(*a, *b, scaling) : td::FormatJobComparisonText(*a, *b, scaling);
    std::fputs(out.c_str(), stdout);
  }
  return 0;
}

// The region paths every run holds, in the first run's order.
std::vector<std::string> SharedRegionPaths(const std::vector<td::RunData>& runs) {
  std::vector<std::string> shared;
  for (const td::Region& region : runs.front().regions) {
    bool everywhere = true;
    for (size_t f = 1; f < runs.size() && everywhere; ++f) {
      everywhere = std::any_of(runs[f].regions.begin(), runs[f].regions.end(),
                               [&](const td::Region& r) { return r.path == region.path; });
    }
    if (everywhere) shared.push_back(region.path);
  }
  return shared;
}

// --fail-if: what crossed its limit on stdout after the table; exit 1 when
// anything did, or when a rule could be checked nowhere.
int Gate(const std::vector<td::GateRule>& rules, const std::vector<td::RunData>& runs,
         const std::vector<td::RunAnalysis>& analyses) {
  const td::GateResult gate = td::CheckGate(rules, {&runs[0], &analyses[0]}, {&runs[1], &analyses[1]});
  for (const std::string& line : gate.crossed) std::printf("regression: %s\n", line.c_str());
  for (const std::string& line : gate.problems) std::printf("not checked: %s\n", line.c_str());
  std::printf("td compare: %s (%d comparison%s of %zu rule%s)\n",
              gate.passed() ? "no --fail-if limit crossed"
                            : absl::StrFormat("%zu limit%s crossed, %zu rule%s not checked", gate.crossed.size(),
                                              gate.crossed.size() == 1 ? "" : "s", gate.problems.size(),
                                              gate.problems.size() == 1 ? "" : "s")
                                  .c_str(),
              gate.checks, gate.checks == 1 ? "" : "s", rules.size(), rules.size() == 1 ? "" : "s");
  return gate.passed() ? 0 : 1;
}

// td compare A.json B.json … [--region PATH] [--csv | --html OUT.html]
// td compare RUN.json --regions r1,r2,… [--csv | --html OUT.html]
// td compare JOB_A JOB_B [--csv | --json] [--weak]  (a directory or a job file each)
int Compare(const Command& self, const Args& args) {
  std::vector<std::string> files;
  std::string region_path;
  std::string region_list;
  bool csv = false;
  bool json = false;
  bool weak = false;
  std::string html_path;
  std::vector<std::string> fail_if;
  const auto done = Flags(self)
                        .Switch("--csv", &csv)
                        .Switch("--json", &json)
                        .Switch("--weak", &weak)
                        .Values("--fail-if", &fail_if)
                        .Value("--html", &html_path)
                        .Value("--region", &region_path)
                        .Value("--regions", &region_list)
                        .Parse(args, &files);
  if (done) return *done;
  if (int{csv} + int{json} + int{!html_path.empty()} > 1) {
    return Misuse("--csv, --json and --html each choose the output; give one");
  }
  const std::vector<std::string> regions = absl::StrSplit(region_list, ',', absl::SkipEmpty());
  if (files.size() == 2 && IsJob(files[0]) && IsJob(files[1])) {
    if (!html_path.empty() || !region_path.empty() || !regions.empty() || !fail_if.empty()) {
      return Misuse("two jobs (directories or job files) are compared as text, --csv or --json only");
    }
    return CompareJobs(files[0], files[1], csv, json, weak ? td::Scaling::kWeak : td::Scaling::kStrong);
  }
  if (weak) return Misuse("--weak compares two jobs (directories or job files) for weak scaling");
  if (json) return Misuse("--json compares two jobs (directories or job files); runs compare as text, --csv or --html");
  if (files.empty() || (!regions.empty() && files.size() != 1) || (regions.empty() && files.size() < 2)) {
    return WrongOperands(self, "two or more runs, or one run and --regions r1,r2,…");
  }
  std::vector<td::GateRule> rules;
  for (const std::string& text : fail_if) {
    auto rule = td::ParseGateRule(text);
    if (!rule.ok()) return Misuse(std::string(rule.status().message()));
    rules.push_back(*std::move(rule));
  }
  if (!rules.empty() && (files.size() != 2 || !regions.empty())) {
    return Misuse("--fail-if compares two runs: BASE.json NEW.json");
  }
  td::ReportPipeline pipeline = Pipeline();
  std::vector<td::RunData> runs;
  std::vector<td::RunAnalysis> analyses;
  runs.reserve(files.size());
  analyses.reserve(files.size());
  for (const auto& file : files) {
    auto run = ReadRunForReport(file);
    if (!run.ok()) return Fail(std::string(run.status().message()));
    runs.push_back(*std::move(run));
    auto analysis = pipeline.Analyze(runs.back());
    if (!analysis.ok()) return Fail(std::string(analysis.status().message()));
    analyses.push_back(*std::move(analysis));
  }
  std::vector<td::CompareColumn> columns;
  auto add = [&](size_t run, int region, const std::string& label) {
    columns.push_back(td::MakeCompareColumn(runs[run], static_cast<size_t>(region), analyses[run], label));
  };
  if (!regions.empty()) {
    for (const auto& name : regions) {
      const int r = FindRegion(runs[0], name);
      if (r < 0) return Fail(NoRegion(files[0], runs[0], name));
      add(0, r, name);
    }
  } else {
    const std::vector<std::string> shared = SharedRegionPaths(runs);
    if (region_path.empty() && !csv && html_path.empty() && shared.size() > 1) {
      // Text: one table per region the runs all hold, in the first run's order.
      std::string out;
      for (const std::string& path : shared) {
        columns.clear();
        for (size_t f = 0; f < files.size(); ++f) add(f, FindRegion(runs[f], path), files[f].substr(files[f].rfind('/') + 1));
        out += (out.empty() ? "" : "\n") + td::FormatComparison(columns, td::CompareFormat::kText);
      }
      std::fputs(out.c_str(), stdout);
      return rules.empty() ? 0 : Gate(rules, runs, analyses);
    }
    // One table: --region's, else the first region the runs share (each
    // run's first when they share none).
    const std::string path = !region_path.empty() ? region_path : shared.empty() ? "" : shared.front();
    for (size_t f = 0; f < files.size(); ++f) {
      const int r = path.empty() ? (runs[f].regions.empty() ? -1 : 0) : FindRegion(runs[f], path);
      if (r < 0) return Fail(NoRegion(files[f], runs[f], path));
      add(f, r, files[f].substr(files[f].rfind('/') + 1));
    }
  }
  if (!html_path.empty()) {
    const absl::Status written =
        td::WriteFileAtomically(html_path, td::FormatComparison(columns, td::CompareFormat::kHtml));
    if (!written.ok()) return Fail(std::string(written.message()));
    std::fprintf(stderr, "td: wrote %s\n", html_path.c_str());
    return 0;
  }
  std::fputs(td::FormatComparison(columns, csv ? td::CompareFormat::kCsv : td::CompareFormat::kText).c_str(),
             stdout);
  if (rules.empty()) return 0;
  return Gate(rules, runs, analyses);
}

}  // namespace

const cli::Command kCompareCommand = {
    "compare",
    "compare A.json B.json … [--region PATH] [--csv | --html OUT.html]\n"
    "compare BASE.json NEW.json --fail-if RULE [--fail-if RULE …]\n"
    "compare RUN.json --regions r1,r2,… [--csv | --html OUT.html]\n"
    "compare JOB_A JOB_B [--csv | --json] [--weak]",
    "runs or regions side by side: Speedup, IPC and the Top-Down nodes",
    "Lays runs, or regions of one run, side by side like the paper's Tables 4-6.\n"
    "Given two MPI jobs (each a directory of its rank or job files, or a job file),\n"
    "lays them side by side per region: ranks, mean wall time over ranks, imbalance,\n"
    "slowest rank, the speedup of B over A and, where libtd-mpi timed the MPI calls,\n"
    "the POP computation scalability and global efficiency against the job with\n"
    "fewer ranks, split into instruction, IPC and frequency scalability where both\n"
    "jobs counted instructions and cycles (docs/hpc.md).\n"
    "\n"
    "  --region PATH    the one region compared across runs (default: every region\n"
    "                   the runs all hold, a table each; --csv and --html show the\n"
    "                   first of them)\n"
    "  --regions LIST   the regions of one run to compare, comma-separated\n"
    "  --csv            as CSV\n"
    "  --json           two jobs' comparison as JSON\n"
    "  --weak           two jobs: weak scaling (the problem grows with the ranks):\n"
    "                   scalability from the means per rank, not the sums\n"
    "  --html OUT.html  as HTML, written to OUT.html\n"
    "  --fail-if RULE   a regression gate: exit 1 when NEW crosses RULE against BASE.\n"
    "                   RULE is [REGION:|total:]METRIC>+LIMIT or METRIC<-LIMIT, LIMIT\n"
    "                   as 1% (relative), 5pt (points of a Top-Down node) or a plain\n"
    "                   number; METRIC is wall, calls, an event (instructions,\n"
    "                   task-clock…), a node (Backend_Bound) or IPC. Without a\n"
    "                   region every region both runs hold is checked. Repeatable:\n"
    "                   --fail-if 'instructions>+1%' --fail-if 'wall>+10%'",
    Compare};

}  // namespace td::tool
