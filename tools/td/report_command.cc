// td report: the report of one recorded run, or the job view of an MPI job's ranks.
#include "tools/td/commands.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "runtime/base/json_file.h"
#include "runtime/base/output_files.h"
#include "runtime/base/status_macros.h"
#include "runtime/job/job_file.h"
#include "runtime/job/job_loader.h"
#include "runtime/job/job_view.h"
#include "runtime/report/analysis_json.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/html_report.h"
#include "runtime/report/report_pipeline.h"
#include "runtime/report/text_report.h"
#include "runtime/report/topdown_text.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"
#include "tools/td/region_lookup.h"

namespace td::tool {
namespace {

// Whether the file at `path` is a page td wrote (it starts with td's mark).
bool IsTdPage(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find(td::kTdPageMark) != std::string::npos;
}

// Whether `path` is a run file of one rank of a job of more than one rank.
bool IsRankOfLargerJob(const std::string& path) {
  const absl::StatusOr<nlohmann::json> json = td::ReadJsonFile(path);
  if (!json.ok() || !json->is_object()) return false;
  const auto mpi = json->find("mpi");
  if (mpi == json->end() || !mpi->is_object()) return false;
  const auto size = mpi->find("size");
  return size != mpi->end() && size->is_number_integer() && size->get<int64_t>() > 1;
}

// Writes the page to `named`, or, when --html came without a name, beside
// `input`: X.json gives X.html, DIR gives DIR.html. An X.html that td did
// not write is left alone (the page goes to X.1.html, as td names its other
// files). Returns where it went.
absl::StatusOr<std::string> WritePage(const std::string& named, const std::string& input, const std::string& page) {
  if (!named.empty()) {
    TD_RETURN_IF_ERROR(td::WriteFileAtomically(named, page));
    return named;
  }
  std::string stem = input;
  while (stem.size() > 1 && stem.back() == '/') stem.pop_back();
  if (absl::EndsWith(stem, ".json")) stem.resize(stem.size() - 5);
  const std::string path = stem + ".html";
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored) || IsTdPage(path)) {
    TD_RETURN_IF_ERROR(td::WriteFileAtomically(path, page));
    return path;
  }
  const std::filesystem::path where(stem);  // "" as the folder: the name stays as the user gave it
  return td::WriteNewFile(where.parent_path().string(), where.filename().string(), ".html", page);
}

// Several files: the ranks of one MPI job, side by side (docs/hpc.md).
// `input`: the one operand (a directory, a job file) a page goes beside.
int ReportJob(const Args& files, std::string uarch, bool as_json, bool as_csv, bool as_html,
              const std::string& html_path, const std::string& input, td::HeatMetric heat) {
  const auto table = LoadJobTable(files, uarch);
  if (!table.ok()) return Fail(table.status().message());
  const td::JobView* view = &table->view;
  if (as_html) {
    const auto written = WritePage(html_path, input, td::FormatJobHtml(*view, heat));
    if (!written.ok()) return Fail(written.status().message());
    std::fprintf(stderr, "td: wrote %s\n", written->c_str());
  } else if (as_json) {
    std::string text = td::JobViewJsonText(*view);
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), stdout);  // tens of MB for a large job: no strlen
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
  bool as_html = false;
  std::string html_path;
  std::string plot = "wall_per_call";
  std::string heat;
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
                        .OptionalValue("--html", &html_path, &as_html)
                        .Value("--plot", &plot)
                        .Value("--heat", &heat)
                        .Switch("--explain", &explain)
                        .Switch("--threads", &per_thread)
                        .Switch("--no-color", &no_color)
                        .Value("--region", &region)
                        .Value("--level", &level)
                        .Parse(args, &files);
  if (done) return *done;
  if (int{as_json} + int{as_csv} + int{as_html} > 1) {
    return Misuse("--json, --csv and --html each choose the output; give one");
  }
  if (as_html && html_path.empty() && files.size() > 1) {
    return Misuse("--html needs a file name (--html OUT.html) when given several files");
  }
  const std::optional<td::HeatMetric> heat_metric = td::HeatMetricNamed(heat.empty() ? "wall" : heat);
  if (!heat_metric) return Misuse("--heat takes wall, cpu or mpi, not \"" + heat + "\"");
  if (!heat.empty() && !as_html) return Misuse("--heat colours the job view's HTML heat map: give --html too");
  const std::string input = files.size() == 1 ? files[0] : "";
  // A directory holding one rank of a larger job (the others failed to
  // write: killed after an MPI_Abort, say) is still the job's view, which
  // names the failed and missing ranks.
  bool one_rank_of_job = false;
  if (files.size() == 1 && IsDirectory(files[0])) {
    files = RunFilesIn(files[0]);
    one_rank_of_job = files.size() == 1 && IsRankOfLargerJob(files[0]);
  }
  if (files.size() > 1 || one_rank_of_job || (files.size() == 1 && td::IsJobFile(files[0]))) {
    if (explain || per_thread || all_regions || !region.empty() || !level.empty()) {
      return Misuse(
          "with a job file or several files (the ranks of one job) td report takes --json, --csv, --html and --uarch "
          "only");
    }
    return ReportJob(files, uarch, as_json, as_csv, as_html, html_path, input, *heat_metric);
  }
  if (files.size() != 1) return WrongOperands(self, "one RUN.json, the files of one MPI job, or their directory");
  if (!heat.empty()) return Misuse("--heat colours an MPI job's heat map; " + files[0] + " is one run");
  td::TextReportOptions options;
  options.per_thread = per_thread;
  options.region = region;
  options.max_regions = all_regions ? 0 : Environment().report_regions;
  if (!level.empty() && (!absl::SimpleAtoi(level, &options.max_level) || options.max_level < 1)) {
    return Misuse("--level takes a number from 1 (Level 1) upwards, not \"" + level + "\"");
  }
  auto run = ReadRunForReport(files[0]);
  if (!run.ok()) return Fail(run.status().message());
  if (!region.empty() && !NamesARegion(*run, region)) return Fail(NoRegion(files[0], *run, region));
  auto analyzed = Pipeline(uarch).Analyze(*run);
  if (!analyzed.ok()) return Fail(analyzed.status().message());
  const td::RunAnalysis& analysis = *analyzed;
  if (as_html) {
    const auto written = WritePage(html_path, files[0], td::FormatHtmlReport(*run, analysis, plot));
    if (!written.ok()) return Fail(written.status().message());
    std::fprintf(stderr, "td: wrote %s\n", written->c_str());
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

}  // namespace

