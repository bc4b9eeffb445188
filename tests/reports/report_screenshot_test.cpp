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
#include <fstream>
#include <sstream>
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

// What scripts/label-overlaps.js finds on `page`, run in Chromium with
// scripts on (a copy of the page loads it): "none", or one line per overlap.
std::string label_overlaps(const std::filesystem::path& page, const std::filesystem::path& profile) {
  std::ifstream input{page};
  std::stringstream html;
  html << input.rdbuf();
  std::string text = html.str();
  const std::size_t body_end = text.rfind("</body>");
  if (body_end == std::string::npos) return "no </body> in " + page.string();
  text.insert(body_end, std::string{"<script src=\"file://"} + LOCKSIM_SOURCE_DIR + "/scripts/label-overlaps.js\"></script>");
  const std::filesystem::path checked = page.parent_path() / ("checked-" + page.filename().string());
  std::ofstream{checked} << text;
  const std::filesystem::path dom = page.parent_path() / (page.stem().string() + ".dom");
  std::filesystem::create_directories(profile);
  run(std::string{kChromium} +
      " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update"
      " --disable-sync --disable-quic --user-data-dir=" + profile.string() + " --dump-dom file://" + checked.string() +
      " > " + dom.string() + " 2> " + (profile / "chromium.log").string());
  std::ifstream dumped{dom};
  std::stringstream contents;
  contents << dumped.rdbuf();
  const std::string marker = "<pre id=\"label-overlaps\">";
  const std::size_t begin = contents.str().find(marker);
  if (begin == std::string::npos) return "Chromium wrote no result for " + page.string();
  const std::size_t from = begin + marker.size();
  return contents.str().substr(from, contents.str().find("</pre>", from) - from);
}

// The pages of a pause past the lease, of a pause between a read and a write
// (h22), and of a double charge (h25), each with its critical-event note, as
// Chromium lays them out: no label over another label, a bar or a mark.
// scripts/report-screenshots.sh --check holds every built-in page to the same.
TEST(ReportScreenshot, NoLabelOfAPagePrintsOverAnotherLabelABarOrAMarkInChromium) {
  ASSERT_TRUE(std::filesystem::exists(kChromium)) << "chromium is missing: bash scripts/install-deps.sh installs it";
  const std::filesystem::path directory = scratch() / "overlaps";
  std::filesystem::create_directories(directory);
  const std::filesystem::path out = directory / "report";
  const std::vector<std::string> names = {"h01-gc-pause-past-lease", "h22-fencing-window", "h25-duplicate-charge"};
  std::string command = std::string{LOCKSIM_BINARY} + " report";
  for (const std::string& name : names) command += " " + name;
  ASSERT_EQ(run(command + " --seeds 10 --out " + out.string() + " > " + (directory / "report.log").string() + " 2>&1"), 0);
  for (const std::string& name : names) {
    EXPECT_EQ(label_overlaps(out / (name + ".html"), directory / "profile"), "none") << name;
  }
}

}  // namespace
