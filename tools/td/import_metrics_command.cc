#include "tools/td/commands.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/base/output_files.h"
#include "runtime/uarch/perf_metrics_import.h"

namespace td::tool {
namespace {

int ImportMetrics(const cli::Command& self, const cli::Args& args) {
  PerfImportOptions options;
  std::string cpus, out, latencies, slots;
  cli::Args inputs;
  const auto done = cli::Flags(self)
                        .Value("--uarch", &options.uarch)
                        .Value("--cpu", &cpus)
                        .Value("--pmu", &options.pmu)
                        .Value("--kernel", &options.kernel)
                        .Value("--libpfm-pmu", &options.libpfm_pmu)
                        .Value("--tma-version", &options.tma_version)
                        .Value("--hybrid", &options.hybrid)
                        .Value("--origin", &options.origin)
                        .Value("--retire-latencies", &latencies)
                        .Value("--slots", &slots)
                        .Value("--out", &out)
                        .Switch("--extend", &options.extend)
                        .Switch("--supersede", &options.supersede)
                        .Parse(args, &inputs);
  if (done) return *done;
  if (options.uarch.empty()) return cli::Misuse("import-metrics needs --uarch KEY, the key the imported CPU gets (e.g. srf)");
  options.extend |= options.supersede;
  if (options.extend && !cpus.empty()) return cli::Misuse("--extend adds nodes to a key td already recognises: leave out --cpu");
  if (inputs.empty()) return cli::WrongOperands(self, "perf's metrics file and event files, or their directory");
  if (!options.hybrid.empty() && options.pmu.empty()) return cli::Misuse("--hybrid names the whole part of a --pmu's core: give --pmu too");
  const std::vector<std::string> cpu_texts = absl::StrSplit(cpus, ',', absl::SkipEmpty());
  for (const std::string& text : cpu_texts) {
    auto cpu = ParsePerfCpu(text);
    if (!cpu.ok()) return cli::Misuse(cpu.status().message());
    options.cpus.push_back(*cpu);
  }
  if (!slots.empty()) {
    char* end = nullptr;
    const long n = std::strtol(slots.c_str(), &end, 10);
    if (*end != '\0' || n < 1 || n > 64) return cli::Misuse("--slots takes the core's slots per cycle, 1-64 (e.g. 10), not \"" + slots + "\"");
    options.slots = static_cast<int>(n);
  }
  options.paths = inputs;
  auto files = ReadPerfInputs(inputs);
  if (!files.ok()) return cli::Fail(files.status().message());
  if (!latencies.empty()) {
    auto lent = ReadPerfInputs({latencies});
    if (!lent.ok()) return cli::Fail(lent.status().message());
    for (PerfInputFile& f : *lent) {
      if (f.path.find("metrics") != std::string::npos || f.path.find("metricgroups") != std::string::npos) continue;
      f.retire_latencies_only = true;
      files->push_back(std::move(f));
    }
    options.retire_latency_paths.push_back(latencies);
  }
  if (options.kernel.empty()) options.kernel = KernelVersionAbove(inputs.front());
  auto result = ImportPerfMetrics(*files, options);
  if (!result.ok()) return cli::Fail(result.status().message());
  for (const std::string& line : result->skipped) std::fprintf(stderr, "td import-metrics: skipped %s\n", line.c_str());
  const std::string text = result->definition.dump(1) + "\n";
  if (out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else if (const absl::Status written = WriteFileAtomically(out, text); !written.ok()) {
    return cli::Fail(written.message());
  }
  std::fprintf(stderr,
               "td import-metrics: %s: %d %snodes (Levels %d-%d), %d auxiliaries, %d events, %zu not translated; "
               "%s%s\n",
               options.uarch.c_str(), result->nodes, options.supersede ? "laid-over " : options.extend ? "more " : "", result->min_level, result->max_level, result->auxiliaries, result->events,
               result->skipped.size(),
               (!options.origin.empty() ? options.origin
                : "kernel " + (options.kernel.empty() ? std::string("unknown (give it with --kernel)") : options.kernel))
                   .c_str(),
               out.empty() ? "" : ("; wrote " + out).c_str());
  return cli::kDone;
}

}  // namespace

const cli::Command kImportMetricsCommand = {
    "import-metrics",
    "import-metrics --uarch KEY [--cpu VENDOR:FAMILY:MODEL,…] [--pmu PMU] [--kernel VERSION]\n"
    "               [--libpfm-pmu NAME] [--extend | --supersede] [--tma-version V] [--hybrid PART]\n"
    "               [--slots N]\n"
    "               [--origin TEXT] [--retire-latencies DIR_OR_FILE] [--out FILE] DIR_OR_FILE…",
    "a td definition file from Linux perf's metric and event JSON for one CPU",
    "Translates Linux perf's pmu-events JSON for one CPU (tools/perf/pmu-events/arch/…:\n"
    "the metrics file, e.g. x86/sierraforest/srf-metrics.json, and the event files\n"
    "beside it) into one td definition file, printed on stdout. Put it in a directory\n"
    "named by TD_METRICS_DIR and td analyses that CPU (docs/analysis.md, \"Importing\n"
    "perf's metric files\"). A directory operand stands for every *.json in it.\n"
    "perf's tma_* metrics become the Top-Down tree (levels from TopdownL1-6, parents\n"
    "from their tma_PARENT_group), the metrics they use auxiliaries, the events they\n"
    "count events with perf_event_attr.config from the event files. A metric that\n"
    "cannot be translated is skipped with one line on stderr saying why. Arm's files\n"
    "(arm64/sbsa.json and a core's metrics.json, whose ArchStdEvent entries override\n"
    "sbsa's) give Level 1 with Arm's common event numbers; AMD's pipeline files\n"
    "(amdzen4/5 pipeline.json, PipelineL1/L2) the tree under td's node names.\n"
    "\n"
    "  --uarch KEY        the key the CPU gets (TD_UARCH, --uarch); not one of td's own\n"
    "  --cpu V:F:M,…      the CPUs that get it, as vendor:family:model (GenuineIntel:6:175\n"
    "                     or GenuineIntel:6:0xaf), Arm's as implementer:part (0x41:0xd84),\n"
    "                     so td recognises them by itself\n"
    "  --pmu PMU          hybrid files (alderlake): the PMU whose metrics and events to take\n"
    "                     (cpu_core, cpu_atom)\n"
    "  --kernel VERSION   the kernel version the files come from (default: the Makefile of\n"
    "                     the kernel tree holding the first input, when there is one)\n"
    "  --libpfm-pmu NAME  libpfm4's PMU for events td's table cannot encode (offcore, ldlat)\n"
    "  --extend           KEY is one of td's own: write only the Top-Down nodes td's\n"
    "                     definitions of it lack (deeper levels), under td's nodes, with\n"
    "                     the auxiliaries and events they need that td does not have\n"
    "  --supersede        KEY is one of td's own and the files a newer TMA version: the\n"
    "                     vendor's whole tree, laid over td's when loaded (td's formulas\n"
    "                     stay as the older version's fallback, labelled when used)\n"
    "  --tma-version V    the TMA version of the formulas (5.2), shown by td uarchs\n"
    "  --hybrid PART      with --pmu: the whole part's key (mtl), so td picks this key for\n"
    "                     that PMU's counts on such a CPU\n"
    "  --origin TEXT      where the files come from when not a kernel tree (vendor, commit,\n"
    "                     licence), written into the description\n"
    "  --retire-latencies DIR_OR_FILE  event files whose RetirementLatencyMean stands in\n"
    "                     for ':R' terms this CPU's own event files give none for\n"
    "  --slots N          perf's #slots: the core's slots per cycle (Arm: its PMU's\n"
    "                     caps/slots, e.g. 10 on Neoverse V3)\n"
    "  --out FILE         write the definition file to FILE instead of stdout",
    ImportMetrics};

}  // namespace td::tool
