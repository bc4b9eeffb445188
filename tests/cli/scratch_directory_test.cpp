// The tests' scratch directory goes when its process ends, pass or fail:
// one ctest run used to leave one /tmp/locksim-cli-test-PID per test.

#include "tests/scratch_directory.h"

#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace locksim::test_support {
namespace {

TEST(ScratchDirectory, IsRemovedWithWhatItHoldsWhenTheProcessEndsEvenAfterAFailure) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child: a test that writes a file there and then fails (exit status 1).
    std::ofstream{scratch_directory() / "left.txt"} << "x";
    std::exit(std::filesystem::exists(scratch_directory() / "left.txt") ? 1 : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(WEXITSTATUS(status), 1) << "the child wrote its file";
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::temp_directory_path() /
                                       ("locksim-test-" + std::to_string(child))));
}

}  // namespace
}  // namespace locksim::test_support
