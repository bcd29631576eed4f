// ScanRunText, the run-file reader that skips the JSON tree (td report DIR
// of a large job): on files td writes it decodes what RunFromJson decodes,
// and on any other text it either agrees with the full reader or leaves the
// file to it — never accepts what the full reader refuses, never decodes a
// different run. Checked on td's own files and on thousands of mutations of
// them (bytes deleted, replaced, inserted; lines doubled or dropped; fields
// given values of every JSON type).
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/base/json_file.h"
#include "runtime/recorded/run_file.h"
#include "tests/support/build_paths.h"
#include "tests/support/sanitizers.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

// What the full reader makes of `text`, with ReadRunFile's message for a file "t".
absl::StatusOr<RunData> FullRead(const std::string& text) {
  absl::StatusOr<nlohmann::json> json = ParseJsonText(text, "t");
  if (!json.ok()) return json.status();
  absl::StatusOr<RunData> data = RunFromJson(*json);
  if (!data.ok()) return absl::Status(data.status().code(), "t: " + std::string(data.status().message()));
  return data;
}

// The property: ScanRunText decodes `text` only to what the full reader
// decodes; RunFromText agrees with the full reader always. True when the
// scan took the text.
bool ScanAgrees(const std::string& text) {
  const std::optional<RunData> scanned = ScanRunText(text);
  const absl::StatusOr<RunData> full = FullRead(text);
  const absl::StatusOr<RunData> via_text = RunFromText(text, "t");
  EXPECT_EQ(via_text.ok(), full.ok()) << text;
  if (via_text.ok() && full.ok()) {
    EXPECT_EQ(RunToJson(*via_text), RunToJson(*full));
  } else if (!via_text.ok() && !full.ok()) {
    EXPECT_EQ(via_text.status(), full.status());
  }
  if (!scanned) return false;
  EXPECT_TRUE(full.ok()) << "the scan took text the full reader refuses (" << full.status() << "):\n" << text;
  if (full.ok()) {
    EXPECT_EQ(RunToJson(*scanned), RunToJson(*full)) << text;
  }
  return true;
}

std::vector<std::string> TdWrittenFiles() {
  std::vector<std::string> texts;
  for (const RunData& run : {sample_runs::TwoThreadRun(), sample_runs::OddRun(), sample_runs::MultiplexedRun(),
                             sample_runs::NoPmuRun()}) {
    texts.push_back(RunFileText(run));
  }
  RunData rank = sample_runs::NoPmuRun();
  rank.mpi = MpiRank{3, 8, "j1", "node7", "Open MPI"};
  texts.push_back(RunFileText(rank));
  RunData timed = sample_runs::TwoThreadRun();  // libtd-mpi's MPI times, a rank that aborted
  timed.mpi = MpiRank{1, 2, "j2", "node1", "Open MPI", true};
  timed.regions[0].threads[0].mpi = MpiTime{1'234'567, 3, 4'000};
  timed.mpi_outside_regions = MpiTime{89, 1, 0};
  texts.push_back(RunFileText(timed));
  RunData sweep = sample_runs::TwoThreadRun();
  sweep.regions[1].name = "inner[-42]";
  sweep.regions[1].base_name = "inner";
  sweep.regions[1].parameter = -42;
  sweep.regions[1].path = "outer/inner[-42]";
  texts.push_back(RunFileText(sweep));
  RunData sampled = sample_runs::TwoThreadRun();  // TD_SAMPLE=10, one region td_region_sample'd to 100
  sampled.sample_every = 10;
  sampled.regions[1].sample_every = 100;
  texts.push_back(RunFileText(sampled));
  RunData timed_calls = sample_runs::TwoThreadRun();  // per-call times (call_times.h)
  timed_calls.regions[0].threads[0].call_times = {{40, 1, 1500}, {68, 1, 498'500}};
  texts.push_back(RunFileText(timed_calls));
  return texts;
}

TEST(RunFileScan, DecodesTdsOwnFilesAsTheFullReaderDoes) {
  for (const std::string& text : TdWrittenFiles()) {
    ASSERT_TRUE(FullRead(text).ok()) << text;
    EXPECT_TRUE(ScanAgrees(text)) << "td's own file left to the full reader:\n" << text;
  }
  // The recordings in tests/data that are run files (the real runtime's
  // among them) are schema 1: the scan leaves them to the full reader, and
  // written again they are files of the current schema that the scan takes.
  size_t read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TD_TEST_DATA_DIR)) {
    if (entry.path().extension() != ".json") continue;
    const absl::StatusOr<std::string> text = ReadTextFile(entry.path().string());
    ASSERT_TRUE(text.ok());
    const absl::StatusOr<RunData> old = FullRead(*text);
    if (!old.ok()) continue;  // a case file
    ASSERT_EQ(old->schema_version, 1) << entry.path();
    EXPECT_FALSE(ScanAgrees(*text)) << entry.path();
    EXPECT_TRUE(ScanAgrees(RunFileText(*old))) << entry.path();
    ++read;
  }
  EXPECT_GE(read, 2u) << "nopmu_matmul.json (the real runtime's) and replay_skl_matmul.json";
}

// td report DIR passes each thread's buffers to every file it scans, and
// gives each run back when done: what a file decodes to must not depend on
// the files scanned before it, also when the one before was given up halfway.
TEST(RunFileScan, BuffersKeptBetweenFilesDecodeEachFileAsAFreshScan) {
  const std::vector<std::string> texts = TdWrittenFiles();
  RunScanBuffers buffers;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < texts.size(); ++i) {
      const std::string& text = texts[pass == 0 ? i : texts.size() - 1 - i];
      const std::optional<RunData> fresh = ScanRunText(text);
      std::optional<RunData> reused = ScanRunText(text, &buffers);
      ASSERT_TRUE(fresh && reused) << text;
      EXPECT_EQ(RunToJson(*reused), RunToJson(*fresh)) << text;
      buffers.Recycle(&*reused);  // its lists go to the next file's parts
      // Cut inside its last region: the scan gives up with its buffers full.
      EXPECT_FALSE(ScanRunText(text.substr(0, text.rfind("\"thread\"")), &buffers));
    }
  }
}

