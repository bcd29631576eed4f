// Where WriteFileAtomically and WriteNewFile write and what they never
// replace: symlinks, devices, FIFOs, directories; the JSON file's name.
#include "runtime/base/output_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace td {
namespace {

std::string TempDir() {
  std::string pattern = "/tmp/td-output-files-test-XXXXXX";
  return mkdtemp(pattern.data());
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The names in `dir` but "." and "..", hidden temporary files included, sorted.
std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str()); d != nullptr) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The periodic flush's file: td replaces its own file, in one rename, and
// leaves one that someone else put at its name alone (and never removes it).
TEST(OutputFiles, OnlyTdsOwnFileIsReplacedOrRemoved) {
  const std::string dir = TempDir();
  absl::StatusOr<std::string> path = WriteNewFile(dir, "td-p-1", ".json", std::string("first"));
  ASSERT_TRUE(path.ok()) << path.status();
  OwnFile own;
  ASSERT_TRUE(RememberOwnFile(*path, &own));
  ASSERT_TRUE(ReplaceOwnFile(&own, WholeContent("second")).ok());
  EXPECT_EQ(Slurp(*path), "second");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"td-p-1.json"}) << "no temporary file left";
  ASSERT_TRUE(WriteFileAtomically(*path, "someone else's").ok());  // a new inode at the same name
  const absl::Status refused = ReplaceOwnFile(&own, WholeContent("third"));
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("no longer the file td wrote"), std::string::npos) << refused;
  RemoveOwnFile(&own);
  EXPECT_EQ(Slurp(*path), "someone else's");
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"td-p-1.json"});
  OwnFile again;
  ASSERT_TRUE(RememberOwnFile(*path, &again));
  RemoveOwnFile(&again);
  EXPECT_TRUE(Entries(dir).empty()) << "td's own file is removed";
}

