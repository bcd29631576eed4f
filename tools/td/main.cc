// td: the command-line companion of the td library.
//
//   td recompute CASE.json             Top-Down values from a case file's counts
//   td import-perf --uarch KEY FILE    the same from `perf stat -x,` output
//   td uarchs                          microarchitectures td has definitions for
//   td compare …                       runs or regions side by side (paper Tables 4–6)
//   td explain [NODE]                  what a node or diagnosis means, what to try
//   td run --passes N -- PROG …       one run per share of the counter groups, merged
//   td calibrate [--refresh]           this machine's memory bandwidth (STREAM triad), cached
//   td report RUN.json [--uarch KEY]   the text report of a recorded run, with
//                                      Top-Down trees when it holds hardware counts
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "runtime/analysis/perf_case.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/machine/bandwidth_calibration.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_format.h"
#include "runtime/counters/event_encoder.h"
#include "runtime/report/compare.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/explanations.h"
#include "runtime/report/html_report.h"
#include "runtime/report/output_files.h"
#include "runtime/report/json_report.h"
#include "runtime/report/text_report.h"
#include "runtime/report/topdown_text.h"
#include "runtime/uarch/definitions.h"
#include "tools/td/run_command.h"

namespace {

int Usage() {
  std::fputs(
      "usage: td <command> [args]\n"
      "  recompute CASE.json              Top-Down values from a case file (docs/analysis.md)\n"
      "  import-perf --uarch KEY FILE     Top-Down values from `perf stat -x,` output\n"
      "  uarchs                           microarchitecture keys td has definitions for\n"
      "  explain [NODE]                   what a node or diagnosis means and what to try\n"
      "  events list [--pmu NAME]         events libpfm4 knows for a PMU (present or not)\n"
      "  events encode EVENT [--pmu NAME] the perf_event_attr td would program, as JSON\n"
      "  compare A.json B.json … [--region PATH] [--csv | --html OUT.html]\n"
      "  compare RUN.json --regions r1,r2,… [--csv | --html OUT.html]\n"
      "                                   side by side: Speedup, IPC and the Top-Down nodes\n"
      "  run [--passes auto|N] [--out FILE] -- PROGRAM [ARGS]\n"
      "                                   run once per counter-group share, merge by region\n"
      "  calibrate [--refresh]            measure (once per machine) the memory bandwidth peak\n"
      "  report RUN.json [--uarch KEY] [--json | --csv | --html OUT.html] [--explain] [--level N]\n"
      "                  [--region NAME] [--plot METRIC]  (sweeps in the HTML: wall_per_call or a node)\n"
      "                  [--threads] [--no-color]\n"
      "                                   report of a recorded td run with its Top-Down trees\n"
      "                                   (the CPU comes from the recording, or TD_UARCH)\n",
      stderr);
  return 2;
}

bool ReadText(const std::string& path, std::string* text) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "td: %s\n", message.c_str());
  return 1;
}

