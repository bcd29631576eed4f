// td import-perf: Top-Down values from `perf stat -x,` output.
#include "tools/td/commands.h"

#include <string>

#include "runtime/analysis/perf_case.h"
#include "runtime/base/json_file.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

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

}  // namespace

const cli::Command kImportPerfCommand = {
    "import-perf", "import-perf --uarch KEY FILE", "Top-Down values from `perf stat -x,` output",
    "Evaluates td's formulas on `perf stat -x,` output, as recompute does.\n"
    "\n"
    "  --uarch KEY  the microarchitecture the counts come from (`td uarchs` lists them)",
    ImportPerf};

}  // namespace td::tool
