#pragma once
// Test helper: this test process's scratch directory under the system's
// temporary directory, made on first use and removed with everything in it
// when the process ends, whether its tests passed or failed (ctest runs each
// test in its own process, so one run would otherwise leave one per test).

#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace locksim::test_support {

class ScratchDirectory {
 public:
  ScratchDirectory()
      : path_{std::filesystem::temp_directory_path() / ("locksim-test-" + std::to_string(getpid()))} {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;  // nothing to do about a failure at exit
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The process's one scratch directory.
inline const std::filesystem::path& scratch_directory() {
  static const ScratchDirectory directory;
  return directory.path();
}

}  // namespace locksim::test_support
