#include "tools/td/command_context.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "nlohmann/json.hpp"
#include "runtime/base/status_macros.h"
#include "runtime/job/job_loader.h"
#include "runtime/recorded/run_file.h"

namespace td::tool {

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
td::AnalysisSettings Settings(const std::string& uarch_flag) {
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
td::ReportPipeline Pipeline(const std::string& uarch_flag) { return td::ReportPipeline(Settings(uarch_flag)); }

int PrintAnswers(const td::PerfCase& c, const td::DefinitionLibrary& library) {
  auto answers = td::Recompute(c, library);
  if (!answers.ok()) return Fail(std::string(answers.status().message()));
  nlohmann::json out;
  out["case"] = c.id;
  out["uarch"] = td::CaseUarch(c, library).value_or(c.uarch);  // Recompute used it: it resolves
  if (!c.cpuid.empty()) out["cpuid"] = c.cpuid;
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

bool IsDirectory(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_directory(path, error);
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

}  // namespace td::tool
