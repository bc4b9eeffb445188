#pragma once
// A small SVG writer: elements with attributes, children and text, written
// as XML with escaping and with numbers formatted one way everywhere, so the
// same drawing is the same bytes on every run. Generic on purpose: sweep
// plots use it, and so will the HTML reports' timelines.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace locksim::reports {

// A coordinate or length for an attribute: at most two decimals, no
// trailing zeros, never "-0" ("12.5", "3", "-0.25").
[[nodiscard]] std::string svg_number(double value);

// Escapes &, <, >, " and ' for XML text and attribute values, and leaves out
// what XML 1.0 cannot hold at all (control characters but tab, line feed and
// carriage return, which are written as references; U+FFFE, U+FFFF), so any
// user text makes well-formed XML that reads back as it was.
[[nodiscard]] std::string xml_escaped(std::string_view text);

class SvgElement {
 public:
  explicit SvgElement(std::string name) : name_{std::move(name)} {}

  // Adds an attribute (in the order given; that is the order written).
  SvgElement& set(std::string_view attribute, std::string_view value);
  SvgElement& set(std::string_view attribute, double value);
  // The element's text (escaped when written); written before its children.
  SvgElement& text(std::string_view text);
  // Adds a child and returns it, to fill in.
  SvgElement& add(SvgElement child);
  SvgElement& add(std::string name) { return add(SvgElement{std::move(name)}); }

  // The element as XML, indented two spaces per level, one element a line.
  [[nodiscard]] std::string to_xml(int depth = 0) const;

 private:
  std::string name_;
  std::vector<std::pair<std::string, std::string>> attributes_;
  std::string text_;
  std::vector<SvgElement> children_;
};

// A whole SVG file: the XML declaration and an <svg> root of the given size
// in user units (px), with a white background and a sans-serif font.
class SvgDocument {
 public:
  SvgDocument(double width, double height);

  [[nodiscard]] SvgElement& root() { return root_; }
  SvgElement& add(SvgElement child) { return root_.add(std::move(child)); }
  [[nodiscard]] std::string to_xml() const;

 private:
  SvgElement root_{"svg"};
};

// Shapes the plots use, with their usual attributes filled in.
[[nodiscard]] SvgElement svg_line(double x1, double y1, double x2, double y2, std::string_view stroke,
                                  double stroke_width = 1);
[[nodiscard]] SvgElement svg_rect(double x, double y, double width, double height, std::string_view fill);
// anchor: "start", "middle" or "end".
[[nodiscard]] SvgElement svg_text(double x, double y, std::string_view text, std::string_view anchor = "start",
                                  double font_size = 12);
// "x1,y1 x2,y2 …", for polyline and polygon.
[[nodiscard]] std::string svg_points(const std::vector<std::pair<double, double>>& points);

}  // namespace locksim::reports