TEST(RunFileScan, LeavesJobFilesAndOddSpellingsToTheFullReader) {
  const std::string text = RunFileText(sample_runs::TwoThreadRun());
  nlohmann::json j = nlohmann::json::parse(text);
  j["td_job"] = 1;
  EXPECT_FALSE(ScanRunText(j.dump(1)));
  // Valid JSON td does not write: the scan declines, the full reader decides.
  const std::vector<std::pair<std::string, std::string>> respellings = {
      {"\"calls\":2", "\"calls\":2.0"},       {"\"calls\":2", "\"calls\":2e0"},
      {"\"calls\":2", "\"calls\":-0"},        {"\"parent\":-1", "\"parent\":-0"},
      {"\"name\":\"outer\"", "\"name\":\"\\u006futer\""},
      {"\"thread\":0", "\"thread\":0,\"extra\":1"},
      {"\"groups\":[[", "\"groups\":[[1,2,"}};
  for (const auto& [from, to] : respellings) {
    std::string changed = text;
    const size_t at = changed.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    changed.replace(at, from.size(), to);
    ScanAgrees(changed);
  }
}

// The scan compares the keys td writes next in place; keys in another
// order are read the slow way, and still decoded as the full reader does.
// Per-call times are checked once the file is read: out of order or with
// no calls, both readers refuse them.
TEST(RunFileScan, KeysInAnotherOrderAndPerCallTimesAsTheFullReader) {
  RunData timed = sample_runs::TwoThreadRun();
  timed.regions[0].threads[0].call_times = {{40, 1, 1500}, {68, 1, 498'500}};
  const std::string text = RunFileText(timed);
  const auto moved = [](std::string changed, const std::string& member, const std::string& after) {
    const size_t at = changed.find(member);
    EXPECT_NE(at, std::string::npos) << member;
    changed.erase(at, member.size());
    const size_t to = changed.find(after, at);
    EXPECT_NE(to, std::string::npos) << after;
    changed.insert(to + after.size(), "," + member.substr(0, member.size() - 1));
    return changed;
  };
  // "calls" (second in td's order) moved after "thread" (nearly last).
  const std::string reordered = moved(text, "\"calls\":" + std::to_string(timed.regions[0].threads[0].calls) + ",",
                                      "\"thread\":0");
  ASSERT_NE(reordered, text);
  const std::optional<RunData> scanned = ScanRunText(reordered);
  ASSERT_TRUE(scanned);
  EXPECT_EQ(scanned->regions[0].threads[0].calls, timed.regions[0].threads[0].calls);
  EXPECT_TRUE(ScanAgrees(reordered));
  // A key twice, the second out of order: nlohmann keeps the last, the scan declines.
  std::string twice = reordered;
  const std::string thread_then_calls = "\"thread\":0,\"calls\":";
  const size_t at = twice.find(thread_then_calls);
  ASSERT_NE(at, std::string::npos);
  twice.insert(at + thread_then_calls.size() - 8, "\"thread\":0,");
  ASSERT_TRUE(nlohmann::json::accept(twice));
  EXPECT_FALSE(ScanRunText(twice));
  ScanAgrees(twice);

  for (const std::string& times : {std::string("[[68,1,498500],[40,1,1500]]"), std::string("[[40,0,1500]]")}) {
    std::string changed = text;
    const std::string written = "[[40,1,1500],[68,1,498500]]";
    const size_t at = changed.find(written);
    ASSERT_NE(at, std::string::npos);
    changed.replace(at, written.size(), times);
    EXPECT_FALSE(ScanRunText(changed)) << times;
    EXPECT_FALSE(FullRead(changed).ok()) << times;
    ScanAgrees(changed);
  }
}

TEST(RunFileScan, AgreesWithTheFullReaderOnEveryValueOfEveryField) {
  const nlohmann::json base = nlohmann::json::parse(RunFileText(sample_runs::TwoThreadRun()));
  const std::vector<nlohmann::json> values = {
      nullptr, true, 0, 1, -1, 7, 4294967296ull, 18446744073709551615ull, 9223372036854775807ll,
      -9223372036854775807ll - 1, 1.5, "", "x", "outer", nlohmann::json::array(), nlohmann::json::array({1}),
      nlohmann::json::object(), nlohmann::json::object({{"inclusive", 1}, {"exclusive", 1}}),
      nlohmann::json::array({1, 2}), nlohmann::json::array({nlohmann::json::array({1, 1})})};
  size_t taken = 0;
  size_t cases = 0;
  // Every field of a region, of a thread's part, of a counter and of a group.
  std::vector<nlohmann::json::json_pointer> fields;
  for (const auto& [key, value] : base["regions"][0].items()) fields.emplace_back("/regions/0/" + key);
  for (const auto& [key, value] : base["regions"][0]["threads"][0].items()) {
    fields.emplace_back("/regions/0/threads/0/" + key);
  }
  // Counts a part leaves out when 0 (schema 3): the mutations add them.
  for (const char* count : {"recursive_calls", "unterminated", "closed_implicitly"}) {
    if (!base["regions"][0]["threads"][0].contains(count)) fields.emplace_back(std::string("/regions/0/threads/0/") + count);
  }
  fields.emplace_back("/regions/0/threads/0/inclusive/1");
  fields.emplace_back("/regions/0/threads/0/exclusive/0");
  fields.emplace_back("/regions/0/threads/0/groups/0");
  fields.emplace_back("/regions/0/threads/0/groups/0/1");
  fields.emplace_back("/regions/0/children/0");
  fields.emplace_back("/regions/1/parent");
  fields.emplace_back("/threads/1/index");
  fields.emplace_back("/schema_version");
  for (const auto& field : fields) {
    for (const nlohmann::json& value : values) {
      nlohmann::json changed = base;
      changed[field] = value;
      taken += ScanAgrees(changed.dump(1));
      ++cases;
    }
    nlohmann::json removed = base;
    nlohmann::json& parent = removed[field.parent_pointer()];
    if (parent.is_array()) {
      parent.erase(std::stoul(field.back()));
    } else {
      parent.erase(field.back());
    }
    taken += ScanAgrees(removed.dump(1));
    ++cases;
  }
  EXPECT_GT(taken, 10u) << "of " << cases << ": the scan should take the valid ones";

  // Schema 2 wrote the counts always: complete, the scan takes such a file;
  // without one of them, neither reader does.
  nlohmann::json two = base;
  two["schema_version"] = 2;
  for (auto& region : two["regions"]) {
    for (auto& part : region["threads"]) {
      for (const char* count : {"recursive_calls", "unterminated", "closed_implicitly"}) {
        if (!part.contains(count)) part[count] = 0;
      }
    }
  }
  EXPECT_TRUE(ScanAgrees(two.dump(1))) << "a complete schema 2 file";
  for (const char* count : {"recursive_calls", "unterminated", "closed_implicitly"}) {
    nlohmann::json missing = two;
    missing["regions"][0]["threads"][0].erase(count);
    EXPECT_FALSE(ScanAgrees(missing.dump(1))) << count;
    EXPECT_FALSE(FullRead(missing.dump(1)).ok()) << count;
  }
}

TEST(RunFileScan, AgreesWithTheFullReaderOnMutatedBytes) {
  std::mt19937 random(20240611);
  const std::string alphabet = "0123456789-+.eE\"\\{}[],: \nnultrf/x\x01\xc3\xa9\xff";
  size_t taken = 0;
  size_t cases = 0;
  for (const std::string& text : TdWrittenFiles()) {
    // A quarter of the rounds under the sanitizers (12 s there against 0.8 s
    // plain); the run_json fuzzer mutates run files there too.
    for (int round = 0; round < (sanitizers::kAny ? 150 : 600); ++round) {
      std::string changed = text;
      const size_t at = std::uniform_int_distribution<size_t>(0, changed.size() - 1)(random);
      const char c = alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(random)];
      switch (round % 5) {
        case 0: changed.erase(at, 1); break;
        case 1: changed[at] = c; break;
        case 2: changed.insert(changed.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        case 3: {  // a line twice: keys twice, elements twice
          const size_t start = changed.rfind('\n', at) + 1;
          const size_t end = changed.find('\n', at);
          changed.insert(start, changed.substr(start, end - start + 1));
          break;
        }
        default: {  // a line dropped
          const size_t start = changed.rfind('\n', at) + 1;
          changed.erase(start, changed.find('\n', at) - start + 1);
        }
      }
      taken += ScanAgrees(changed);
      ++cases;
    }
  }
  EXPECT_GT(taken, cases / 20) << "the scan should take the mutations that stay valid (digits changed, …)";
}

}  // namespace
}  // namespace td
