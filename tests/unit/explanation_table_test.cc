// The node explanations' data file (runtime/uarch/explanations/topdown_nodes.json):
// the embedded table loads whole and in order, and the loader refuses what is
// not a table of three non-empty strings per node, each node once.
#include "runtime/uarch/explanation_table.h"

#include "gtest/gtest.h"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/report/explanations.h"

namespace td {
namespace {

// The node table moved from C++ literals to topdown_nodes.json with 127 nodes; the TMA 5.x keys
// (issue 32) added 29, at its end.
// docs/explanations.md (explanations_doc_in_sync) pins their words and order.
TEST(ExplanationTable, EmbeddedTableLoadsEveryNode) {
  auto table = EmbeddedExplanationTable();
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->size(), 157u);
  EXPECT_EQ(table->front().node, "Frontend_Bound");
  EXPECT_EQ(table->back().node, "L1_Latency_Capacity");
  EXPECT_EQ(AllExplanations().size(), 157u + DiagnosisKinds().size());
}

// The loader's error for `text`, or "" when it loads.
std::string ErrorFor(const std::string& text) {
  auto table = ParseExplanationTable(text, "t.json");
  if (table.ok()) return "";
  EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(table.status().message());
}

void ExpectErrorMentions(const std::string& text, const std::string& wanted) {
  const std::string error = ErrorFor(text);
  EXPECT_NE(error.find(wanted), std::string::npos) << "error: \"" << error << "\", wanted: " << wanted;
}

TEST(ExplanationTable, RejectsTextThatIsNotJson) {
  ExpectErrorMentions("{\"nodes\": [", "t.json: not valid JSON");
  ExpectErrorMentions("[]", "t.json: expected an object");
  ExpectErrorMentions("{}", "t.json: missing field \"nodes\"");
  ExpectErrorMentions(R"({"nodes": [1]})", "t.json: nodes[0]: expected an object");
}

TEST(ExplanationTable, RejectsMissingField) {
  ExpectErrorMentions(R"({"nodes": [{"node": "A", "meaning": "m"}]})",
                      "t.json: nodes[0]: missing field \"to_try\"");
  ExpectErrorMentions(R"({"nodes": [{"node": 1, "meaning": "m", "to_try": "t"}]})",
                      "t.json: nodes[0].node: expected a string");
}

TEST(ExplanationTable, RejectsEmptyString) {
  ExpectErrorMentions(R"({"nodes": [{"node": "A", "meaning": "", "to_try": "t"}]})",
                      "t.json: nodes[0].meaning is empty");
}

TEST(ExplanationTable, RejectsDuplicateNode) {
  ExpectErrorMentions(
      R"({"nodes": [{"node": "A", "meaning": "m", "to_try": "t"}, {"node": "B", "meaning": "m", "to_try": "t"},)"
      R"( {"node": "A", "meaning": "m2", "to_try": "t2"}]})",
      "t.json: node \"A\" is explained twice (nodes[0] and nodes[2])");
}

TEST(ExplanationTable, KeepsTextAndOrder) {
  // Bytes pass through as written, UTF-8 included.
  auto table = ParseExplanationTable(
      R"({"nodes": [{"node": "B", "meaning": "mé", "to_try": "t"}, {"node": "A", "meaning": "x", "to_try": "y"}]})",
      "t.json");
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->size(), 2u);
  EXPECT_EQ((*table)[0].node, "B");
  EXPECT_EQ((*table)[0].meaning, "m\xc3\xa9");
  EXPECT_EQ((*table)[1].to_try, "y");
}

}  // namespace
}  // namespace td
