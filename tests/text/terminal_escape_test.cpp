#include "text/terminal_escape.h"

#include <string>

#include <gtest/gtest.h>

namespace locksim::text {
namespace {

using namespace std::string_literals;

TEST(TerminalEscape, KeepsPrintableTextOfAnyLanguageAsItIs) {
  EXPECT_EQ(terminal_escaped("worker-1 qty=6"), "worker-1 qty=6");
  EXPECT_EQ(terminal_escaped("ünïcödé 漢字 😀"), "ünïcödé 漢字 😀");
}

TEST(TerminalEscape, WritesControlCharactersOutVisibly) {
  EXPECT_EQ(terminal_escaped("\x1b[2Jclear"), "\\e[2Jclear");
  EXPECT_EQ(terminal_escaped("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(terminal_escaped("bell\x07 del\x7f"), "bell\\x07 del\\x7f");
  EXPECT_EQ(terminal_escaped("nul\0here"s), "nul\\x00here");
}

TEST(TerminalEscape, WritesC1ControlsAndBidiOverridesAsCodePoints) {
  EXPECT_EQ(terminal_escaped("next\u0085line csi\u009b"), "next\\u{0085}line csi\\u{009b}");
  EXPECT_EQ(terminal_escaped("\u202egnp.exe"), "\\u{202e}gnp.exe");
  EXPECT_EQ(terminal_escaped("\u2066isolated\u2069"), "\\u{2066}isolated\\u{2069}");
}

TEST(TerminalEscape, WritesBytesThatAreNotUtf8AsBytes) {
  EXPECT_EQ(terminal_escaped("bad \xff byte"), "bad \\xff byte");
  EXPECT_EQ(terminal_escaped("cut \xe2\x80"), "cut \\xe2\\x80");
  EXPECT_EQ(terminal_escaped("overlong \xc0\xaf"), "overlong \\xc0\\xaf");
}

TEST(TerminalEscape, TheLinesFormKeepsLineBreaksAndEscapesTheRest) {
  EXPECT_EQ(terminal_escaped_lines("one\x1b[31m\ntwo\r\n"), "one\\e[31m\ntwo\\r\n");
}

}  // namespace
}  // namespace locksim::text