const cli::Command kReportCommand = {
    "report",
    "report RUN.json [--uarch KEY] [--json | --csv | --html [OUT.html]] [--explain]\n"
    "report RUN.json [--level N] [--region NAME] [--all] [--threads] [--no-color] [--plot METRIC]\n"
    "report RANK.json RANK.json… | DIR [--uarch KEY] [--json | --csv | --html [OUT.html] [--heat METRIC]]",
    "the report of a recorded td run, with its Top-Down trees; or of an MPI job's ranks",
    "Analyses a recording of a td run (td-PROGRAM-PID.json) and prints its report.\n"
    "The CPU comes from the recording, or from TD_UARCH or --uarch.\n"
    "Given the files of an MPI job's ranks (or the directory holding them), prints\n"
    "the job view: per region, the ranks that ran it, wall and task-clock time\n"
    "min/mean/max over ranks, the slowest rank and the imbalance (max / mean), and\n"
    "each Level-1 fraction's spread where the ranks have trees (docs/hpc.md); with\n"
    "--html, also a heat map of the regions on the ranks, coloured by wall time, CPU\n"
    "time or MPI share (a selector on the page switches between them).\n"
    "\n"
    "  --uarch KEY      analyse as this microarchitecture (`td uarchs` lists the keys)\n"
    "  --json           the analysis as JSON\n"
    "  --csv            one row per region and value\n"
    "  --html [OUT.html]  an HTML report, written to OUT.html; without a name, beside\n"
    "                   the input (RUN.html, DIR.html), replacing only a page td wrote\n"
    "  --plot METRIC    the HTML's sweep plot: wall_per_call (default) or a node\n"
    "  --heat METRIC    a job's heat map as the page opens: wall (default), cpu or mpi\n"
    "  --explain        after the report, what each flagged node means and what to try\n"
    "  --level N        show the flagged path down to Level N (1 upwards)\n"
    "  --region NAME    only this region (path or name) and what it contains; a name\n"
    "                   no region has fails, naming the nearest\n"
    "  --all            every region; otherwise the TD_REPORT_REGIONS (30) longest by\n"
    "                   inclusive wall time, what contains them, and one line for the rest\n"
    "  --threads        a row per thread under each region (up to 8 threads unless --all)\n"
    "  --no-color       no ANSI colour (also NO_COLOR=1, or when stdout is not a terminal)",
    Report};

}  // namespace td::tool
