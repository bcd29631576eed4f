// The recorded-run file (runtime/recorded/run_file.*): RunData to JSON and back,
// exactly, names that are not UTF-8 included; errors name the field.
#include "runtime/recorded/run_file.h"

#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/base/byte_strings.h"
#include "tests/support/build_paths.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::MultiplexedRun;
using sample_runs::OddRun;
using sample_runs::TwoThreadRun;

// At exit the file is written as it is formatted (WriteRunFileText): the
// run's document, in pieces of about kRunFilePieceBytes (a piece ends after
// the region that took it past that size), and a write that fails stops the
// formatting.
TEST(JsonReport, TheRunFileIsWrittenInPiecesAsItIsFormatted) {
  RunData data = TwoThreadRun();
  const Region copy = data.regions[1];
  while (data.regions.size() < 10'000) data.regions.push_back(copy);
  std::string joined;
  std::vector<size_t> sizes;
  ASSERT_TRUE(WriteRunFileText(data, [&](std::string_view piece) {
    joined.append(piece);
    sizes.push_back(piece.size());
    return true;
  }));
  EXPECT_EQ(nlohmann::json::parse(joined), RunToJson(data));
  ASSERT_GE(sizes.size(), 3u) << joined.size() << " bytes";
  size_t at = 0;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    EXPECT_GE(sizes[i], kRunFilePieceBytes) << "piece " << i;
    EXPECT_LT(sizes[i], kRunFilePieceBytes + 4'096) << "piece " << i << ": at most one region more";
    at += sizes[i];
    EXPECT_EQ(joined.substr(at, 4), ",\n  ") << "piece " << i << " ends with a whole region";
  }
  int calls = 0;
  EXPECT_FALSE(WriteRunFileText(data, [&calls](std::string_view) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1) << "nothing more is formatted or written after a failed write";
}

TEST(JsonReport, RoundTripsExactly) {
  const RunData data = TwoThreadRun();
  const nlohmann::json first = RunToJson(data);
  absl::StatusOr<RunData> back = RunFromJson(first);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(RunToJson(*back), first);
  EXPECT_EQ(back->regions[1].threads[0].events[1].inclusive, 1'500'000u);
  EXPECT_TRUE(back->regions[0].threads[1].events.empty());
  EXPECT_EQ(back->layout.words, data.layout.words);
}

// A periodic flush's file says so, and reads back (the scan, used by
// `td report DIR`, too).
TEST(JsonReport, APartialFileKeepsItsFlushThroughBothReaders) {
  RunData data = TwoThreadRun();
  data.partial = PartialFlush{data.program.start_unix_ns + 2'000'000'000, "periodic flush"};
  const std::string text = RunFileText(data);
  for (const absl::StatusOr<RunData>& back : {RunFromJson(nlohmann::json::parse(text)), RunFromText(text, "f")}) {
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_TRUE(back->partial.has_value());
    EXPECT_EQ(back->partial->flushed_unix_ns, data.partial->flushed_unix_ns);
    EXPECT_EQ(back->partial->reason, "periodic flush");
  }
  EXPECT_TRUE(ScanRunText(text).has_value()) << "the scan reads it itself, not through the full reader";
  EXPECT_FALSE(RunFromJson(RunToJson(TwoThreadRun()))->partial.has_value());
}

// The runtime writes the file's regions straight into its text
// (RunFileText), one region per line; parsed, the text is RunToJson's
// document, with and without regions, and with names that are not UTF-8.
TEST(JsonReport, RunFileTextIsTheDocumentOneRegionPerLine) {
  RunData data = TwoThreadRun();
  EXPECT_EQ(nlohmann::json::parse(RunFileText(data)), RunToJson(data));
  const std::string text = RunFileText(data);
  EXPECT_NE(text.find("\n  {\"base_name\":\"\",\"children\":[1],\"index\":0,\"name\":\"outer\","), std::string::npos) << text;
  EXPECT_NE(text.find(",\n  {\"base_name\":\"\",\"children\":[],\"index\":1,\"name\":\"inner\","), std::string::npos) << text;
  data.regions[1].name = "in\xff\"ner";
  data.regions[1].path = "outer/in\xff\"ner";
  data.program.name = "regions\": []";
  EXPECT_EQ(nlohmann::json::parse(RunFileText(data)), RunToJson(data));
  data.regions.clear();
  EXPECT_EQ(RunFileText(data), DumpJson(RunToJson(data), 1) + "\n");
  EXPECT_NE(RunFileText(data).find("\"regions\": []"), std::string::npos);
  absl::StatusOr<RunData> read = RunFromJson(nlohmann::json::parse(RunFileText(TwoThreadRun())));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->regions.size(), 2u);
}

// Schema 2 keeps a thread's counts as lists in the order of "events".
TEST(JsonReport, NotMeasuredIsNullNotZero) {
  const nlohmann::json j = RunToJson(TwoThreadRun());
  const nlohmann::json& unmeasured = j["regions"][0]["threads"][1];
  EXPECT_TRUE(unmeasured["inclusive"].is_null());
  EXPECT_TRUE(unmeasured["exclusive"].is_null());
  EXPECT_TRUE(unmeasured["groups"].is_null());
  EXPECT_EQ(j["events"][1]["name"], "task-clock");
  EXPECT_EQ(j["regions"][0]["threads"][0]["exclusive"][1], 400'000);
  EXPECT_EQ(j["schema_version"], 3);
  EXPECT_EQ(j["events"][0]["name"], "page-faults");
  EXPECT_EQ(j["events"][1]["group"], 0);
}

// Files written before schema 2 (counts keyed by event name) still read,
// to the same values; written again, they are in the current layout.
TEST(JsonReport, ReadsSchemaOneFiles) {
  absl::StatusOr<RunData> old = ReadRunFile(std::string(TD_TEST_DATA_DIR) + "/nopmu_matmul.json");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->schema_version, 1);
  ASSERT_EQ(old->layout.events.size(), 4u);
  EXPECT_EQ(old->layout.events[1].name, "task-clock");
  const RegionOnThread& part = old->regions[0].threads[0];
  EXPECT_EQ(part.events[0].inclusive, 392u);       // page-faults
  EXPECT_EQ(part.events[1].exclusive, 42'173u);     // task-clock
  EXPECT_EQ(part.events[2].inclusive, 2u);          // context-switches
  ASSERT_EQ(part.groups.size(), 1u);
  EXPECT_EQ(part.groups[0].enabled_ns, 10'334'765u);
  absl::StatusOr<RunData> again = RunFromJson(nlohmann::json::parse(RunFileText(*old)));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->schema_version, 3);
  EXPECT_EQ(RunToJson(*again), RunToJson(*old));
  // A schema 1 part in a file that says 3 is an error that names the field.
  nlohmann::json mixed = nlohmann::json::parse(RunFileText(*old));
  nlohmann::json& first = mixed["regions"][0]["threads"][0];
  first.erase("inclusive");
  first["counters"] = nlohmann::json::object();
  absl::StatusOr<RunData> bad = RunFromJson(mixed);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("regions[0].threads[0]"), std::string::npos) << bad.status();
}

// Schema 3 writes a part's recursive_calls, unterminated and
// closed_implicitly only when they are not 0, and reads an absent one as 0;
// schema 2 wrote them always, and a schema 2 part without one is refused.
// Both readers (the full one and the scan) agree.
TEST(JsonReport, ZeroCountsAreLeftOutSinceSchemaThree) {
  RunData data = TwoThreadRun();
  data.regions[1].threads[0].recursive_calls = 2;
  data.regions[1].threads[0].closed_implicitly = 1;
  const std::string text = RunFileText(data);
  const nlohmann::json j = nlohmann::json::parse(text);
  const nlohmann::json& zero = j["regions"][0]["threads"][0];
  EXPECT_FALSE(zero.contains("recursive_calls")) << zero;
  EXPECT_FALSE(zero.contains("unterminated")) << zero;
  EXPECT_FALSE(zero.contains("closed_implicitly")) << zero;
  const nlohmann::json& counted = j["regions"][1]["threads"][0];
  EXPECT_EQ(counted["recursive_calls"], 2);
  EXPECT_EQ(counted["closed_implicitly"], 1);
  EXPECT_FALSE(counted.contains("unterminated"));
  EXPECT_EQ(j, RunToJson(data));
  const std::optional<RunData> scan = ScanRunText(text);
  ASSERT_TRUE(scan.has_value()) << "the fast reader takes td's own files";
  for (const auto& read : {RunFromJson(j), absl::StatusOr<RunData>(*scan)}) {
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->regions[1].threads[0].recursive_calls, 2u);
    EXPECT_EQ(read->regions[1].threads[0].closed_implicitly, 1u);
    EXPECT_EQ(read->regions[1].threads[0].unterminated, 0u);
    EXPECT_EQ(read->regions[0].threads[0].recursive_calls, 0u);
    EXPECT_EQ(RunToJson(*read), RunToJson(data));
  }
  // The same parts in a file that says 2: the zero counts must be there.
  nlohmann::json two = j;
  two["schema_version"] = 2;
  const std::string two_text = two.dump();
  absl::StatusOr<RunData> refused = RunFromJson(two);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("regions[0].threads[0]"), std::string::npos) << refused.status();
  EXPECT_NE(refused.status().message().find("recursive_calls"), std::string::npos) << refused.status();
  EXPECT_FALSE(ScanRunText(two_text).has_value()) << "the scan leaves a bad schema 2 file to the full reader";
  for (auto& region : two["regions"]) {
    for (auto& part : region["threads"]) {
      for (const char* key : {"recursive_calls", "unterminated", "closed_implicitly"}) {
        if (!part.contains(key)) part[key] = 0;
      }
    }
  }
  const std::string complete = two.dump();
  absl::StatusOr<RunData> full = RunFromJson(nlohmann::json::parse(complete));
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->schema_version, 2);
  EXPECT_EQ(full->regions[1].threads[0].recursive_calls, 2u);
  const std::optional<RunData> scanned = ScanRunText(complete);
  ASSERT_TRUE(scanned.has_value()) << "schema 2 files keep the fast reader";
  EXPECT_EQ(RunToJson(*scanned), RunToJson(*full));
}

