// What a test program runs or reads — the td tool, the programs the tests
// start, tests/data — under the names the tests use (TD_CLI,
// TD_TEST_DATA_DIR, …). The build defines each name as a path relative to the
// test program's own folder (`td_test_paths` in tests/CMakeLists.txt), never
// an absolute one, passed to TD_BUILD_PATH: a test program's objects then
// name nothing of the clone, and ccache reuses them for a clone at another
// path (docs/design.md#build-time). The path is made absolute at run time.
#ifndef TD_TESTS_SUPPORT_BUILD_PATHS_H_
#define TD_TESTS_SUPPORT_BUILD_PATHS_H_

#include <filesystem>
#include <string>
#include <system_error>

namespace td::test_support {

// `path` as the build gave it: relative to the folder of the running program,
// or absolute or empty, which are returned as they are.
inline std::string BesideThisProgram(const char* path) {
  if (path[0] == '\0' || path[0] == '/') return path;
  // Made once and never freed: a test may ask from any thread, after fork, or at exit.
  static const std::string* const folder = [] {
    std::error_code error;
    const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
    return new std::string(error ? std::string(".") : program.parent_path().string());
  }();
  return *folder + "/" + path;
}

}  // namespace td::test_support

// What tests/CMakeLists.txt defines each name as (TD_CLI=TD_BUILD_PATH("../tools/td/td")).
#define TD_BUILD_PATH(relative) ::td::test_support::BesideThisProgram(relative)

#endif  // TD_TESTS_SUPPORT_BUILD_PATHS_H_
