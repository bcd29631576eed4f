// td: the command-line companion of the td library. Every subcommand is an
// entry of kCommands (name, synopsis, help, handler) and parses its own flags
// with cli::Flags; `td help` and `td COMMAND --help` print from the table.
// Exit status: 0 done, 1 failed, 2 misused (tools/td/cli.h).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/perf_case.h"
#include "runtime/core/config.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/report/analysis_json.h"
#include "runtime/counters/event_encoder.h"
#include "runtime/machine/bandwidth_calibration.h"
#include "runtime/base/byte_strings.h"
#include "runtime/report/compare.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/explanations.h"
#include "runtime/report/html_report.h"
#include "runtime/report/job_file.h"
#include "runtime/report/job_loader.h"
#include "runtime/report/job_view.h"
#include "runtime/base/json_file.h"
#include "runtime/model/run_file.h"
#include "runtime/base/output_files.h"
#include "runtime/report/report_pipeline.h"
#include "runtime/report/text_report.h"
#include "runtime/report/topdown_text.h"
#include "runtime/uarch/definitions.h"
#include "tools/td/cli.h"
#include "tools/td/import_metrics_command.h"
#include "tools/td/run_command.h"
#include "runtime/base/status_macros.h"

#ifndef TD_VERSION_STRING
#define TD_VERSION_STRING "0.0.0"
#endif

