// Two jobs side by side (FormatJobComparisonText/Csv): regions matched by
// path, a region only one job ran marked instead of given a speedup.
#include "runtime/report/job_view.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace td {
namespace {

RegionAcrossRanks Region(const std::string& path, int ranks, double mean_ns, double max_ns) {
  RegionAcrossRanks r;
  r.path = path;
  r.depth = static_cast<int>(std::count(path.begin(), path.end(), '/'));
  for (int k = 0; k < ranks; ++k) r.ranks.push_back({k, 1, static_cast<int64_t>(mean_ns), std::nullopt});
  r.wall_ns.mean = mean_ns;
  r.wall_ns.max = max_ns;
  r.wall_ns.ranks = static_cast<size_t>(ranks);
  r.imbalance = max_ns / mean_ns;
  r.slowest_rank = ranks - 1;
  return r;
}

TEST(JobComparison, MatchesRegionsByPathAndMarksOneSidedOnes) {
  JobView a;
  a.program = "solver";
  a.job = "a";
  a.present = {0, 1, 2, 3};
  a.regions = {Region("main", 4, 4e9, 4.4e9), Region("main/solve", 4, 3e9, 3.6e9), Region("main/old_io", 4, 1e8, 1e8)};
  JobView b = a;
  b.job = "b";
  b.present = {0, 1, 2, 3, 4, 5, 6, 7};
  b.regions = {Region("main", 8, 2e9, 2.2e9), Region("main/solve", 8, 1e9, 1.5e9), Region("main/new_io", 8, 5e7, 6e7)};
  EXPECT_EQ(FormatJobComparisonCsv(a, b),
            "path,a_ranks,a_wall_mean_ns,a_wall_max_ns,a_imbalance,a_slowest_rank,"
            "b_ranks,b_wall_mean_ns,b_wall_max_ns,b_imbalance,b_slowest_rank,speedup\n"
            "main,4,4000000000,4400000000,1.1000,3,8,2000000000,2200000000,1.1000,7,2.0000\n"
            "main/solve,4,3000000000,3600000000,1.2000,3,8,1000000000,1500000000,1.5000,7,3.0000\n"
            "main/old_io,4,100000000,100000000,1.0000,3,,,,,,\n"
            "main/new_io,,,,,,8,50000000,60000000,1.2000,7,\n");
  const std::string text = FormatJobComparisonText(a, b);
  EXPECT_NE(text.find("A: solver, job a, 4 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("B: solver, job b, 8 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("3.00x"), std::string::npos) << text;
  EXPECT_NE(text.find("A only"), std::string::npos) << text;
  EXPECT_NE(text.find("B only"), std::string::npos) << text;
  EXPECT_EQ(text.find("different programs"), std::string::npos);
  b.program = "other";
  EXPECT_NE(FormatJobComparisonText(a, b).find("different programs"), std::string::npos);
}

}  // namespace
}  // namespace td