TEST(JsonReport, TheMarkerClockRoundTripsAndOlderFilesLackIt) {
  RunData data = TwoThreadRun();
  EXPECT_FALSE(RunToJson(data)["backend"].contains("marker_clock")) << "not known: not written";
  data.marker_clock = "tsc";
  const nlohmann::json j = RunToJson(data);
  EXPECT_EQ(j["backend"]["marker_clock"], "tsc");
  absl::StatusOr<RunData> back = RunFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->marker_clock, "tsc");
  nlohmann::json older = j;
  older["backend"].erase("marker_clock");
  absl::StatusOr<RunData> old = RunFromJson(older);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->marker_clock, "");
}

TEST(JsonReport, OpenMpThreadNumbersRoundTripAndAreChecked) {
  RunData data = TwoThreadRun();
  data.threads[1].openmp_thread = 3;
  nlohmann::json j = RunToJson(data);
  EXPECT_FALSE(j["threads"][0].contains("openmp_thread")) << "not known: not written";
  EXPECT_EQ(j["threads"][1]["openmp_thread"], 3);
  absl::StatusOr<RunData> back = RunFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->threads[0].openmp_thread, -1);
  EXPECT_EQ(back->threads[1].openmp_thread, 3);
  j["threads"][1]["openmp_thread"] = -7;
  absl::StatusOr<RunData> bad = RunFromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("threads[1].openmp_thread"), std::string::npos) << bad.status();
}