namespace {

using td::cli::Args;
using td::cli::Command;
using td::cli::DidYouMean;
using td::cli::Fail;
using td::cli::Flags;
using td::cli::Misuse;
using td::cli::WrongOperands;

// The TD_* settings, read once. Mistakes in them are the runtime's to report
// (each run says them); the tool only uses the values.
const td::Config& Environment() {
  static const td::Config* config = [] {
    return new td::Config(td::ReadConfigFromEnvironment().config);
  }();
  return *config;
}

absl::StatusOr<td::DefinitionLibrary> LoadDefinitions() {
  return td::DefinitionLibrary::Load(Environment().metrics_dir);
}

// td's analysis settings; a --uarch flag wins over TD_UARCH.
td::AnalysisSettings Settings(const std::string& uarch_flag = "") {
  return {Environment().metrics_dir, uarch_flag.empty() ? Environment().uarch : uarch_flag,
          Environment().calibration_file, Environment().compensate};
}

// A run file read for a report: with td's own marker cost taken out unless
// TD_COMPENSATE=0, so every rendering (text, CSV, JSON, HTML) shows the same
// values.
absl::StatusOr<td::RunData> ReadRunForReport(const std::string& file) {
  absl::StatusOr<td::RunData> run = td::ReadRunFile(file);
  if (run.ok() && Environment().compensate) td::TakeOutMarkerCost(&*run);
  return run;
}

// The report pipeline with td's settings.
td::ReportPipeline Pipeline(const std::string& uarch_flag = "") { return td::ReportPipeline(Settings(uarch_flag)); }

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

int CompareJobs(const std::string& dir_a, const std::string& dir_b, bool csv);

// td compare A.json B.json … [--region PATH] [--csv | --html OUT.html]
// td compare RUN.json --regions r1,r2,… [--csv | --html OUT.html]
// td compare JOB_A_DIR JOB_B_DIR [--csv]
int Compare(const Command& self, const Args& args) {
  std::vector<std::string> files;
  std::string region_path;
  std::string region_list;
  bool csv = false;
  std::string html_path;
  const auto done = Flags(self)
                        .Switch("--csv", &csv)
                        .Value("--html", &html_path)
                        .Value("--region", &region_path)
                        .Value("--regions", &region_list)
                        .Parse(args, &files);
  if (done) return *done;
  const std::vector<std::string> regions = absl::StrSplit(region_list, ',', absl::SkipEmpty());
  if (files.size() == 2 && std::filesystem::is_directory(files[0]) && std::filesystem::is_directory(files[1])) {
    if (!html_path.empty() || !region_path.empty() || !regions.empty()) {
      return Misuse("two jobs (directories) are compared with --csv or as text only");
    }
    return CompareJobs(files[0], files[1], csv);
  }
  if (files.empty() || (!regions.empty() && files.size() != 1) || (regions.empty() && files.size() < 2)) {
    return WrongOperands(self, "two or more runs, or one run and --regions r1,r2,…");
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
    columns.push_back(td::MakeCompareColumn(runs[run], static_cast<size_t>(region), analyses[run], label));
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


// What `td recompute` reads is a case file; a recording of a td run is
// `td report`'s, and says so by these two fields.
bool IsRunRecording(const nlohmann::json& json) {
  return json.is_object() && json.contains("td_version") && json.contains("regions");
}

int Recompute(const Command& self, const Args& args) {
  Args files;
  if (const auto done = Flags(self).Parse(args, &files)) return *done;
  if (files.size() != 1) return WrongOperands(self, "one CASE.json");
  const std::string& path = files[0];
  auto json = td::ReadJsonFile(path);
  if (!json.ok()) return Fail(json.status().message());
  if (IsRunRecording(*json)) {
    return Fail(path + " is a td run recording, not a case file; `td report " + path + "` analyses it");
  }
  auto c = td::ParsePerfCase(*json);
  if (!c.ok()) return Fail(path + ": " + std::string(c.status().message()));
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  return PrintAnswers(*c, *library);
}

int ImportPerf(const Command& self, const Args& args) {
  std::string uarch;
  Args files;
  if (const auto done = Flags(self).Value("--uarch", &uarch).Parse(args, &files)) return *done;
  if (uarch.empty()) return Misuse("import-perf needs --uarch KEY (`td uarchs` lists the keys)");
  if (files.size() != 1) return WrongOperands(self, "one file of `perf stat -x,` output");
  auto text = td::ReadTextFile(files[0]);
  if (!text.ok()) return Fail(text.status().message());
  auto c = td::ParsePerfStatCsv(*text, uarch);
  if (!c.ok()) return Fail(files[0] + ": " + std::string(c.status().message()));
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  return PrintAnswers(*c, *library);
}

int Uarchs(const Command& self, const Args& args) {
  Args operands;
  if (const auto done = Flags(self).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  for (const auto& key : library->Uarchs()) std::printf("%s\n", key.c_str());
  return 0;
}

int ConfigCommand(const Command& self, const Args& args) {
  Args operands;
  bool markdown = false;
  if (const auto done = Flags(self).Switch("--markdown", &markdown).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  if (markdown) {
    std::fputs(td::SettingsMarkdownTable().c_str(), stdout);
    return 0;
  }
  std::fputs(td::DescribeEnvironment().c_str(), stdout);
  const std::vector<std::string> errors = td::ReadConfigFromEnvironment().problems;
  for (const std::string& e : errors) std::printf("error: %s\n", td::Printable(e).c_str());
  return errors.empty() ? 0 : 1;
}

// A node by its name or its path's last part, or a diagnosis id; any case.
const td::Explanation* FindExplanation(const std::string& wanted) {
  const std::string name = wanted.substr(wanted.rfind('.') + 1);
  for (const td::Explanation& e : td::AllExplanations()) {
    if (absl::EqualsIgnoreCase(name, e.node)) return &e;
  }
  return nullptr;
}

int Explain(const Command& self, const Args& args) {
  Args nodes;
  if (const auto done = Flags(self).Parse(args, &nodes)) return *done;
  if (nodes.size() > 1) return WrongOperands(self, "at most one NODE");
  if (nodes.empty()) {
    std::fputs(td::ExplanationsMarkdown().c_str(), stdout);
    return 0;
  }
  const td::Explanation* e = FindExplanation(nodes[0]);
  if (e == nullptr) {
    std::vector<std::string> known;
    for (const td::Explanation& each : td::AllExplanations()) known.emplace_back(each.node);
    const std::string name = nodes[0].substr(nodes[0].rfind('.') + 1);
    const std::string hint = DidYouMean(name, known);
    return Fail("no explanation for \"" + nodes[0] + "\"" + (hint.empty() ? "; `td explain` lists them all" : hint));
  }
  std::printf("%s\n  %s\n  When flagged: %s\n", e->node, e->meaning, e->to_try);
  return 0;
}

void PrintPmus(const td::DefinitionLibrary& library) {
  for (const td::PmuListing& pmu : td::ListPmus(library)) {
    std::vector<std::string> marks;
    if (pmu.host) marks.emplace_back("host");
    if (pmu.present) marks.emplace_back("present");
    const std::string uarchs = pmu.uarchs.empty() ? "" : " [td: " + absl::StrJoin(pmu.uarchs, " ") + "]";
    absl::PrintF("%-28s %-14s %s%s\n", pmu.name, absl::StrJoin(marks, ","), pmu.description, uarchs);
  }
}

int PrintEncoding(const std::string& event, const std::string& pmu, const td::DefinitionLibrary& library) {
  auto e = td::EncodeEvent(event, pmu, library);
  if (!e.ok()) return Fail(e.status().message());
  const nlohmann::json out = {{"pmu", e->pmu},
                              {"type", e->type},
                              {"config", absl::StrFormat("0x%x", e->config)},
                              {"config1", absl::StrFormat("0x%x", e->config1)},
                              {"source", e->source},
                              {"name", e->name}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

int Events(const Command& self, const Args& args) {
  std::string pmu;
  bool pmus = false;
  Args operands;
  if (const auto done = Flags(self).Value("--pmu", &pmu).Switch("--pmus", &pmus).Parse(args, &operands)) {
    return *done;
  }
  const std::vector<std::string> actions = {"list", "encode"};
  if (operands.empty()) return WrongOperands(self, "list or encode");
  const std::string& action = operands[0];
  if (action != "list" && action != "encode") {
    const std::string hint = DidYouMean(action, actions);
    return Misuse("unknown events command " + action + (hint.empty() ? "; `td events --help` shows how" : hint));
  }
  if (action == "list" ? operands.size() != 1 : operands.size() != 2) {
    return WrongOperands(self, action == "list" ? "no EVENT after list" : "one EVENT after encode");
  }
  if (pmus && (action != "list" || !pmu.empty())) return Misuse("--pmus goes alone with events list");
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  if (action == "encode") return PrintEncoding(operands[1], pmu, *library);
  if (pmus) {
    PrintPmus(*library);
    return 0;
  }
  auto names = td::ListEvents(pmu, *library);
  if (!names.ok()) return Fail(names.status().message());
  for (const auto& n : *names) std::printf("%s\n", n.c_str());
  return 0;
}

int Calibrate(const Command& self, const Args& args) {
  bool refresh = false;
  Args operands;
  if (const auto done = Flags(self).Switch("--refresh", &refresh).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  const std::string path = Environment().calibration_file;
  const td::MachineInfo machine = td::DescribeThisMachine();
  if (!refresh) {
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
  std::fprintf(stderr,
               "td: measuring the STREAM triad: 1 to %d threads, 3 × %zu MiB, best of at least 5 passes "
               "per thread count\n",
               threads, bytes >> 20);
  auto cal = td::MeasureTriad(threads, bytes, 5);
  if (!cal.ok()) return Fail(std::string(cal.status().message()));
  if (auto saved = td::SaveCalibration(path, *cal); !saved.ok()) {
    std::fprintf(stderr, "td: error: %s; the result is not cached\n",
                 std::string(saved.message()).c_str());
  }
  std::printf("triad peak %.2f GB/s (%d thread%s, 3 × %zu MiB arrays), saved in %s\n", cal->triad_gbps,
              cal->threads, cal->threads == 1 ? "" : "s", cal->array_bytes >> 20, path.c_str());
  return 0;
}

// The recordings in DIR (td-*.json, traces left out), sorted; none: DIR itself,
// so that the usual one-line error names it.
Args RunFilesIn(const std::string& dir) {
  Args files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("td-", 0) == 0 && absl::EndsWith(name, ".json") && !absl::EndsWith(name, ".trace.json")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) files.push_back(dir);
  return files;
}

// The job of the files of one MPI job's ranks, and of the job files
// libtd-mpi wrote for it (docs/hpc.md#one-file-per-job), merged; read several
// at a time (docs/hpc.md, "Scale").
absl::StatusOr<td::JobTable> LoadJobTable(const Args& files, const std::string& uarch) {
  return td::LoadJobFiles(files, Settings(uarch));
}

absl::StatusOr<td::JobView> LoadJob(const Args& files, const std::string& uarch) {
  TD_ASSIGN_OR_RETURN(td::JobTable table, LoadJobTable(files, uarch));
  return std::move(table.view);
}

int CompareJobs(const std::string& dir_a, const std::string& dir_b, bool csv) {
  const auto a = LoadJob(RunFilesIn(dir_a), "");
  if (!a.ok()) return Fail(a.status().message());
  const auto b = LoadJob(RunFilesIn(dir_b), "");
  if (!b.ok()) return Fail(b.status().message());
  std::fputs((csv ? td::FormatJobComparisonCsv(*a, *b) : td::FormatJobComparisonText(*a, *b)).c_str(), stdout);
  return 0;
}

// Several files: the ranks of one MPI job, side by side (docs/hpc.md).
int ReportJob(const Args& files, std::string uarch, bool as_json, bool as_csv, const std::string& html_path) {
  const auto table = LoadJobTable(files, uarch);
  if (!table.ok()) return Fail(table.status().message());
  const td::JobView* view = &table->view;
  if (!html_path.empty()) {
    const absl::Status written = td::WriteFileAtomically(html_path, td::FormatJobHtml(*view));
    if (!written.ok()) return Fail(written.message());
    std::fprintf(stderr, "td: wrote %s\n", html_path.c_str());
  } else if (as_json) {
    std::printf("%s\n", td::JobViewJsonText(*view).c_str());
  } else if (as_csv) {
    std::fputs(td::FormatJobCsv(*view).c_str(), stdout);
  } else {
    std::fputs(td::FormatJobTableText(*table).c_str(), stdout);
  }
  return 0;
}

int Report(const Command& self, const Args& args) {
  std::string uarch;
  bool as_json = false;
  bool as_csv = false;
  std::string html_path;
  std::string plot = "wall_per_call";
  bool explain = false;
  bool no_color = false;
  bool per_thread = false;
  bool all_regions = false;
  std::string region;
  std::string level;
  Args files;
  const auto done = Flags(self)
                        .Switch("--all", &all_regions)
                        .Value("--uarch", &uarch)
                        .Switch("--json", &as_json)
                        .Switch("--csv", &as_csv)
                        .Value("--html", &html_path)
                        .Value("--plot", &plot)
                        .Switch("--explain", &explain)
                        .Switch("--threads", &per_thread)
                        .Switch("--no-color", &no_color)
                        .Value("--region", &region)
                        .Value("--level", &level)
                        .Parse(args, &files);
  if (done) return *done;
  if (files.size() == 1 && std::filesystem::is_directory(files[0])) files = RunFilesIn(files[0]);
  if (files.size() > 1 || (files.size() == 1 && td::IsJobFile(files[0]))) {
    if (explain || per_thread || all_regions || !region.empty() || !level.empty()) {
      return Misuse(
          "with a job file or several files (the ranks of one job) td report takes --json, --csv, --html and --uarch "
          "only");
    }
    return ReportJob(files, uarch, as_json, as_csv, html_path);
  }
  if (files.size() != 1) return WrongOperands(self, "one RUN.json, the files of one MPI job, or their directory");
  td::TextReportOptions options;
  options.per_thread = per_thread;
  options.region = region;
  options.max_regions = all_regions ? 0 : Environment().report_regions;
  if (!level.empty() && (!absl::SimpleAtoi(level, &options.max_level) || options.max_level < 1)) {
    return Misuse("--level takes a number from 1 (Level 1) upwards, not \"" + level + "\"");
  }
  auto run = ReadRunForReport(files[0]);
  if (!run.ok()) return Fail(run.status().message());
  auto analyzed = Pipeline(uarch).Analyze(*run);
  if (!analyzed.ok()) return Fail(analyzed.status().message());
  const td::RunAnalysis& analysis = *analyzed;
  if (!html_path.empty()) {
    const absl::Status written = td::WriteFileAtomically(html_path, td::FormatHtmlReport(*run, analysis, plot));
    if (!written.ok()) return Fail(written.message());
    std::fprintf(stderr, "td: wrote %s\n", html_path.c_str());
  } else if (as_json) {
    std::printf("%s\n", td::RunAnalysisToJson(*run, analysis).dump(1).c_str());
  } else if (as_csv) {
    std::fputs(td::FormatCsvReport(*run, &analysis).c_str(), stdout);
  } else {
    options.color = !no_color && isatty(STDOUT_FILENO) && !Environment().no_color;
    std::fputs(td::FormatTextReport(*run, &analysis, options).c_str(), stdout);
    if (explain && analysis.HasTrees()) std::fputs(td::FormatExplanations(analysis).c_str(), stdout);
  }
  return 0;
}

int Run(const Command& self, const Args& args) { return td::RunCommand(self, args); }

int Help(const Command& self, const Args& args);
int Version(const Command& self, const Args& args);

// In `td help` order: the everyday commands first.
const std::vector<Command> kCommands = {
    {"run", "run [--passes auto|N] [--out FILE] [--compat] [--mpi] [--] PROGRAM [ARGS…]",
     "run a program linked with td, once per share of the counter groups, merged",
     "Runs PROGRAM once per pass, each pass counting its share of the hardware counter\n"
     "groups, merges the passes' recordings by region into one file and prints its report.\n"
     "\n"
     "  --passes auto|N  how many passes (1 to 64); auto: one per hardware counter group.\n"
     "                   Without a PMU there is nothing to share out, so one pass.\n"
     "  --out FILE       the merged recording (default: td-PROGRAM-PID.json in\n"
     "                   TD_OUTPUT_DIR, else here); its folder must exist and be\n"
     "                   writable, which td checks before PROGRAM starts\n"
     "  --compat         preload libtd_compat (LIKWID and PAPI markers as td regions);\n"
     "                   done without asking when PROGRAM is linked with liblikwid\n"
     "                   or libpapi (docs/compat.md)\n"
     "  --mpi            preload libtd-mpi and libtd: the ranks of an MPI job write\n"
     "                   one file at MPI_Finalize; done without asking when PROGRAM\n"
     "                   is linked with MPI. PROGRAM then runs once, in place of td\n"
     "                   run (mpirun -np 4 td run -- ./prog; docs/hpc.md)\n"
     "\n"
     "td's flags end at PROGRAM (or at --): what follows is PROGRAM's.",
     Run},
    {"report",
     "report RUN.json [--uarch KEY] [--json | --csv | --html OUT.html] [--explain]\n"
     "report RUN.json [--level N] [--region NAME] [--all] [--threads] [--no-color] [--plot METRIC]\n"
     "report RANK.json RANK.json… | DIR [--uarch KEY] [--json | --csv | --html OUT.html]",
     "the report of a recorded td run, with its Top-Down trees; or of an MPI job's ranks",
     "Analyses a recording of a td run (td-PROGRAM-PID.json) and prints its report.\n"
     "The CPU comes from the recording, or from TD_UARCH or --uarch.\n"
     "Given the files of an MPI job's ranks (or the directory holding them), prints\n"
     "the job view: per region, the ranks that ran it, wall and task-clock time\n"
     "min/mean/max over ranks, the slowest rank and the imbalance (max / mean), and\n"
     "each Level-1 fraction's spread where the ranks have trees (docs/hpc.md); with\n"
     "--html, also a heat map of each region's wall time on each rank.\n"
     "\n"
     "  --uarch KEY      analyse as this microarchitecture (`td uarchs` lists the keys)\n"
     "  --json           the analysis as JSON\n"
     "  --csv            one row per region and value\n"
     "  --html OUT.html  an HTML report, written to OUT.html\n"
     "  --plot METRIC    the HTML's sweep plot: wall_per_call (default) or a node\n"
     "  --explain        after the report, what each flagged node means and what to try\n"
     "  --level N        show the flagged path down to Level N (1 upwards)\n"
     "  --region NAME    only this region (path or unique name) and what it contains\n"
     "  --all            every region; otherwise the TD_REPORT_REGIONS (30) longest by\n"
     "                   inclusive wall time, what contains them, and one line for the rest\n"
     "  --threads        a row per thread under each region (up to 8 threads unless --all)\n"
     "  --no-color       no ANSI colour (also NO_COLOR=1, or when stdout is not a terminal)",
     Report},
    {"compare",
     "compare A.json B.json … [--region PATH] [--csv | --html OUT.html]\n"
     "compare RUN.json --regions r1,r2,… [--csv | --html OUT.html]\n"
     "compare JOB_A_DIR JOB_B_DIR [--csv]",
     "runs or regions side by side: Speedup, IPC and the Top-Down nodes",
     "Lays runs, or regions of one run, side by side like the paper's Tables 4-6.\n"
     "Given two directories, each holding the rank files of one MPI job, lays the\n"
     "jobs side by side per region: ranks, mean wall time over ranks, imbalance,\n"
     "slowest rank, and the speedup of B over A (docs/hpc.md).\n"
     "\n"
     "  --region PATH    the region compared across runs (default: each run's first)\n"
     "  --regions LIST   the regions of one run to compare, comma-separated\n"
     "  --csv            as CSV\n"
     "  --html OUT.html  as HTML, written to OUT.html",
     Compare},
    {"explain", "explain [NODE]", "what a node or diagnosis means and what to try",
     "Prints what NODE means and what to try when it is flagged. NODE is a node's\n"
     "name or path (Memory_Bound, Backend_Bound.Memory_Bound) or a diagnosis id, in\n"
     "any case. Without NODE: every explanation, as Markdown (docs/explanations.md).",
     Explain},
    {"recompute", "recompute CASE.json", "Top-Down values from a case file's counts",
     "Evaluates td's formulas on the counts of a case file (docs/analysis.md) and\n"
     "prints the values as JSON. A recording of a td run is not a case file: give\n"
     "it to `td report`.",
     Recompute},
    {"import-perf", "import-perf --uarch KEY FILE", "Top-Down values from `perf stat -x,` output",
     "Evaluates td's formulas on `perf stat -x,` output, as recompute does.\n"
     "\n"
     "  --uarch KEY  the microarchitecture the counts come from (`td uarchs` lists them)",
     ImportPerf},
    td::kImportMetricsCommand,
    {"events", "events list [--pmu NAME | --pmus]\nevents encode EVENT [--pmu NAME]",
     "the events of a PMU, and the perf_event_attr td programs for one",
     "list    the events --pmu accepts, one a line, spelled EVENT.UMASK\n"
     "encode  the perf_event_attr td would program for EVENT, as JSON\n"
     "\n"
     "  --pmu NAME  a libpfm4 PMU (skl, icl, amd64_fam19h_zen4) or a td uarch key\n"
     "              (tgl, zen5); without it, this machine's PMU (the runtime's)\n"
     "  --pmus      list the names --pmu accepts instead of events\n"
     "\n"
     "EVENT is EVENT.UMASK or EVENT:UMASK[:c=N:e:i], in any case, or PMU::EVENT; every\n"
     "spelling of an event encodes the same. perf's generic names (cycles,\n"
     "instructions, task-clock, …) are perf's generic events on every PMU. td's own\n"
     "table wins over libpfm4 where libpfm4 4.13 is wrong or lacks the event.",
     Events},
    {"uarchs", "uarchs", "the microarchitecture keys td has definitions for",
     "Lists the keys --uarch, TD_UARCH and `td events --pmu` accept.", Uarchs},
    {"calibrate", "calibrate [--refresh]", "this machine's memory bandwidth peak, measured once and cached",
     "Measures the STREAM triad bandwidth of this machine, which reports compare a\n"
     "region's bandwidth with, and caches it; later runs print the cached value.\n"
     "\n"
     "  --refresh  measure again",
     Calibrate},
    {"config", "config [--markdown]", "every environment variable td reads, as set here",
     "Lists every variable td reads (TD_*, NO_COLOR, TMPDIR, XDG_CACHE_HOME) with its\n"
     "value in this environment or its default, then one line per value td would not\n"
     "accept (exit status 1 when there is one).\n"
     "\n"
     "  --markdown  the table of variables, values, defaults and meanings instead\n"
     "              (docs/usage.md's table is this output)",
     ConfigCommand},
    {"help", "help [COMMAND]", "the commands, or one command's flags",
     "Without COMMAND, the list of commands; with it, what `td COMMAND --help` prints.", Help},
    {"version", "version", "td's version (also td --version)", "Prints td's version.", Version},
};

const Command* FindCommand(const std::string& name) {
  for (const Command& command : kCommands) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const Command& command : kCommands) names.emplace_back(command.name);
  return names;
}

void PrintUsage(std::FILE* to) {
  std::fputs("usage: td COMMAND [FLAGS] [ARGUMENTS]\n"
             "       td help [COMMAND] | td COMMAND --help | td --version\n\n"
             "commands:\n",
             to);
  for (const Command& command : kCommands) absl::FPrintF(to, "  %-12s %s\n", command.name, command.summary);
  std::fputs("\nexit status: 0 done, 1 failed (a file, its contents or the machine said no),\n"
             "2 misused (an unknown command or flag, a missing argument)\n",
             to);
}

int UnknownCommand(const std::string& name) {
  const std::string hint = DidYouMean(name, CommandNames());
  return Misuse("unknown command " + name + (hint.empty() ? "; `td help` lists the commands" : hint));
}

int Help(const Command& self, const Args& args) {
  Args topics;
  if (const auto done = Flags(self).Parse(args, &topics)) return *done;
  if (topics.size() > 1) return WrongOperands(self, "at most one COMMAND");
  if (topics.empty()) {
    PrintUsage(stdout);
    return 0;
  }
  const Command* command = FindCommand(topics[0]);
  if (command == nullptr) return UnknownCommand(topics[0]);
  td::cli::PrintHelp(*command, stdout);
  return 0;
}

int Version(const Command& self, const Args& args) {
  Args operands;
  if (const auto done = Flags(self).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  std::printf("td %s\n", TD_VERSION_STRING);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintUsage(stderr);
    return td::cli::kMisused;
  }
  const std::string& first = args[0];
  const Args rest(args.begin() + 1, args.end());
  if (first == "--help" || first == "-h") return Help(*FindCommand("help"), rest);
  if (first == "--version") return Version(*FindCommand("version"), rest);
  if (first.size() > 1 && first[0] == '-') {
    const std::string hint = DidYouMean(first.substr(0, first.find('=')), {"--help", "--version"});
    return Misuse("unknown flag " + first + " for td" +
                  (hint.empty() ? "; a command comes first: `td help` lists them" : hint));
  }
  const Command* command = FindCommand(first);
  if (command == nullptr) return UnknownCommand(first);
  // Readers validate what they read; this is the net under what they miss
  // (an allocation failure, a library that throws): one line and status 1,
  // never an abort.
  try {
    return command->handler(*command, rest);
  } catch (const std::exception& e) {
    return Fail(std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail("internal error");
  }
}
