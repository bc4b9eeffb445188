#pragma once
// Where a picture's text goes so that no label prints over another label or
// over a bar: each label's box is estimated from its text and font size, and
// a label is put at the first of its candidate places that is free.
//
// The estimate is the SVG's own layout model: tests read a picture back and
// hold every text element's box, measured the same way, apart from the rest.
// It is generous on purpose (wider than Helvetica's and Arial's average
// glyph), so that boxes apart here are apart on the screen.

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace locksim::reports {

// A rectangle in the picture's units: left < right, top < bottom (y grows down).
struct Box {
  double left = 0;
  double top = 0;
  double right = 0;
  double bottom = 0;

  [[nodiscard]] bool overlaps(const Box& other) const {
    return left < other.right && other.left < right && top < other.bottom && other.top < bottom;
  }
};

// The box a line of text takes: `x` and `baseline` as for an SVG <text>,
// `anchor` "start", "middle" or "end".
[[nodiscard]] Box text_box(double x, double baseline, std::string_view anchor, double font_size, std::string_view text);

// A label's place: the SVG <text> position and anchor.
struct LabelPlace {
  double x = 0;
  double baseline = 0;
  std::string_view anchor = "start";
};

class LabelLayout {
 public:
  // Labels stay inside `bounds`.
  explicit LabelLayout(const Box& bounds) : bounds_{bounds} {}

  // Something a label must not cover: a bar, a mark, a label drawn without this layout.
  void block(const Box& box) { taken_.push_back(box); }

  [[nodiscard]] bool is_free(const Box& box) const;

  // The first of `places` where `text` is free, taken; nullopt when none is.
  std::optional<LabelPlace> place(std::span<const LabelPlace> places, double font_size, std::string_view text);

 private:
  Box bounds_;
  std::vector<Box> taken_;
};

}  // namespace locksim::reports
