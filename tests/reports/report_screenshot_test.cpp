// The report as a reader sees it: `locksim report` writes the pause-past-
// lease page (and the control's, to compare), headless Chromium (Debian's `chromium`, installed by
// scripts/install-deps.sh) renders it to a PNG offline, and the picture is
// not blank and shows the red of the stale write. The page needs no script
// and fetches nothing, so Chromium runs with networking and scripts off.
#include <gtest/gtest.h>
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "tests/scratch_directory.h"

namespace {

const char* const kChromium = "/usr/bin/chromium";

struct Picture {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgb;  // 3 bytes a pixel, rows top down
};

Picture read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&image, path.c_str()) == 0) return {};
  image.format = PNG_FORMAT_RGB;
  Picture picture{image.width, image.height, std::vector<std::uint8_t>(PNG_IMAGE_SIZE(image))};
  if (png_image_finish_read(&image, nullptr, picture.rgb.data(), 0, nullptr) == 0) return {};
  return picture;
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::filesystem::path scratch() { return locksim::test_support::scratch_directory(); }

// Chromium as the report's readers would run it offline: no network, no
// scripts, a fresh profile; as root it needs --no-sandbox.
int screenshot(const std::filesystem::path& page, const std::filesystem::path& png, const std::filesystem::path& profile) {
  std::filesystem::create_directories(profile);
  const std::string command = std::string{kChromium} +
                              " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
                              " --disable-component-update --disable-sync --disable-quic --disable-javascript"
                              " --hide-scrollbars --user-data-dir=" + profile.string() +
                              " --window-size=1100,2200 --screenshot=" + png.string() + " file://" + page.string() +
                              " > " + (profile / "chromium.log").string() + " 2>&1";
  return run(command);
}

struct Ink {
  std::int64_t inked = 0;      // pixels that are not (nearly) white
  std::int64_t stale_red = 0;  // the stale write's #d62728, give or take anti-aliasing
};

Ink ink_of(const Picture& picture) {
  Ink ink;
  for (std::size_t pixel = 0; pixel + 2 < picture.rgb.size(); pixel += 3) {
    const int r = picture.rgb[pixel];
    const int g = picture.rgb[pixel + 1];
    const int b = picture.rgb[pixel + 2];
    if (r < 235 || g < 235 || b < 235) ++ink.inked;
    if (r > 190 && r < 235 && g < 70 && b < 70) ++ink.stale_red;
  }
  return ink;
}

// The pause-past-lease page beside the control's: both have the timeline's
// legend (a small red dot for "stale"), only the first has stale writes, so
// its red must far exceed the control's.
TEST(ReportScreenshot, ThePausePastLeasePageRendersInChromiumWithTheRedOfTheStaleWrite) {
  ASSERT_TRUE(std::filesystem::exists(kChromium)) << "chromium is missing: bash scripts/install-deps.sh installs it";
  const std::filesystem::path directory = scratch();
  const std::filesystem::path out = directory / "report";
  ASSERT_EQ(run(std::string{LOCKSIM_BINARY} + " report h01-gc-pause-past-lease control-no-faults --seeds 10 --out " +
                out.string() + " > " + (directory / "report.log").string() + " 2>&1"),
            0);
  Ink pages[2];
  const char* const names[2] = {"h01-gc-pause-past-lease", "control-no-faults"};
  for (int page = 0; page < 2; ++page) {
    const std::filesystem::path png = directory / (std::string{names[page]} + ".png");
    ASSERT_EQ(screenshot(out / (std::string{names[page]} + ".html"), png, directory / "profile"), 0) << names[page];
    const Picture picture = read_png(png.string());
    ASSERT_EQ(picture.width, 1100u) << names[page];
    ASSERT_EQ(picture.height, 2200u) << names[page];
    pages[page] = ink_of(picture);
    EXPECT_GT(pages[page].inked, std::int64_t{1100} * 2200 / 50) << names[page] << " rendered nearly blank";
  }
  EXPECT_GT(pages[0].stale_red, 4 * pages[1].stale_red + 500)
      << "no red stale-write marks in the pause-past-lease picture beyond the legend's (" << pages[0].stale_red
      << " red pixels against the control's " << pages[1].stale_red << ")";
  std::filesystem::remove_all(directory);
}

}  // namespace
