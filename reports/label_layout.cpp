#include "reports/label_layout.h"

#include <algorithm>
#include <cstddef>

#include "text/character_count.h"

namespace locksim::reports {

namespace {

// Average advance of a character, in font sizes, a little over the widest
// sans-serif average, so that an estimate errs on the wide side.
constexpr double kAdvance = 0.62;
// Above and below the baseline, in font sizes, as Chromium measures a line of
// DejaVu Sans (what Debian gives for "Helvetica, Arial, sans-serif").
constexpr double kAscent = 0.92;
constexpr double kDescent = 0.28;
// Room kept between two labels, in the picture's units.
constexpr double kGap = 2;

}  // namespace

Box text_box(double x, double baseline, std::string_view anchor, double font_size, std::string_view text) {
  const double width = static_cast<double>(text::character_count(text)) * font_size * kAdvance;
  const double left = anchor == "end" ? x - width : anchor == "middle" ? x - width / 2 : x;
  return Box{left, baseline - font_size * kAscent, left + width, baseline + font_size * kDescent};
}

bool LabelLayout::is_free(const Box& box) const {
  if (box.left < bounds_.left || box.right > bounds_.right || box.top < bounds_.top || box.bottom > bounds_.bottom) {
    return false;
  }
  const Box padded{box.left - kGap, box.top, box.right + kGap, box.bottom};
  return std::none_of(taken_.begin(), taken_.end(), [&](const Box& taken) { return padded.overlaps(taken); });
}

std::optional<LabelPlace> LabelLayout::place(std::span<const LabelPlace> places, double font_size, std::string_view text) {
  for (const LabelPlace& candidate : places) {
    const Box box = text_box(candidate.x, candidate.baseline, candidate.anchor, font_size, text);
    if (!is_free(box)) continue;
    taken_.push_back(box);
    return candidate;
  }
  return std::nullopt;
}

}  // namespace locksim::reports
