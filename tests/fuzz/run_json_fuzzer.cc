// libFuzzer target: a recorded run (the JSON `td report` and
// TD_BACKEND=replay read) of any content is read or rejected with a message,
// and the fast reader (ScanRunText) never disagrees with the full one;
// a run that reads goes through what both do with it — the Top-Down
// analysis, the text report, `td report --json` and writing the run back —
// without crashing, and writing it back gives a file that reads the same.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/report/analysis_json.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_file.h"
#include "runtime/recorded/run_file.h"
#include "runtime/report/text_report.h"
#include "runtime/uarch/definitions.h"
#include "tests/fuzz/fuzz_library.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const td::DefinitionLibrary& library = td::fuzz::Library();
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The full reader's steps, without the file: non-throwing parse, then the reader.
  auto json = td::ParseJsonText(text, "fuzz.json");
  auto run = json.ok() ? td::RunFromJson(*json) : absl::StatusOr<td::RunData>(json.status());
  // ReadRunFile tries ScanRunText first: it may decode only what the full
  // reader decodes, and to the same run.
  if (const std::optional<td::RunData> scanned = td::ScanRunText(text)) {
    if (!run.ok()) {
      std::fprintf(stderr, "ScanRunText took a file the full reader refuses: %s\n",
                   std::string(run.status().message()).c_str());
      std::abort();
    }
    if (td::RunToJson(*scanned) != td::RunToJson(*run)) {
      std::fprintf(stderr, "ScanRunText decoded another run than the full reader\n");
      std::abort();
    }
  }
  if (!run.ok()) return 0;

  // td report: analysis, then the text report (and the one without a tree,
  // which the runtime prints when the run has no hardware counts).
  const td::RunAnalysis analysis = td::AnalyzeRun(*run, library, "");
  (void)td::FormatTextReport(*run, &analysis);
  (void)td::FormatTextReport(*run);
  td::TextReportOptions options;
  options.max_level = 2;
  options.per_thread = false;
  if (!run->regions.empty()) options.region = run->regions.back().name;
  (void)td::FormatTextReport(*run, &analysis, options);
  // td report --json dumps with the throwing default: the strings must be valid.
  (void)td::RunAnalysisToJson(*run, analysis).dump(1);

  // Replay writes the run back (RunToJson + DumpJson): it must read again,
  // and write the same file a second time.
  const nlohmann::json written = td::RunToJson(*run);
  const std::string body = td::DumpJson(written, 1);
  auto reparsed = td::ParseJsonText(body, "written.json");
  if (!reparsed.ok()) {
    std::fprintf(stderr, "written run is not JSON: %s\n", std::string(reparsed.status().message()).c_str());
    std::abort();
  }
  auto again = td::RunFromJson(*reparsed);
  if (!again.ok()) {
    std::fprintf(stderr, "written run does not read back: %s\n", std::string(again.status().message()).c_str());
    std::abort();
  }
  if (td::DumpJson(td::RunToJson(*again), 1) != body) {
    std::fprintf(stderr, "run changes when written back\n");
    std::abort();
  }
  // The runtime writes each region straight into the text, one per line:
  // parsed, it is the same document.
  auto streamed = td::ParseJsonText(td::RunFileText(*run), "streamed.json");
  if (!streamed.ok() || *streamed != written) {
    std::fprintf(stderr, "RunFileText differs from the document\n");
    std::abort();
  }
  // Reports take td's marker cost out of whatever the file holds (counts up
  // to 2^64 - 1, any cost): no overflow, no out-of-range conversion.
  td::RunData compensated = *run;
  td::TakeOutMarkerCost(&compensated);
  return 0;
}
