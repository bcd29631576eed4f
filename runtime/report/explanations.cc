#include "runtime/report/explanations.h"

#include "absl/strings/str_format.h"
#include "runtime/analysis/topdown_tree.h"

namespace td {

namespace {

// The diagnoses explain themselves in analysis's words, so that `td explain`
// and a report's advice never disagree.
std::vector<Explanation>* WithDiagnoses(std::vector<Explanation>* nodes) {
  for (const DiagnosisKind& k : DiagnosisKinds()) nodes->push_back({k.id, k.meaning, k.advice});
  return nodes;
}

}  // namespace

const std::vector<Explanation>& AllExplanations() {
  static const auto* table = WithDiagnoses(new std::vector<Explanation>{
      {"Frontend_Bound",
       "Slots where the back end could have taken work but the front end delivered none: "
       "instructions were not fetched or decoded in time.",
       "Look at its children: latency (code not in the caches, taken-branch redirects) or "
       "bandwidth (decoders too slow for this code)."},
      {"Fetch_Latency",
       "Cycles in which no operation came out of the front end at all: instruction-cache or "
       "instruction-TLB misses, branch resteers, microcode switches.",
       "Shrink the hot code (less inlining and unrolling in cold paths, profile-guided "
       "optimisation, hot/cold splitting), keep hot functions together, use large pages for code."},
      {"Fetch_Bandwidth",
       "The front end delivered operations, but fewer than the machine can take per cycle: "
       "decoder limits, instructions that are long or hard to decode.",
       "Make hot loops fit the decoded-operation cache; avoid long instruction encodings and "
       "length-changing prefixes in hot code."},
      {"Bad_Speculation",
       "Slots spent on work that was thrown away: operations issued on a wrong path, and the "
       "slots lost while the machine recovered.",
       "Find the unpredictable branches (children: mispredicts vs machine clears)."},
      {"Branch_Mispredicts",
       "Wrong-path work after mispredicted branches.",
       "Make branches predictable (sort or partition data), turn them into arithmetic or "
       "conditional moves, or move the test out of the hot loop."},
      {"Machine_Clears",
       "The pipeline was flushed for other reasons: memory-ordering conflicts between threads, "
       "self-modifying code, floating-point assists.",
       "Look for threads writing data others read (see false sharing), denormal numbers, or "
       "code that writes near code."},
      {"Retiring",
       "Slots that did useful work: operations that completed. A high share is good; what is "
       "left to gain is in doing fewer or cheaper operations.",
       "Vectorise, pick a better algorithm, remove redundant work; check Heavy_Operations."},
      {"Light_Operations",
       "Retired operations that come from simple instructions (one operation each).",
       "Do less work per result: vectorise (one instruction, several elements), hoist "
       "invariants, strength-reduce."},
      {"Heavy_Operations",
       "Retired operations from instructions that need several operations or microcode.",
       "Avoid microcoded instructions in hot code (some string, divide, gather, or legacy "
       "instructions); see Microcode_Sequencer."},
      {"Microcode_Sequencer",
       "Operations delivered by the microcode sequencer for complex instructions or assists.",
       "Find the microcoded instructions in the hot loop and replace them; check for "
       "floating-point assists from denormals."},
      {"Backend_Bound",
       "Slots where operations were ready to enter the back end but it had no room: the "
       "machine was waiting for data (memory) or for execution resources (core).",
       "Follow its children: Memory_Bound or Core_Bound."},
      {"Memory_Bound",
       "Back-end stalls caused by loads and stores: data not in a close enough cache, or the "
       "store path full.",
       "Follow the cache level that is flagged below it; improve locality (access order, "
       "blocking), reduce footprint, prefetch."},
      {"L1_Bound",
       "Stalls although the data was in the first-level cache: load-to-use latency, "
       "store-forwarding problems, 4 KiB aliasing, or DTLB misses.",
       "Shorten dependency chains through memory, avoid loads that partially overlap earlier "
       "stores, offset arrays whose addresses are 4 KiB apart."},
      {"L2_Bound",
       "Stalls on loads that missed the first-level cache and hit the second.",
       "Block loops so the working set fits in L1; access memory in order."},
      {"L3_Bound",
       "Stalls on loads served by the last-level cache (or by another core's cache).",
       "Block for L2; check the sharing nodes below it when threads share data."},
      {"Contested_Accesses",
       "Estimated cycles of loads that hit a line another core had modified: data written by "
       "one thread and read by another.",
       "Let each thread write its own data; batch updates to shared data; pad data that "
       "different threads write."},
      {"Data_Sharing",
       "Estimated cycles of loads that hit clean lines shared with another core.",
       "Usually harmless; if large, give each thread a private copy of read-mostly data."},
      {"DRAM_Bound",
       "Stalls on loads that missed every cache and went to memory.",
       "Reduce the bytes moved: blocking, better data layout (structure of arrays), smaller "
       "types; overlap misses with prefetch. Children tell bandwidth from latency."},
      {"MEM_Bandwidth",
       "Cycles with many memory reads in flight: the memory bus is the limit.",
       "Move fewer bytes: fuse passes over the same data, compress, use smaller types; more "
       "threads will not help once the bus is saturated."},
      {"MEM_Latency",
       "Cycles waiting on few outstanding memory reads: each miss is paid in full.",
       "Create memory-level parallelism: independent accesses, software prefetch a few "
       "iterations ahead, avoid pointer chasing."},
      {"Store_Bound",
       "Stalls because the store buffer was full: stores could not leave the core fast enough.",
       "Store less, or to fewer cache lines; for threads, check for false sharing."},
      {"False_Sharing",
       "Estimated cycles of stores that needed a line modified by another core: different "
       "threads writing different data on the same cache line.",
       "Give each thread's data its own 64-byte line (alignas(64) or padding), or accumulate in "
       "locals and combine once."},
      {"Core_Bound",
       "Back-end stalls not due to memory: execution units busy, long-latency operations such "
       "as divides, or dependency chains that leave ports idle.",
       "Break dependency chains (more accumulators), vectorise, replace divides; see Divider "
       "and Ports_Utilization."},
      {"Divider",
       "Cycles the divider unit was busy: divisions and square roots are slow and not fully "
       "pipelined.",
       "Multiply by a reciprocal computed once, hoist divisions out of loops, use lower "
       "precision where it is enough."},
      {"Ports_Utilization",
       "Cycles where few execution ports did work although operations were waiting: too little "
       "instruction-level parallelism.",
       "Interleave independent work, unroll with several accumulators, vectorise."},
      {"Ports_Utilized_0",
       "Cycles with no operation executing on any port (often long-latency dependencies).",
       "Break the dependency chain that leaves the machine idle."},
      {"Ports_Utilized_1", "Cycles with operations on exactly one port.",
       "Add independent work so more ports can be used at once."},
      {"Ports_Utilized_2", "Cycles with operations on exactly two ports.",
       "As for one port: more independent operations per cycle."},
      {"Ports_Utilized_3m", "Cycles with operations on three or more ports: the core is busy.",
       "Reduce the number of operations (vectorise, simpler algorithm)."},
      {"SMT_Contention",
       "Slots lost to the other hardware thread on the same core (AMD).",
       "Compare with SMT off or with the sibling idle; place busy threads on separate cores."},
      {"Backend_Bound_Aux",
       "Gracemont's back-end share, counted the same way as Backend_Bound.",
       "Follow Resource_Bound and Core_Bound below Backend_Bound."},
      {"Resource_Bound",
       "Gracemont: allocation stalled because a back-end resource (scheduler, registers, "
       "reorder buffer) was full; with Core_Bound it makes up Backend_Bound.",
       "Follow the flagged resource below it: schedulers, registers, reorder buffer or serialization."},
      {"Allocation_Restriction",
       "Gracemont: slots lost to rules of the allocation stage itself, not to a full resource.",
       "Usually a property of the instruction mix; vectorise or reduce the operation count."},
      {"Mem_Scheduler",
       "Gracemont: allocation waited because the memory schedulers (load and store buffers, "
       "reservation stations for memory operations) were full.",
       "Reduce memory operations in flight that wait on misses: improve locality, fewer stores; "
       "see ST_Buffer."},
      {"ST_Buffer",
       "Gracemont: the part of Mem_Scheduler spent with the store buffer full.",
       "Store less, or to fewer cache lines; for threads, check for false sharing."},
      {"Non_Mem_Scheduler",
       "Gracemont: allocation waited because the schedulers of arithmetic operations were full.",
       "Shorten dependency chains behind long-latency operations (divides, dependent loads)."},
      {"Register",
       "Gracemont: allocation waited for free physical registers.",
       "Shorten the lifetime of values in flight: fewer long dependency chains."},
      {"Reorder_Buffer",
       "Gracemont: allocation waited because the reorder buffer was full, usually behind a "
       "long-latency operation at its head.",
       "Find the long-latency operation (often a cache miss) and hide or remove it."},
      {"Serialization",
       "Gracemont: allocation waited on serializing instructions or operations that drain the "
       "pipeline.",
       "Avoid serializing instructions (fences, CPUID, some system instructions) in hot code."},
      {"ICache_Misses", "Gracemont: no operations delivered while instruction fetches missed the cache.",
       "Shrink or reorder the hot code so it fits the instruction cache."},
      {"ITLB_Misses", "Gracemont: no operations delivered while instruction addresses missed the TLB.",
       "Keep hot code together; use large pages for code."},
      {"Branch_Detect",
       "Gracemont: front-end slots lost detecting branches the predictor had not seen in time.",
       "Fewer taken branches in hot code: inline small functions, lay out the likely path straight."},
      {"Branch_Resteer", "Gracemont: front-end slots lost to fetch redirects after predicted branches.",
       "Fewer taken branches in hot code: inline small functions, lay out the likely path straight."},
      {"CISC", "Gracemont: decode slots lost to instructions that need the microcode or complex decoder.",
       "Avoid complex or microcoded instructions in hot loops."},
      {"Decode", "Gracemont: the decoders delivered fewer operations than the machine could take.",
       "Prefer short, simple instruction encodings in hot code."},
      {"Predecode", "Gracemont: slots lost finding instruction boundaries before decoding.",
       "Avoid length-changing prefixes and unusually long instructions in hot code."},
      {"Other_FB", "Gracemont: front-end bandwidth lost for other reasons.",
       "Look at the rest of the front-end nodes first."},
      {"Nuke", "Gracemont: machine clears that flush the whole pipeline (memory ordering, "
       "self-modifying code).",
       "Look for threads writing data others read (see false sharing) or code that writes near code."},
      {"Fast_Nuke", "Gracemont: cheaper machine clears, such as memory-disambiguation mistakes.",
       "Avoid loads that depend on recent stores to nearby addresses."},
      {"Base", "Gracemont: retired operations not from microcode.", "As for Light_Operations."},
      {"MS_Uops", "Gracemont: retired operations from the microcode sequencer.",
       "As for Microcode_Sequencer."},
  });
  return *table;
}

const Explanation* ExplanationFor(const std::string& name) {
  const std::string short_name = name.substr(name.rfind('.') + 1);
  for (const Explanation& e : AllExplanations()) {
    if (short_name == e.node) return &e;
  }
  return nullptr;
}

std::string ExplanationsMarkdown() {
  std::string out =
      "# What the nodes mean\n\n"
      "Generated by `td explain`; the same text appears in `td report --explain`.\n\n";
  for (const Explanation& e : AllExplanations()) {
    absl::StrAppendFormat(&out, "## %s\n\n%s\n\n**When flagged:** %s\n\n", e.node, e.meaning, e.to_try);
  }
  return out;
}

}  // namespace td