int PrintAnswers(const td::PerfCase& c, const td::DefinitionLibrary& library) {
  auto answers = td::Recompute(c, library);
  if (!answers.ok()) return Fail(std::string(answers.status().message()));
  nlohmann::json out;
  out["case"] = c.id;
  out["uarch"] = c.uarch;
  out["metrics"] = nlohmann::json::array();
  nlohmann::json flat = nlohmann::json::object();
  for (const td::MetricAnswer& a : *answers) {
    nlohmann::json m = {{"metric", a.wanted.metric}, {"pmu", a.wanted.pmu}, {"group", a.wanted.group}};
    if (a.value) {
      m["value"] = *a.value;
      const std::string key = a.wanted.pmu.empty() || a.wanted.pmu == "cpu"
                                  ? a.wanted.metric
                                  : a.wanted.pmu + "/" + a.wanted.metric;
      if (!flat.contains(key)) flat[key] = *a.value;
    } else {
      m["value"] = nullptr;
      m["not_computed"] = a.why_not;
    }
    if (!a.notes.empty()) m["notes"] = a.notes;
    out["metrics"].push_back(m);
  }
  out["values"] = flat;
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

// td compare A.json B.json … [--region PATH] [--csv]
// td compare RUN.json --regions r1,r2,… [--csv]
int Compare(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string region_path;
  std::vector<std::string> regions;
  bool csv = false;
  std::string html_path;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--csv") {
      csv = true;
    } else if (args[i] == "--html" && i + 1 < args.size()) {
      html_path = args[++i];
    } else if (args[i] == "--region" && i + 1 < args.size()) {
      region_path = args[++i];
    } else if (args[i] == "--regions" && i + 1 < args.size()) {
      regions = absl::StrSplit(args[++i], ',', absl::SkipEmpty());
    } else if (args[i].rfind("--", 0) == 0) {
      return Usage();
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.empty() || (!regions.empty() && files.size() != 1) || (regions.empty() && files.size() < 2)) {
    return Fail("compare needs two or more runs, or one run and --regions r1,r2,…");
  }
  auto library = td::DefinitionLibrary::Load();
  if (!library.ok()) return Fail(std::string(library.status().message()));
  const char* env_uarch = std::getenv("TD_UARCH");
  std::vector<td::RunData> runs;
  std::vector<td::RunAnalysis> analyses;
  runs.reserve(files.size());
  analyses.reserve(files.size());
  for (const auto& file : files) {
    auto run = td::ReadRunFile(file);
    if (!run.ok()) return Fail(std::string(run.status().message()));
    runs.push_back(*std::move(run));
    analyses.push_back(td::AnalyzeRun(runs.back(), *library, env_uarch ? env_uarch : "",
                                      td::CachedPeakGbps(runs.back().machine)));
  }
  // A region by path, else by name when the name is unique.
  auto find = [](const td::RunData& run, const std::string& wanted) -> int {
    int by_name = -1, named = 0;
    for (size_t r = 0; r < run.regions.size(); ++r) {
      if (run.regions[r].path == wanted) return static_cast<int>(r);
      if (run.regions[r].name == wanted) {
        by_name = static_cast<int>(r);
        ++named;
      }
    }
    return named == 1 ? by_name : -1;
  };
  std::vector<td::CompareColumn> columns;
  auto add = [&](size_t run, int region, const std::string& label) {
    const td::TopDownResult* tree =
        analyses[run].HasTrees() ? &analyses[run].regions[static_cast<size_t>(region)] : nullptr;
    columns.push_back({label, td::Totals(runs[run].regions[static_cast<size_t>(region)], 0).wall_inclusive_ns, tree});
  };
  if (!regions.empty()) {
    for (const auto& name : regions) {
      const int r = find(runs[0], name);
      if (r < 0) return Fail(files[0] + ": no region \"" + name + "\" (give its path if the name repeats)");
      add(0, r, name);
    }
  } else {
    for (size_t f = 0; f < files.size(); ++f) {
      const int r = region_path.empty() ? (runs[f].regions.empty() ? -1 : 0) : find(runs[f], region_path);
      if (r < 0) return Fail(files[f] + ": no region \"" + region_path + "\"");
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
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") return Usage();
  const std::string command = args[0];
  if (command == "run") return td::RunCommand({args.begin() + 1, args.end()});
  if (command == "uarchs") {
    auto library = td::DefinitionLibrary::Load();
    if (!library.ok()) return Fail(std::string(library.status().message()));
    for (const auto& key : library->Uarchs()) std::printf("%s\n", key.c_str());
    return 0;
  }
  if (command == "recompute" && args.size() == 2) {
    std::string text;
    if (!ReadText(args[1], &text)) return Fail("cannot read " + args[1]);
    auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded()) return Fail(args[1] + ": not valid JSON");
    auto c = td::ParsePerfCase(json);
    if (!c.ok()) return Fail(args[1] + ": " + std::string(c.status().message()));
    auto library = td::DefinitionLibrary::Load();
    if (!library.ok()) return Fail(std::string(library.status().message()));
    return PrintAnswers(*c, *library);
  }
  if (command == "import-perf" && args.size() == 4 && args[1] == "--uarch") {
    std::string text;
    if (!ReadText(args[3], &text)) return Fail("cannot read " + args[3]);
    auto c = td::ParsePerfStatCsv(text, args[2]);
    if (!c.ok()) return Fail(args[3] + ": " + std::string(c.status().message()));
    auto library = td::DefinitionLibrary::Load();
    if (!library.ok()) return Fail(std::string(library.status().message()));
    return PrintAnswers(*c, *library);
  }
  if (command == "report" && args.size() >= 2) {
    std::string uarch;
    bool as_json = false;
    bool as_csv = false;
    std::string html_path;
    std::string plot = "wall_per_call";
    bool explain = false;
    bool no_color = false;
    td::TextReportOptions options;
    options.per_thread = false;
    for (size_t i = 2; i < args.size(); ++i) {
      if (args[i] == "--json") {
        as_json = true;
      } else if (args[i] == "--csv") {
        as_csv = true;
      } else if (args[i] == "--html" && i + 1 < args.size()) {
        html_path = args[++i];
      } else if (args[i] == "--plot" && i + 1 < args.size()) {
        plot = args[++i];
      } else if (args[i] == "--explain") {
        explain = true;
      } else if (args[i] == "--threads") {
        options.per_thread = true;
      } else if (args[i] == "--no-color") {
        no_color = true;
      } else if (args[i] == "--region" && i + 1 < args.size()) {
        options.region = args[++i];
      } else if (args[i] == "--level" && i + 1 < args.size()) {
        if (!absl::SimpleAtoi(args[++i], &options.max_level) || options.max_level < 1) {
          return Fail("--level takes a number from 1 (Level 1) upwards, not \"" + args[i] + "\"");
        }
      } else if (args[i] == "--uarch" && i + 1 < args.size()) {
        uarch = args[++i];
      } else {
        return Usage();
      }
    }
    const char* env_uarch = std::getenv("TD_UARCH");
    if (uarch.empty() && env_uarch != nullptr) uarch = env_uarch;
    auto run = td::ReadRunFile(args[1]);
    if (!run.ok()) return Fail(std::string(run.status().message()));
    auto library = td::DefinitionLibrary::Load();
    if (!library.ok()) return Fail(std::string(library.status().message()));
    const td::RunAnalysis analysis =
        td::AnalyzeRun(*run, *library, uarch, td::CachedPeakGbps(run->machine));
    if (!html_path.empty()) {
      const absl::Status written = td::WriteFileAtomically(html_path, td::FormatHtmlReport(*run, analysis, plot));
      if (!written.ok()) return Fail(std::string(written.message()));
      std::fprintf(stderr, "td: wrote %s\n", html_path.c_str());
    } else if (as_json) {
      std::printf("%s\n", td::RunAnalysisToJson(*run, analysis).dump(1).c_str());
    } else if (as_csv) {
      std::fputs(td::FormatCsvReport(*run, &analysis).c_str(), stdout);
    } else {
      options.color = !no_color && isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
      std::fputs(td::FormatTextReport(*run, &analysis, options).c_str(), stdout);
      if (explain && analysis.HasTrees()) std::fputs(td::FormatExplanations(analysis).c_str(), stdout);
    }
    return 0;
  }
  if (command == "explain" && args.size() <= 2) {
    if (args.size() == 1) {
      std::fputs(td::ExplanationsMarkdown().c_str(), stdout);
      return 0;
    }
    const td::Explanation* e = td::ExplanationFor(args[1]);
    if (e == nullptr) return Fail("no explanation for \"" + args[1] + "\"; `td explain` lists them all");
    std::printf("%s\n  %s\n  When flagged: %s\n", e->node, e->meaning, e->to_try);
    return 0;
  }
  if (command == "compare" && args.size() >= 2) return Compare(args);
  if (command == "events" && args.size() >= 2) {
    std::string pmu;
    std::vector<std::string> rest;
    for (size_t i = 2; i < args.size(); ++i) {
      if (args[i] == "--pmu" && i + 1 < args.size()) {
        pmu = args[++i];
      } else {
        rest.push_back(args[i]);
      }
    }
    auto library = td::DefinitionLibrary::Load();
    if (!library.ok()) return Fail(std::string(library.status().message()));
    if (args[1] == "list" && rest.empty()) {
      auto names = td::ListEvents(pmu, *library);
      if (!names.ok()) return Fail(std::string(names.status().message()));
      for (const auto& n : *names) std::printf("%s\n", n.c_str());
      return 0;
    }
    if (args[1] == "encode" && rest.size() == 1) {
      auto e = td::EncodeEvent(rest[0], pmu, *library);
      if (!e.ok()) return Fail(std::string(e.status().message()));
      const nlohmann::json out = {{"pmu", e->pmu},
                                  {"type", e->type},
                                  {"config", absl::StrFormat("0x%x", e->config)},
                                  {"config1", absl::StrFormat("0x%x", e->config1)},
                                  {"source", e->source},
                                  {"name", e->name}};
      std::printf("%s\n", out.dump().c_str());
      return 0;
    }
    return Usage();
  }
  if (command == "calibrate" && (args.size() == 1 || (args.size() == 2 && args[1] == "--refresh"))) {
    const std::string path = td::CalibrationPath();
    const td::MachineInfo machine = td::DescribeThisMachine();
    if (args.size() == 1) {
      if (auto cached = td::LoadCalibration(path);
          cached.ok() && cached->hostname == machine.hostname &&
          cached->cpu_model_name == machine.cpu_model_name) {
        std::printf("triad peak %.2f GB/s (cached in %s; --refresh measures again)\n",
                    cached->triad_gbps, path.c_str());
        return 0;
      }
    }
    const int threads = std::max(1, machine.logical_cpus);
    const size_t bytes = td::DefaultTriadArrayBytes();
    std::fprintf(stderr, "td: measuring the STREAM triad: %d threads, 3 × %zu MiB, best of 5\n",
                 threads, bytes >> 20);
    auto cal = td::MeasureTriad(threads, bytes, 5);
    if (!cal.ok()) return Fail(std::string(cal.status().message()));
    if (auto saved = td::SaveCalibration(path, *cal); !saved.ok()) {
      std::fprintf(stderr, "td: error: %s; the result is not cached\n",
                   std::string(saved.message()).c_str());
    }
    std::printf("triad peak %.2f GB/s (%d threads, 3 × %zu MiB arrays), saved in %s\n",
                cal->triad_gbps, cal->threads, cal->array_bytes >> 20, path.c_str());
    return 0;
  }
  return Usage();
}