// A symlink to a file is neither followed nor replaced: an error, both kept.
TEST(OutputFiles, NeitherFollowsNorReplacesASymlinkToAFile) {
  const std::string dir = TempDir();
  const std::string victim = dir + "/victim";
  std::ofstream(victim) << "keep";
  ASSERT_EQ(symlink(victim.c_str(), (dir + "/out.json").c_str()), 0);
  EXPECT_FALSE(WriteFileAtomically(dir + "/out.json", "{}").ok());
  std::ifstream in(victim);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "keep");
  struct stat st {};
  ASSERT_EQ(lstat((dir + "/out.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(OutputFiles, UnwritableDirectoryIsAnError) {
  const absl::Status s = WriteFileAtomically("/nonexistent-dir/x.json", "{}");
  EXPECT_FALSE(s.ok());
  // The file asked for, not the hidden temporary it is written through.
  EXPECT_EQ(s.message(), std::string("cannot write /nonexistent-dir/x.json: ") + std::strerror(ENOENT)) << s;
}

TEST(OutputFiles, JsonFileNameIsSafe) {
  EXPECT_EQ(JsonFileName("my app/../x", 12), "td-my_app_.._x-12.json");
  EXPECT_EQ(JsonFileName("", 3), "td-program-3.json");
  EXPECT_EQ(JsonFileName(std::string(255, 'p'), 7), "td-" + std::string(128, 'p') + "-7.json")
      << "long names are cut so the temporary name still fits NAME_MAX";
}

// As root, a null device of the test's own, so that a regression cannot
// replace the machine's /dev/null; otherwise /dev/null, which only root could.
TEST(OutputFiles, DevNullIsWrittenIntoNotReplaced) {
  std::string null_device = "/dev/null";
  if (geteuid() == 0) {
    null_device = TempDir() + "/null";
    if (mknod(null_device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "root without mknod";
  }
  ASSERT_TRUE(WriteFileAtomically(null_device, "report\n").ok());
  struct stat st {};
  ASSERT_EQ(lstat(null_device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(OutputFiles, FifoWithoutAReaderFailsAtOnce) {
  const std::string fifo = TempDir() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const absl::Status s = WriteFileAtomically(fifo, "report\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no process is reading"), std::string::npos) << s;
  struct stat st {};
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputFiles, FifoReaderGetsEverything) {
  const std::string fifo = TempDir() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const std::string content(1 << 20, 'r');  // more than a pipe holds
  std::string received;
  std::thread drain([&] {
    char buffer[65536];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (received.size() < content.size() && std::chrono::steady_clock::now() < deadline) {
      const ssize_t n = read(reader, buffer, sizeof(buffer));
      if (n > 0) received.append(buffer, static_cast<size_t>(n));
      else std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const absl::Status s = WriteFileAtomically(fifo, content);
  drain.join();
  close(reader);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(received.size(), content.size());
}

TEST(OutputFiles, AReaderThatGoesAwayIsAnErrorNotASignal) {
  const std::string fifo = TempDir() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::thread quitter([&] {
    char buffer[16];
    for (int i = 0; i < 30000 && read(reader, buffer, sizeof(buffer)) <= 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    close(reader);  // after the first bytes: the writer meets EPIPE
  });
  const absl::Status s = WriteFileAtomically(fifo, std::string(4 << 20, 'q'));
  quitter.join();
  EXPECT_FALSE(s.ok());  // and this process is still here: no SIGPIPE
  EXPECT_NE(s.message().find("went away"), std::string::npos) << s;
}

TEST(OutputFiles, SymlinkToAFileIsRefusedAndKept) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/victim") << "keep";
  ASSERT_EQ(symlink((dir + "/victim").c_str(), (dir + "/out.txt").c_str()), 0);
  const absl::Status s = WriteFileAtomically(dir + "/out.txt", "report");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a symbolic link to a file"), std::string::npos) << s;
  struct stat st {};
  ASSERT_EQ(lstat((dir + "/out.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Slurp(dir + "/victim"), "keep");
}

TEST(OutputFiles, SymlinkToADeviceIsWrittenThrough) {
  const std::string dir = TempDir();
  ASSERT_EQ(symlink("/dev/null", (dir + "/out.txt").c_str()), 0);
  EXPECT_TRUE(WriteFileAtomically(dir + "/out.txt", "report").ok());
  struct stat st {};
  ASSERT_EQ(lstat((dir + "/out.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(OutputFiles, ADirectoryIsAnError) {
  const std::string dir = TempDir();
  const absl::Status s = WriteFileAtomically(dir, "report");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s;
}

TEST(OutputFiles, RegularFilesAreStillReplacedAtomically) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/out.txt") << "old";
  ASSERT_TRUE(WriteFileAtomically(dir + "/out.txt", "new").ok());
  EXPECT_EQ(Slurp(dir + "/out.txt"), "new");
}

TEST(OutputFiles, NewFilesNeverReplaceOne) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/td-app-7.json") << "twin";
  absl::StatusOr<std::string> first = WriteNewFile(dir, "td-app-7", ".json", "ours 1");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, dir + "/td-app-7.1.json");
  absl::StatusOr<std::string> second = WriteNewFile(dir, "td-app-7", ".json", "ours 2");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, dir + "/td-app-7.2.json");
  EXPECT_EQ(Slurp(dir + "/td-app-7.json"), "twin");
  EXPECT_EQ(Slurp(*first), "ours 1");
  EXPECT_EQ(Slurp(*second), "ours 2");
  absl::StatusOr<std::string> free_name = WriteNewFile(dir, "td-app-8", ".json", "x");
  ASSERT_TRUE(free_name.ok());
  EXPECT_EQ(*free_name, dir + "/td-app-8.json");
  // No temporary files are left behind.
  EXPECT_EQ(Entries(dir).size(), 4u);
}

// Content written as it is produced (the run file at exit): every piece in
// order; a producer that cannot finish leaves no file, final or temporary.
TEST(OutputFiles, ProducedContentIsWrittenPieceByPieceAndNeverLeftHalfDone) {
  const std::string dir = TempDir();
  const auto three = [](PieceWriter write) { return write("one ") && write("two ") && write("three"); };
  absl::StatusOr<std::string> path = WriteNewFile(dir, "td-app-9", ".json", three);
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, dir + "/td-app-9.json");
  EXPECT_EQ(Slurp(*path), "one two three");
  int pieces_asked = 0;
  const auto runs_out = [&pieces_asked](PieceWriter write) {
    ++pieces_asked;
    return write("half of it") && false;  // out of memory after the first piece
  };
  absl::StatusOr<std::string> failed = WriteNewFile(dir, "td-app-10", ".json", runs_out);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(failed.status())) << failed.status();
  EXPECT_NE(failed.status().message().find("out of memory"), std::string::npos) << failed.status();
  EXPECT_EQ(pieces_asked, 1);
  struct stat st {};
  EXPECT_NE(lstat((dir + "/td-app-10.json").c_str(), &st), 0) << "no half-written file";
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"td-app-9.json"}) << "no temporary file left";
}

// The file a user names (`td run --out`), written as it is produced: a
// regular file is replaced by the complete content, or left as it was when
// the producer cannot finish; a FIFO's reader gets the pieces in order.
TEST(OutputFiles, ANamedFileGetsProducedContentWholeOrNotAtAll) {
  const std::string dir = TempDir();
  const std::string path = dir + "/run.json";
  std::ofstream(path) << "the earlier run";
  const auto three = [](PieceWriter write) { return write("one ") && write("two ") && write("three"); };
  ASSERT_TRUE(WriteFileAtomically(path, three).ok());
  EXPECT_EQ(Slurp(path), "one two three");
  const auto runs_out = [](PieceWriter write) { return write("half of it") && false; };
  const absl::Status failed = WriteFileAtomically(path, runs_out);
  EXPECT_TRUE(absl::IsResourceExhausted(failed)) << failed;
  EXPECT_EQ(Slurp(path), "one two three") << "the complete file stays";
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"run.json"}) << "no temporary file left";

  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(WriteFileAtomically(fifo, three).ok());
  char buffer[64] = {};
  const ssize_t n = read(reader, buffer, sizeof(buffer));
  close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "one two three");
}

}  // namespace
}  // namespace td