// libtd-mpi's MPI times (a part's "mpi": [ns, calls, bytes], the run's
// mpi_outside_regions) and an aborted rank read back exactly; a file
// without them reads as a run without MPI times.
TEST(JsonReport, MpiTimesAndAbortRoundTripAndOlderFilesLackThem) {
  RunData data = TwoThreadRun();
  data.mpi = MpiRank{1, 4, "j", "h", "Open MPI", true};
  data.regions[1].threads[0].mpi = MpiTime{300'000'000, 2, 32};
  data.mpi_outside_regions = MpiTime{5'000, 4, 4'000};
  const std::string text = RunFileText(data);
  EXPECT_NE(text.find("\"mpi\":[300000000,2,32]"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text), RunToJson(data));
  absl::StatusOr<RunData> back = RunFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->mpi->aborted);
  EXPECT_EQ(back->regions[1].threads[0].mpi.ns, 300'000'000);
  EXPECT_EQ(back->regions[1].threads[0].mpi.calls, 2u);
  EXPECT_EQ(back->regions[1].threads[0].mpi.bytes, 32u);
  EXPECT_EQ(back->regions[0].threads[0].mpi.calls, 0u);
  ASSERT_TRUE(back->mpi_outside_regions.has_value());
  EXPECT_EQ(back->mpi_outside_regions->bytes, 4'000u);
  EXPECT_EQ(RunToJson(*back), RunToJson(data));

  absl::StatusOr<RunData> plain = RunFromJson(RunToJson(TwoThreadRun()));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->mpi_outside_regions.has_value());
  nlohmann::json bad = RunToJson(data);
  bad["regions"][1]["threads"][0]["mpi"] = {1, 2};
  EXPECT_FALSE(RunFromJson(bad).ok());
}

