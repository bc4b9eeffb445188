#include "reports/svg_document.h"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

namespace locksim::reports {

std::string svg_number(double value) {
  if (!std::isfinite(value)) return "0";
  std::string text = fmt::format("{:.2f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

std::string xml_escaped(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&apos;"; break;
      // As references, so that a parser's attribute normalization keeps them.
      case '\n': escaped += "&#10;"; break;
      case '\r': escaped += "&#13;"; break;
      case '\t': escaped += "&#9;"; break;
      default:
        // XML 1.0 has no way to write other control characters, even as
        // references, nor U+FFFE and U+FFFF (EF BF BE/BF): they are left out.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') break;
        if (text.substr(at, 3) == "\xEF\xBF\xBE" || text.substr(at, 3) == "\xEF\xBF\xBF") {
          at += 2;
          break;
        }
        escaped += c;
    }
  }
  return escaped;
}

SvgElement& SvgElement::set(std::string_view attribute, std::string_view value) {
  attributes_.emplace_back(attribute, value);
  return *this;
}

SvgElement& SvgElement::set(std::string_view attribute, double value) { return set(attribute, svg_number(value)); }

SvgElement& SvgElement::text(std::string_view text) {
  text_ = text;
  return *this;
}

SvgElement& SvgElement::add(SvgElement child) {
  children_.push_back(std::move(child));
  return children_.back();
}

std::string SvgElement::to_xml(int depth) const {
  const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
  std::string xml = indent + "<" + name_;
  for (const auto& [attribute, value] : attributes_) xml += fmt::format(" {}=\"{}\"", attribute, xml_escaped(value));
  if (text_.empty() && children_.empty()) return xml + "/>\n";
  xml += ">" + xml_escaped(text_);
  // Appended with format_to, not `xml + "</" + …`: GCC 12 at -O3 warns
  // (-Wrestrict, a false positive) on that chain of string additions.
  if (children_.empty()) {
    fmt::format_to(std::back_inserter(xml), "</{}>\n", name_);
    return xml;
  }
  xml += "\n";
  for (const SvgElement& child : children_) xml += child.to_xml(depth + 1);
  fmt::format_to(std::back_inserter(xml), "{}</{}>\n", indent, name_);
  return xml;
}

SvgDocument::SvgDocument(double width, double height) {
  root_.set("xmlns", "http://www.w3.org/2000/svg")
      .set("width", width)
      .set("height", height)
      .set("viewBox", fmt::format("0 0 {} {}", svg_number(width), svg_number(height)))
      .set("font-family", "Helvetica, Arial, sans-serif");
  root_.add(svg_rect(0, 0, width, height, "white"));
}

std::string SvgDocument::to_xml() const { return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + root_.to_xml(); }

SvgElement svg_line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width) {
  SvgElement line{"line"};
  line.set("x1", x1).set("y1", y1).set("x2", x2).set("y2", y2).set("stroke", stroke).set("stroke-width", stroke_width);
  return line;
}

SvgElement svg_rect(double x, double y, double width, double height, std::string_view fill) {
  SvgElement rect{"rect"};
  rect.set("x", x).set("y", y).set("width", width).set("height", height).set("fill", fill);
  return rect;
}

SvgElement svg_text(double x, double y, std::string_view text, std::string_view anchor, double font_size) {
  SvgElement element{"text"};
  element.set("x", x).set("y", y).set("font-size", font_size);
  if (anchor != "start") element.set("text-anchor", anchor);
  element.text(text);
  return element;
}

std::string svg_points(const std::vector<std::pair<double, double>>& points) {
  std::string text;
  for (const auto& [x, y] : points) {
    if (!text.empty()) text += ' ';
    text += svg_number(x) + "," + svg_number(y);
  }
  return text;
}

}  // namespace locksim::reports
