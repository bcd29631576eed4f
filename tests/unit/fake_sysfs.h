// A sysfs devices tree in a temporary folder, for the tests of memory and
// event selection: PMU types, cpumasks, format fields and event aliases.
#ifndef TD_TESTS_UNIT_FAKE_SYSFS_H_
#define TD_TESTS_UNIT_FAKE_SYSFS_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace td::fake_sysfs {

namespace fs = std::filesystem;

class FakeSysfs {
 public:
  FakeSysfs() {
    root_ = fs::temp_directory_path() / ("td-sysfs-" + std::to_string(getpid()) + "-" + std::to_string(++count_));
    fs::create_directories(root_);
  }
  ~FakeSysfs() { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) const {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text << "\n";
  }
  // An Intel server IMC channel as Linux describes it.
  void AddServerImc(int n, int type, const std::string& cpumask) const {
    const std::string pmu = "uncore_imc_" + std::to_string(n);
    Write(pmu + "/type", std::to_string(type));
    Write(pmu + "/cpumask", cpumask);
    Write(pmu + "/format/event", "config:0-7");
    Write(pmu + "/format/umask", "config:8-15");
    Write(pmu + "/events/cas_count_read", "event=0x04,umask=0x03");
    Write(pmu + "/events/cas_count_read.scale", "6.103515625e-5");
    Write(pmu + "/events/cas_count_read.unit", "MiB");
    Write(pmu + "/events/cas_count_write", "event=0x04,umask=0x0c");
    Write(pmu + "/events/cas_count_write.scale", "6.103515625e-5");
    Write(pmu + "/events/cas_count_write.unit", "MiB");
  }
  std::string path() const { return root_.string(); }

 private:
  static inline int count_ = 0;
  fs::path root_;
};

}  // namespace td::fake_sysfs

#endif  // TD_TESTS_UNIT_FAKE_SYSFS_H_