TEST(JsonReport, ErrorsNameTheField) {
  nlohmann::json j = RunToJson(TwoThreadRun());
  j["regions"][1]["threads"][0].erase("calls");
  auto missing = RunFromJson(j);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "regions[1].threads[0]: missing field \"calls\"");
  j = RunToJson(TwoThreadRun());
  j["schema_version"] = 99;
  auto version = RunFromJson(j);
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.status().message().find("schema_version 99"), std::string::npos);
}

TEST(JsonReport, NamesThatAreNotUtf8RoundTripExactly) {
  const RunData data = OddRun();
  const nlohmann::json j = RunToJson(data);
  std::string text;
  ASSERT_NO_THROW(text = j.dump(1));  // the strict dump: everything is valid UTF-8
  EXPECT_EQ(j["program"]["name"], "prog\\xe9");
  EXPECT_EQ(j["program"]["argv"][2], "\\\\x41");
  EXPECT_EQ(j["regions"][1]["path"], "\\xff\\xfe/a\\x2fb\\x1b");
  absl::StatusOr<RunData> back = RunFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->program.name, data.program.name);
  EXPECT_EQ(back->program.argv, data.program.argv);
  EXPECT_EQ(back->machine.hostname, data.machine.hostname);
  EXPECT_EQ(back->regions[0].name, "\xff\xfe");
  EXPECT_EQ(back->regions[1].name, "a/b\x1b");
  EXPECT_EQ(back->regions[1].path, data.regions[1].path);
  EXPECT_EQ(back->diagnostics[0].message, data.diagnostics[0].message);
  EXPECT_EQ(RunToJson(*back), j);
}

TEST(Coverage, AnEventInTwoGroupsKeepsBothCopiesInJson) {
  RunData data = MultiplexedRun();
  EventInfo again = data.layout.events.back();  // "instructions" once more, in group 2
  data.layout.AddGroup({again});
  for (Region& r : data.regions) {
    r.threads[0].events.push_back({7, 7});
    r.threads[0].groups.push_back({1000, 1000});
  }
  const nlohmann::json j = RunToJson(data);
  const nlohmann::json& inclusive = j.at("regions")[0].at("threads")[0].at("inclusive");
  ASSERT_EQ(inclusive.size(), data.layout.events.size());
  EXPECT_EQ(j.at("events")[inclusive.size() - 2].at("name"), "instructions");
  EXPECT_EQ(inclusive[inclusive.size() - 2], 500000);
  EXPECT_EQ(j.at("events")[inclusive.size() - 1].at("name"), "instructions");
  EXPECT_EQ(j.at("events")[inclusive.size() - 1].at("group"), 2);
  EXPECT_EQ(inclusive.back(), 7);
  auto back = RunFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->regions[0].threads[0].events.back().inclusive, 7u);
  EXPECT_EQ(back->layout.GroupOf(back->layout.events.size() - 1), 2u);
}

}  // namespace
}  // namespace td
