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
      {"Branch_Resteers",
       "Cycles the front end stalled while it redirected fetching to the right path after a "
       "branch went the wrong way or was not recognised; it may overlap its siblings.",
       "See its children: mispredictions (make branches predictable), machine clears, or "
       "branches the predictor had not seen (a smaller, more compact hot path)."},
      {"Mispredicts_Resteers",
       "The part of Branch_Resteers that follows branches found to be mispredicted when they "
       "executed: fetching restarts from the correct target.",
       "As for Branch_Mispredicts: make the branch predictable or remove it (branchless code, "
       "sorted or partitioned data)."},
      {"Clears_Resteers",
       "The part of Branch_Resteers that follows machine clears: after the pipeline is flushed, "
       "fetching has to start again.",
       "Reduce the clears themselves; see Machine_Clears (threads writing shared data, "
       "self-modifying code, assists)."},
      {"Unknown_Branches",
       "The part of Branch_Resteers caused by branches the predictor knew nothing about: "
       "fetched for the first time, or pushed out because too many branches compete for its "
       "tables.",
       "Shrink the branch footprint of hot code: less inlining and unrolling in cold paths, "
       "profile-guided optimisation to pack hot code, fewer indirect calls."},
      {"DSB_Switches",
       "Cycles lost when delivery switched from the decoded-operation cache (DSB) to the slower "
       "legacy decoders because the code was not in that cache.",
       "Keep hot loops small and compact so they stay in the decoded cache; hot/cold splitting "
       "and profile-guided optimisation help, as can aligning hot loops."},
      {"LCP",
       "Cycles the decoders stalled on length-changing prefixes: a size prefix that alters the "
       "length of an instruction's immediate (typically a 16-bit constant), which forces slow "
       "re-decoding.",
       "Avoid 16-bit immediates in hot code: use 32-bit variables instead of short, or put the "
       "constant in a register first; compilers tuned for the target usually do this."},
      {"MS_Switches",
       "Cycles lost when delivery was handed over to the microcode sequencer for microcoded "
       "instructions or assists; every switch costs a few cycles.",
       "Replace microcoded instructions in the hot path (some string, divide or legacy "
       "instructions) and remove assists such as denormals (see Assists)."},
      {"Fetch_Bandwidth",
       "The front end delivered operations, but fewer than the machine can take per cycle: "
       "decoder limits, instructions that are long or hard to decode.",
       "Make hot loops fit the decoded-operation cache; avoid long instruction encodings and "
       "length-changing prefixes in hot code."},
      {"MITE",
       "Cycles in which the legacy decode pipeline (MITE), used for code not held in the "
       "decoded caches, limited how many operations the front end delivered.",
       "Help hot code fit the decoded-operation cache (smaller loops, fewer taken branches); "
       "avoid long instruction encodings and length-changing prefixes."},
      {"Decoder0_Alone",
       "Cycles in which only the first legacy decoder was busy, typically because the "
       "instructions produce several operations and only that decoder can handle them.",
       "Avoid instructions that decode into several operations in hot code (see "
       "Few_Uops_Instructions), or make the loop fit the decoded-operation cache."},
      {"MITE_4wide",
       "Cycles in which the legacy decoders delivered exactly four operations, below the full "
       "allocation width of Ice Lake and later cores.",
       "Usually a hint that hot code runs from the legacy decoders: make it fit the "
       "decoded-operation cache or loop buffer (compact loops, fewer taken branches)."},
      {"DSB",
       "Cycles in which the decoded-operation cache (DSB) itself limited delivery: it supplied "
       "fewer operations per cycle than the machine could take.",
       "Make each fetched block of hot code yield more operations: fewer taken branches, "
       "compact loop bodies, aligned hot loops."},
      {"LSD",
       "Cycles in which the loop stream detector, which replays the operations of small loops "
       "without fetching them again, delivered fewer than the machine could take.",
       "Rarely large; if it is, unroll the small loop a little or change its size so its "
       "operation count suits the loop buffer better."},
      {"Bad_Speculation",
       "Slots spent on work that was thrown away: operations issued on a wrong path, and the "
       "slots lost while the machine recovered.",
       "Find the unpredictable branches (children: mispredicts vs machine clears)."},
      {"Branch_Mispredicts",
       "Wrong-path work after mispredicted branches.",
       "Make branches predictable (sort or partition data), turn them into arithmetic or "
       "conditional moves, or move the test out of the hot loop."},
      {"Other_Mispredicts",
       "The part of Branch_Mispredicts not tied to retired branch instructions: mispredictions "
       "of other kinds, or of branches that never retired.",
       "Usually small; if it dominates, sample branch-miss events to see where the wrong-path "
       "work begins."},
      {"Machine_Clears",
       "The pipeline was flushed for other reasons: memory-ordering conflicts between threads, "
       "self-modifying code, floating-point assists.",
       "Look for threads writing data others read (see false sharing), denormal numbers, or "
       "code that writes near code."},
      {"Other_Nukes",
       "Machine clears not caused by memory-ordering conflicts, for example self-modifying code "
       "and other, rarer reasons for flushing the pipeline.",
       "Look for code written near code that runs (JIT buffers sharing pages with data) and for "
       "floating-point assists from denormals."},
      {"Retiring",
       "Slots that did useful work: operations that completed. A high share is good; what is "
       "left to gain is in doing fewer or cheaper operations.",
       "Vectorise, pick a better algorithm, remove redundant work; check Heavy_Operations."},
      {"Light_Operations",
       "Retired operations that come from simple instructions (one operation each).",
       "Do less work per result: vectorise (one instruction, several elements), hoist "
       "invariants, strength-reduce."},
      {"FP_Arith",
       "Share of retired work that is floating-point arithmetic (scalar, vector and x87); it "
       "can exceed its parent because a fused multiply-add may be counted twice.",
       "Check the children: scalar work in hot loops is a candidate for vectorisation, and "
       "wider vectors do more per operation."},
      {"X87_Use",
       "An estimate of how much of the retired work uses the legacy x87 floating-point unit.",
       "Compile for SSE2 or AVX floating point (the x86-64 default); avoid long double in hot "
       "code unless its extra precision is needed."},
      {"FP_Scalar",
       "Share of retired work that is scalar floating-point arithmetic: one value per "
       "instruction.",
       "Vectorise hot loops: remove loop-carried dependencies and aliasing doubts (restrict), "
       "compile with -O3 and -march for the target, or use SIMD intrinsics or libraries."},
      {"FP_Vector",
       "Share of retired work that is vector floating-point arithmetic, all vector widths "
       "together.",
       "A good sign; check the width children to see whether the widest vectors the machine "
       "supports are used."},
      {"FP_Vector_128b",
       "Share of retired work that is floating-point arithmetic on 128-bit vectors (SSE or "
       "128-bit AVX).",
       "If the machine has AVX2 or AVX-512, compile for it (-march, function multiversioning) "
       "so the loops use wider vectors."},
      {"FP_Vector_256b",
       "Share of retired work that is floating-point arithmetic on 256-bit (AVX) vectors.",
       "On AVX-512 machines, try 512-bit vectors (e.g. -mprefer-vector-width=512) and measure; "
       "elsewhere this is already the widest."},
      {"FP_Vector_512b",
       "Share of retired work that is floating-point arithmetic on 512-bit (AVX-512) vectors.",
       "Already the widest: keep the data aligned and the loop fed from cache, and compare with "
       "256-bit code in case the clock frequency drops."},
      {"Int_Operations",
       "Share of retired work that is selected integer vector arithmetic (add, subtract, sums "
       "of differences, VNNI dot products); the children split it by vector width.",
       "Check the width children; wider integer vectors do more per operation."},
      {"Int_Vector_128b",
       "Share of retired work that is 128-bit integer vector add, subtract, sum-of-differences "
       "or VNNI operations.",
       "If the machine has AVX2 or AVX-512, compile for it so these loops use wider vectors."},
      {"Int_Vector_256b",
       "Share of retired work that is 256-bit integer vector add, subtract, multiply, "
       "sum-of-differences or VNNI operations.",
       "Already wide; on AVX-512 machines try 512-bit vectors and measure; use VNNI for "
       "small-integer dot products."},
      {"Memory_Operations",
       "Share of retired work that is loads and stores.",
       "Keep values in registers: fewer spills, loads hoisted out of loops, no aliasing that "
       "forces reloads (restrict); load and store whole vectors where possible."},
      {"Fused_Instructions",
       "Share of retired work where one operation stood for two adjacent instructions the "
       "hardware merged, typically a compare or decrement followed by a conditional jump.",
       "Good in itself; keep compare-and-branch pairs adjacent (compilers do) so they can "
       "merge."},
      {"Non_Fused_Branches",
       "Share of retired work spent on branches that were not merged with the instruction "
       "before them, such as unconditional jumps and calls.",
       "Fewer branches in hot code: inline small functions, unroll short loops, use branchless "
       "selects."},
      {"Branch_Instructions",
       "Share of retired work spent on branch instructions, merged with a compare or not.",
       "Fewer branches in hot code: inline small functions, unroll short loops, turn branches "
       "into conditional moves or arithmetic."},
      {"Other_Light_Ops",
       "The light operations left over once its siblings are counted: register moves, logic, "
       "shuffles, NOPs and the like.",
       "Look at its children (NOPs, shuffles); otherwise cut the operation count with a simpler "
       "algorithm or vectorisation."},
      {"Nop_Instructions",
       "Share of retired work spent on NOP instructions, which compilers insert mostly to align "
       "function and loop starts.",
       "If large on a hot path, reduce alignment padding there (-falign-loops, -falign-jumps) "
       "or lay out code so the padding is not executed."},
      {"Shuffles_256b",
       "Share of retired work spent on 256-bit shuffles (floating-point or integer), some of "
       "which move data slowly between the two 128-bit halves.",
       "Pick a data layout that needs fewer shuffles (structure of arrays), keep shuffles "
       "within 128-bit lanes, or hoist them out of the inner loop."},
      {"Heavy_Operations",
       "Retired operations from instructions that need several operations or microcode.",
       "Avoid microcoded instructions in hot code (some string, divide, gather, or legacy "
       "instructions); see Microcode_Sequencer."},
      {"Few_Uops_Instructions",
       "Share of retired work from instructions that decode into a handful of operations (two "
       "up to four or five) without needing microcode.",
       "Prefer instructions that decode into a single operation in hot code; compile for the "
       "target (-march) so the compiler picks cheaper forms."},
      {"Microcode_Sequencer",
       "Operations delivered by the microcode sequencer for complex instructions or assists.",
       "Find the microcoded instructions in the hot loop and replace them; check for "
       "floating-point assists from denormals."},
      {"Assists",
       "Operations injected by microcode to handle cases the execution units cannot deal with "
       "directly, such as denormal floating-point values or page faults.",
       "See its children; for denormals, enable flush-to-zero and denormals-are-zero or rescale "
       "the data."},
      {"FP_Assists",
       "The part of Assists spent on floating-point corner cases, mostly arithmetic on denormal "
       "(extremely small) numbers.",
       "Enable flush-to-zero and denormals-are-zero (compiler flag or MXCSR) if the lost "
       "precision is acceptable, or keep values out of the denormal range."},
      {"AVX_Assists",
       "The part of Assists caused by switching between legacy SSE and AVX instructions.",
       "Compile all hot code for the same instruction set (e.g. -mavx2 throughout) so SSE code "
       "is VEX-encoded, and make sure VZEROUPPER runs after AVX code."},
      {"Page_Faults",
       "The part of Assists spent on page faults, usually the first touch of a memory page; the "
       "operating system's own handling is not included and is usually larger.",
       "Reuse buffers instead of freeing and reallocating them, touch memory before the hot "
       "phase, or use large pages."},
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
      {"L1_Hit_Latency",
       "Estimated cycles of loads that hit the first-level cache but still exposed its few "
       "cycles of latency, for example in pointer chasing.",
       "Break chains of dependent loads: keep values in registers, prefer arrays to linked "
       "structures, interleave independent chains."},
      {"DTLB_Load",
       "Estimated cost of loads that missed the first-level data TLB, whether the second-level "
       "TLB had the translation or a page walk was needed.",
       "Touch fewer pages: improve locality, shrink the working set, use large pages for big "
       "arrays."},
      {"Load_STLB_Hit",
       "The part of DTLB_Load where the second-level TLB had the translation: a short delay per "
       "miss.",
       "Access data page by page rather than scattered; large pages need fewer TLB entries."},
      {"Load_STLB_Miss",
       "The part of DTLB_Load where the second-level TLB missed too and the hardware had to "
       "walk the page tables.",
       "Use large pages (transparent huge pages, madvise) for big data, and avoid random access "
       "over a large footprint."},
      {"Store_Fwd_Blk",
       "Estimated cycles of loads that waited because they could not take their data from an "
       "earlier overlapping store still in flight, e.g. a wide load after a narrower store.",
       "Read data back with the same size and alignment it was written with; avoid writing "
       "parts of a value and then reading it whole."},
      {"4K_Aliasing",
       "How often a load was wrongly matched with an earlier store whose address differs by a "
       "multiple of 4 KiB, costing a short re-issue; often hidden.",
       "Only matters if L1_Bound is high too; offset arrays used together so their addresses do "
       "not differ by a multiple of 4 KiB (pad the allocations)."},
      {"Lock_Latency",
       "Cycles spent on cache misses of locked (atomic) operations; they are counted under "
       "L1_Bound wherever the data came from.",
       "Use fewer atomic operations: per-thread counters combined at the end, batched updates, "
       "less contended locks."},
      {"Split_Loads",
       "Cycles spent on loads that cross a 64-byte cache-line boundary and so need two "
       "accesses.",
       "Align data (alignas, aligned allocation) so hot loads do not straddle lines; avoid "
       "packed structures with misaligned fields."},
      {"FB_Full",
       "A rough estimate of how often first-level cache misses could not proceed because every "
       "fill buffer (one per outstanding miss) was taken; often a sign of nearing a bandwidth "
       "limit.",
       "Move fewer bytes (see MEM_Bandwidth): better locality, smaller types; non-temporal "
       "stores for large outputs not read back soon."},
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
      {"L3_Hit_Latency",
       "Estimated cycles of loads served by the last-level cache at its unloaded latency: the "
       "data had missed the core's private caches.",
       "Block loops so the working set fits in L2; reorder or prefetch accesses so these misses "
       "overlap."},
      {"SQ_Full",
       "Cycles in which the queue for the core's requests beyond L2 (the super queue) was full, "
       "both hardware threads together: a sign of bandwidth pressure.",
       "Reduce traffic beyond L2: block for L2, fuse passes over the same data; see "
       "MEM_Bandwidth."},
      {"DRAM_Bound",
       "Stalls on loads that missed every cache and went to memory.",
       "Reduce the bytes moved: blocking, better data layout (structure of arrays), smaller "
       "types; overlap misses with prefetch. Children tell bandwidth from latency."},
      {"MEM_Bandwidth",
       "Cycles with many memory reads in flight: the memory bus is the limit.",
       "Move fewer bytes: fuse passes over the same data, compress, use smaller types; more "
       "threads will not help once the bus is saturated."},
      {"Mba_Stalls",
       "Cycles in which the core was probably slowed by Memory Bandwidth Allocation (Resource "
       "Director Technology) throttling its memory traffic.",
       "Check the RDT (resctrl) settings for this workload's class of service; otherwise move "
       "fewer bytes, as for MEM_Bandwidth."},
      {"MEM_Latency",
       "Cycles waiting on few outstanding memory reads: each miss is paid in full.",
       "Create memory-level parallelism: independent accesses, software prefetch a few "
       "iterations ahead, avoid pointer chasing."},
      {"Local_Mem",
       "Estimated cycles of loads served from memory attached to the local socket.",
       "As for MEM_Latency: better locality and caching, prefetch, less pointer chasing."},
      {"Remote_Mem",
       "Estimated cycles of loads served from memory attached to another socket, often because "
       "data was not placed near the threads that use it.",
       "First touch data on the thread that uses it, pin threads (numactl, OMP_PROC_BIND), or "
       "interleave data that all threads share."},
      {"Remote_Cache",
       "Estimated cycles of loads served from a cache on another socket, including lines "
       "modified there: data shared between threads on different sockets.",
       "Keep threads that share data on one socket; write shared data less often; see the "
       "sharing nodes under L3_Bound."},
      {"PMM_Bound",
       "A rough estimate of stalls on loads served from persistent memory (Intel Optane DC PMM) "
       "on Cascade Lake and later servers.",
       "Keep hot data in DRAM (or let memory mode cache it); read persistent memory "
       "sequentially and in large blocks."},
      {"Store_Bound",
       "Stalls because the store buffer was full: stores could not leave the core fast enough.",
       "Store less, or to fewer cache lines; for threads, check for false sharing."},
      {"False_Sharing",
       "Estimated cycles of stores that needed a line modified by another core: different "
       "threads writing different data on the same cache line.",
       "Give each thread's data its own 64-byte line (alignas(64) or padding), or accumulate in "
       "locals and combine once."},
      {"Store_Latency",
       "Cycles spent on stores that missed the first-level cache; they seldom stall directly "
       "but hold resources such as fill buffers for longer.",
       "Write fewer cache lines and write them in order; keep written data in cache (blocking); "
       "see FB_Full."},
      {"Split_Stores",
       "Rate of stores that cross a 64-byte cache-line boundary.",
       "Align the destination to the store size or to 64 bytes; avoid unaligned vector stores "
       "in hot loops."},
      {"Streaming_Stores",
       "How often the core waited on streaming (non-temporal) stores, which write memory "
       "without first reading the line.",
       "Use them only for large outputs not read again soon; otherwise use ordinary stores or "
       "write less data."},
      {"DTLB_Store",
       "Estimated cycles spent on stores that missed the first-level data TLB.",
       "Write to fewer pages: improve the locality of stores, use large pages for big output "
       "buffers."},
      {"Store_STLB_Hit",
       "The part of DTLB_Store where the second-level TLB had the translation.",
       "Write data page by page rather than scattered; large pages need fewer TLB entries."},
      {"Store_STLB_Miss",
       "The part of DTLB_Store where the second-level TLB missed too and a page walk was "
       "needed.",
       "Use large pages for big output buffers and avoid scattered writes over a large "
       "footprint."},
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
      {"AMX_Busy",
       "Cycles the Advanced Matrix Extensions (AMX) unit was busy with tile arithmetic "
       "(Sapphire Rapids and later).",
       "Fine if matrix work is the point; keep the tiles fed (blocking, data layout) and use "
       "full tile sizes so each operation does the most work."},
      {"Serializing_Operation",
       "Cycles the issue pipeline stalled on instructions that serialise execution, such as "
       "CPUID, LFENCE or writes to model-specific registers.",
       "Keep serialising instructions (fences, CPUID, serialising timers) out of hot loops; see "
       "the children for PAUSE and wait instructions."},
      {"Slow_Pause",
       "Cycles stalled on PAUSE instructions, usually in spin-wait loops; on many cores since "
       "Skylake a single PAUSE waits far longer than on older ones.",
       "Spin less: fall back to a blocking wait (futex, condition variable) after a short spin, "
       "and reduce lock contention."},
      {"Memory_Fence",
       "Cycles stalled on LFENCE instructions, which hold later instructions back until earlier "
       "ones have completed.",
       "Remove LFENCE from hot code where it is not needed (timing code, over-broad speculation "
       "barriers) or move it out of loops."},
      {"C01_WAIT",
       "Cycles the core spent in the light C0.1 wait state entered by TPAUSE or UMWAIT: quick "
       "to wake, small power saving (Sapphire Rapids, Alder Lake).",
       "This is time spent waiting, not computing: improve load balance or reduce contention so "
       "threads wait less."},
      {"C02_WAIT",
       "Cycles the core spent in the deeper C0.2 wait state entered by TPAUSE or UMWAIT: slower "
       "to wake, larger power saving (Sapphire Rapids, Alder Lake).",
       "As for C01_WAIT; if wake-up delay matters, request C0.1 in the TPAUSE/UMWAIT control "
       "operand or disable C0.2 in the operating system."},
      {"Ports_Utilization",
       "Cycles where few execution ports did work although operations were waiting: too little "
       "instruction-level parallelism.",
       "Interleave independent work, unroll with several accumulators, vectorise."},
      {"Ports_Utilized_0",
       "Cycles with no operation executing on any port (often long-latency dependencies).",
       "Break the dependency chain that leaves the machine idle."},
      {"Mixing_Vectors",
       "The cost of mixing legacy SSE with 256- or 512-bit AVX instructions: the hardware adds "
       "blend operations while the upper halves of vector registers are dirty.",
       "Compile the whole hot path with the same vector flags so SSE code is VEX-encoded, and "
       "make sure VZEROUPPER follows AVX code (hand-written assembly may lack it)."},
      {"Ports_Utilized_1", "Cycles with operations on exactly one port.",
       "Add independent work so more ports can be used at once."},
      {"Ports_Utilized_2", "Cycles with operations on exactly two ports.",
       "As for one port: more independent operations per cycle."},
      {"Ports_Utilized_3m", "Cycles with operations on three or more ports: the core is busy.",
       "Reduce the number of operations (vectorise, simpler algorithm)."},
      {"ALU_Op_Utilization",
       "How busy the arithmetic execution ports (integer and vector ALU ports) were, as a share "
       "of what they could do.",
       "The core is busy computing: cut the operation count (vectorise, strength-reduce, a "
       "simpler algorithm); see which port is hot below."},
      {"Port_0",
       "Cycles port 0 executed operations; on Skylake-class cores it takes integer ALU work, "
       "vector arithmetic including FMA, the divider and a branch unit.",
       "If it is the hot port, cut the work only it can do, chiefly divides; check the FP nodes "
       "for the arithmetic that keeps it busy."},
      {"Port_1",
       "Cycles port 1 executed operations; on Skylake-class cores it takes integer ALU work "
       "including integer multiplies, and vector arithmetic including FMA.",
       "Fewer integer multiplies on the critical path (strength-reduce to adds or shifts); "
       "balance vector arithmetic with work for other ports."},
      {"Port_5",
       "Cycles port 5 executed operations; on Skylake-class cores it takes integer ALU work and "
       "vector shuffles and permutes.",
       "Cut shuffles: a data layout that needs fewer permutes (structure of arrays), broadcasts "
       "from memory, fewer inserts and extracts."},
      {"Port_6",
       "Cycles port 6 executed operations; on Skylake-class cores it takes simple integer ALU "
       "work and the main branch unit.",
       "Fewer taken branches and less scalar bookkeeping: unroll loops, use branchless code."},
      {"Load_Op_Utilization",
       "How busy the load ports were.",
       "Fewer loads: keep values in registers, avoid reloads through possibly aliasing pointers "
       "(restrict), use one wide load instead of several narrow ones."},
      {"Port_2",
       "Cycles port 2 executed operations: one of the two load ports, which on Skylake-class "
       "cores also compute store addresses.",
       "Fewer loads: keep values in registers, reuse loaded data, use wider loads."},
      {"Port_3",
       "Cycles port 3 executed operations: the other load port, which on Skylake-class cores "
       "also computes store addresses.",
       "Fewer loads: keep values in registers, reuse loaded data, use wider loads."},
      {"Store_Op_Utilization",
       "How busy the store ports (store data and store address) were.",
       "Store less: combine narrow stores into wider ones, keep accumulators in registers and "
       "write them once."},
      {"Port_4",
       "Cycles port 4 executed operations: on Skylake-class cores the store-data port, which "
       "every store passes through.",
       "Fewer, wider stores: merge adjacent narrow stores, keep temporaries in registers "
       "instead of spilling them."},
      {"Port_7",
       "Cycles port 7 executed operations: on Skylake-class cores a store-address port for "
       "simple addresses (no index register).",
       "Use base-plus-offset addressing for stores so they can use this port, leaving ports 2 "
       "and 3 to loads."},
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
      {"ICache_Misses", "No operations delivered while instruction fetches missed the instruction cache.",
       "Shrink or reorder the hot code so it fits the instruction cache."},
      {"ITLB_Misses", "No operations delivered while instruction addresses missed the instruction TLB.",
       "Keep hot code together; use large pages for code."},
      {"Branch_Detect",
       "Gracemont: front-end slots lost detecting branches the predictor had not seen in time.",
       "Fewer taken branches in hot code: inline small functions, lay out the likely path straight."},
      {"Branch_Resteer", "Gracemont: front-end slots lost to fetch redirects after predicted branches.",
       "Fewer taken branches in hot code: inline small functions, lay out the likely path straight."},
      {"CISC", "Slots spent on instructions that need the microcode sequencer or the complex decoder "
               "(on Gracemont, decode slots; on the big cores, part of Microcode_Sequencer).",
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
