#pragma once
// Writing what a command produces: a directory made up front (so a bad --out
// fails before any run), and whole files whose failure is bad input naming
// the path and why.

#include <filesystem>
#include <string>

namespace locksim::cli {

// Creates `directory` if missing; throws BadInput ("--out DIR: cannot …")
// when it cannot be made or written into.
void prepare_output_directory(const std::string& flag, const std::string& directory);

// A scenario name as part of a file name: every character but letters,
// digits, '.', '-' and '_' becomes '_', and so do leading dots, so a name
// like "team/h01" or ".." names a file in the directory meant.
[[nodiscard]] std::string file_name_part(const std::string& name);

// Checks before any work that `path` (given as `option`) can be written —
// not a directory, and its file or directory writable — so a bad path fails
// at once, not after a long run; throws BadInput. "" is no file: fine.
void check_writable(const std::string& option, const std::string& path);

// `path`, or, if a file is there already, the first of PATH-2.EXT,
// PATH-3.EXT, … that is not: a default output name never replaces a file.
[[nodiscard]] std::string unused_file_name(const std::string& path);

// Writes `contents` to `path`, replacing it; throws BadInput on failure.
void write_output_file(const std::filesystem::path& path, const std::string& contents);

}  // namespace locksim::cli
