// What a test program runs or reads — the td tool, the programs the tests
// start, tests/data — under the names the tests use (TD_CLI,
// TD_TEST_DATA_DIR, …). The build gives each as a path relative to the test
// program's own folder (`td_test_paths` in tests/CMakeLists.txt), never as an
// absolute one: a test program's objects then name nothing of the clone, and
// ccache reuses them for a clone at another path (docs/design.md#build-time).
// They are made absolute here, at run time.
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

#define TD_BUILD_PATH_(relative) ::td::test_support::BesideThisProgram(relative)
#ifdef TD_CLI_RELATIVE
#define TD_CLI TD_BUILD_PATH_(TD_CLI_RELATIVE)
#endif
#ifdef TD_SCENARIO_APP_RELATIVE
#define TD_SCENARIO_APP TD_BUILD_PATH_(TD_SCENARIO_APP_RELATIVE)
#endif
#ifdef TD_TEST_DATA_DIR_RELATIVE
#define TD_TEST_DATA_DIR TD_BUILD_PATH_(TD_TEST_DATA_DIR_RELATIVE)
#endif
#ifdef TD_FAULT_APP_RELATIVE
#define TD_FAULT_APP TD_BUILD_PATH_(TD_FAULT_APP_RELATIVE)
#endif
#ifdef TD_FAULT_PLUGIN_RELATIVE
#define TD_FAULT_PLUGIN TD_BUILD_PATH_(TD_FAULT_PLUGIN_RELATIVE)
#endif
#ifdef TD_GROUND_TRUTH_DIR_RELATIVE
#define TD_GROUND_TRUTH_DIR TD_BUILD_PATH_(TD_GROUND_TRUTH_DIR_RELATIVE)
#endif
#ifdef TD_MORE_GROUND_TRUTH_DIR_RELATIVE
#define TD_MORE_GROUND_TRUTH_DIR TD_BUILD_PATH_(TD_MORE_GROUND_TRUTH_DIR_RELATIVE)
#endif
#ifdef TD_SAMPLES_DIR_RELATIVE
#define TD_SAMPLES_DIR TD_BUILD_PATH_(TD_SAMPLES_DIR_RELATIVE)
#endif
#ifdef TD_SIM_REGION_APP_RELATIVE
#define TD_SIM_REGION_APP TD_BUILD_PATH_(TD_SIM_REGION_APP_RELATIVE)
#endif
#ifdef TD_TDSIM_DIR_RELATIVE
#define TD_TDSIM_DIR TD_BUILD_PATH_(TD_TDSIM_DIR_RELATIVE)
#endif
#ifdef TD_SOURCE_DIR_RELATIVE
#define TD_SOURCE_DIR TD_BUILD_PATH_(TD_SOURCE_DIR_RELATIVE)
#endif
#ifdef TD_FAKE_PMU_RELATIVE
#define TD_FAKE_PMU TD_BUILD_PATH_(TD_FAKE_PMU_RELATIVE)
#endif

#endif  // TD_TESTS_SUPPORT_BUILD_PATHS_H_
