#include "runtime/recorded/merge_threads.h"

#include "absl/container/flat_hash_map.h"
#include "runtime/base/byte_strings.h"

namespace td {
namespace {

RegionOnThread ThreadPart(const ThreadRecord& thread, uint32_t node, const NodeTotals& totals,
                          const CounterLayout& layout) {
  const NodeStats& stats = (*thread.nodes)[node];
  RegionOnThread part;
  part.thread = thread.index;
  part.calls = stats.calls;
  part.recursive_calls = stats.recursive_calls;
  part.unterminated = stats.unterminated;
  part.closed_implicitly = stats.closed_implicitly;
  part.wall_inclusive_ns = totals.wall_inclusive_ns[node];
  part.wall_exclusive_ns = totals.wall_exclusive_ns[node];
  if (node < totals.mpi_inclusive_calls.size()) {
    part.mpi = MpiTime{totals.mpi_inclusive_ns[node], totals.mpi_inclusive_calls[node], totals.mpi_inclusive_bytes[node]};
  }
  if (node < totals.call_times_ns.size()) part.call_times = totals.call_times_ns[node];
  if (!thread.counters_measured || thread.words != layout.words) return part;
  const uint64_t* inclusive = totals.inclusive_words.data() + node * thread.words;
  const uint64_t* exclusive = totals.exclusive_words.data() + node * thread.words;
  part.groups.reserve(layout.groups.size());  // one allocation each: at scale a part's biggest cost
  part.events.reserve(layout.events.size());
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    const GroupInfo& group = layout.groups[g];
    part.groups.push_back({inclusive[group.word_offset + 1], inclusive[group.word_offset + 2]});
    for (size_t i = 0; i < group.num_events; ++i) {
      const size_t word = layout.ValueWord(g, i);
      part.events.push_back({inclusive[word], exclusive[word]});
    }
  }
  return part;
}

}  // namespace

void MergeThreads(const std::vector<ThreadRecord>& threads,
                  const std::vector<std::string>& names, RunData* data,
                  const std::vector<std::optional<RegionRegistry::Parameter>>& parameters) {
  // Two passes: the first makes the merged regions and counts each one's
  // parts, so that the second puts every part in place without a region's
  // list of parts growing (and moving its parts) as threads are added.
  // (merged parent index + 1, region id) -> merged index
  absl::flat_hash_map<std::pair<int, uint32_t>, int> merged;
  std::vector<std::vector<int>> merged_of(threads.size());  // per thread, per node; -1: not called
  std::vector<size_t> parts;                                // per merged region
  for (size_t t = 0; t < threads.size(); ++t) {
    const ThreadRecord* thread = &threads[t];
    ThreadInfo info;
    info.index = thread->index;
    info.tid = thread->tid;
    info.exited_before_finalize = thread->retired;
    info.openmp_thread = thread->openmp_thread;
    info.counters_measured = thread->counters_measured;
    info.counters_error = thread->counters_error;
    if (thread->read_failures != 0) {
      const std::string failed = std::to_string(thread->read_failures) + " counter reads failed";
      info.counters_error = thread->counters_lost.empty() ? failed : thread->counters_lost + " (" + failed + ")";
    }
    data->threads.push_back(info);

    const auto& nodes = *thread->nodes;
    // Nodes are created parents first, so one pass in id order sees each
    // parent's merged index before its children.
    std::vector<int>& of = merged_of[t];
    of.assign(nodes.size(), -1);
    for (uint32_t n = 1; n < nodes.size(); ++n) {
      const NodeStats& node = nodes[n];
      if (node.calls == 0) continue;
      const int parent = node.parent == 0 ? -1 : of[node.parent];
      auto [it, inserted] =
          merged.try_emplace({parent, node.region}, static_cast<int>(data->regions.size()));
      if (inserted) {
        Region region;
        region.name = node.region < names.size() ? names[node.region] : "?";
        region.base_name = region.name;
        if (node.region < parameters.size() && parameters[node.region]) {
          const auto& p = *parameters[node.region];
          region.base_name = p.base < names.size() ? names[p.base] : "?";
          region.parameter = p.value;
        }
        region.parent = parent;
        // All nodes of a region share their interval (fixed at the first).
        if (node.sample_every != data->sample_every) region.sample_every = node.sample_every;
        // '/' inside a name is written \x2f (PathComponent): paths stay unique.
        const std::string component = PathComponent(region.name);
        region.path = parent < 0 ? component : data->regions[parent].path + "/" + component;
        data->regions.push_back(std::move(region));
        parts.push_back(0);
        if (parent >= 0) data->regions[parent].children.push_back(it->second);
      }
      of[n] = it->second;
      ++parts[static_cast<size_t>(it->second)];
    }
  }
  // Every list at its final size, from one block where the parts are many.
  size_t all_parts = 0;
  for (const size_t count : parts) all_parts += count;
  const PartAllocator<RegionOnThread> allocator(PartBlock::Make(all_parts * sizeof(RegionOnThread)));
  for (size_t r = 0; r < data->regions.size(); ++r) {
    data->regions[r].threads = PartList(allocator);
    data->regions[r].threads.reserve(parts[r]);
  }
  for (size_t t = 0; t < threads.size(); ++t) {
    const ThreadRecord& thread = threads[t];
    const NodeTotals totals = thread.totals();
    if (!totals.mpi_inclusive_calls.empty()) {  // the thread made wrapped MPI calls
      if (!data->mpi_outside_regions) data->mpi_outside_regions = MpiTime{};
      data->mpi_outside_regions->Add(
          MpiTime{totals.mpi_inclusive_ns[0], totals.mpi_inclusive_calls[0], totals.mpi_inclusive_bytes[0]});
    }
    const std::vector<int>& of = merged_of[t];
    for (uint32_t n = 1; n < of.size(); ++n) {
      if (of[n] >= 0) data->regions[static_cast<size_t>(of[n])].threads.push_back(ThreadPart(thread, n, totals, data->layout));
    }
    std::vector<int>().swap(merged_of[t]);  // done with it: its memory goes before the next thread's parts
    if (thread.release) thread.release();
  }
}

}  // namespace td
