// The caches td's simulator is given, from a sysfs tree written here.
#include "runtime/machine/cache_geometry.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace td {
namespace {

void WriteIndex(const std::filesystem::path& dir, const char* name, const char* level, const char* type,
                const char* sets, const char* ways, const char* line) {
  const std::filesystem::path index = dir / name;
  std::filesystem::create_directories(index);
  const std::pair<const char*, const char*> files[] = {{"level", level},
                                                        {"type", type},
                                                        {"number_of_sets", sets},
                                                        {"ways_of_associativity", ways},
                                                        {"coherency_line_size", line}};
  for (const auto& [file, value] : files) {
    if (value != nullptr) std::ofstream(index / file) << value << "\n";
  }
}

std::filesystem::path ScratchDir() {
  std::string dir = (std::filesystem::temp_directory_path() / "td-cache-XXXXXX").string();
  EXPECT_NE(mkdtemp(dir.data()), nullptr);
  return dir;
}

TEST(CacheGeometry, LevelOneAndTheHighestUnifiedLevel) {
  const std::filesystem::path dir = ScratchDir();
  WriteIndex(dir, "index0", "1", "Data", "64", "12", "64");
  WriteIndex(dir, "index1", "1", "Instruction", "64", "8", "64");
  WriteIndex(dir, "index2", "2", "Unified", "2048", "8", "64");
  WriteIndex(dir, "index3", "3", "Unified", "32768", "16", "64");
  const CacheGeometry g = ReadCacheGeometry(dir.string());
  EXPECT_EQ(g.l1d, "49152,12,64");
  EXPECT_EQ(g.l1i, "32768,8,64");
  EXPECT_EQ(g.last_level, "33554432,16,64");
  std::filesystem::remove_all(dir);
}

TEST(CacheGeometry, IncompleteEntriesAndMissingFoldersGiveNothing) {
  const std::filesystem::path dir = ScratchDir();
  WriteIndex(dir, "index0", "1", "Data", nullptr, "8", "64");  // no set count: skipped
  WriteIndex(dir, "index2", "2", "Unified", "1024", "16", "64");
  const CacheGeometry g = ReadCacheGeometry(dir.string());
  EXPECT_EQ(g.l1d, "");
  EXPECT_EQ(g.l1i, "");
  EXPECT_EQ(g.last_level, "1048576,16,64");
  std::filesystem::remove_all(dir);
  const CacheGeometry none = ReadCacheGeometry(dir.string());
  EXPECT_EQ(none.l1d + none.l1i + none.last_level, "");
}

}  // namespace
}  // namespace td
