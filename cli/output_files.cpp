#include "output_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>

#include "command.h"

namespace locksim::cli {

void prepare_output_directory(const std::string& flag, const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || !std::filesystem::is_directory(directory)) {
    throw BadInput(fmt::format("{} {}: cannot create the directory: {}", flag, directory,
                               error ? error.message() : std::string{"a file of that name exists"}));
  }
  if (access(directory.c_str(), W_OK) != 0) {
    throw BadInput(fmt::format("{} {}: cannot write into the directory: {}", flag, directory, std::strerror(errno)));
  }
}

std::string file_name_part(const std::string& name) {
  std::string part = name;
  for (char& c : part) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '-' || c == '_';
    if (!plain) c = '_';
  }
  for (char& c : part) {
    if (c != '.') break;
    c = '_';
  }
  return part;
}

void write_output_file(const std::filesystem::path& path, const std::string& contents) {
  errno = 0;
  std::ofstream output{path, std::ios::binary};
  output << contents;
  output.close();
  if (!output) {
    throw BadInput(fmt::format("{}: cannot write the file: {}", path.string(), std::strerror(errno != 0 ? errno : EIO)));
  }
}

// Fails before the run, not after it: opens a scratch file in the output's
// directory (the output itself is not touched, so a failed run leaves an
// older report in place) and says why it cannot be written.
void check_writable(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw BadInput(fmt::format("{} {}: cannot write the file: {}", option, path, std::strerror(EISDIR)));
  }
  if (std::filesystem::exists(path, error)) {
    // Appending nothing leaves an existing report as it is but fails as writing would.
    FILE* existing = std::fopen(path.c_str(), "ab");
    if (existing == nullptr) {
      throw BadInput(fmt::format("{} {}: cannot write the file: {}", option, path, std::strerror(errno)));
    }
    std::fclose(existing);
    return;
  }
  const std::filesystem::path target{path};
  const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : ".";
  const std::filesystem::path probe =
      directory / fmt::format(".{}.locksim-write-check-{}", target.filename().string(), getpid());
  FILE* file = std::fopen(probe.c_str(), "wb");
  if (file == nullptr) {
    throw BadInput(fmt::format("{} {}: cannot write the file: {}", option, path, std::strerror(errno)));
  }
  std::fclose(file);
  std::filesystem::remove(probe, error);
}

std::string unused_file_name(const std::string& path) {
  const std::filesystem::path wanted{path};
  std::error_code error;
  if (!std::filesystem::exists(wanted, error)) return path;
  for (int number = 2;; ++number) {
    std::filesystem::path candidate = wanted;
    candidate.replace_filename(fmt::format("{}-{}{}", wanted.stem().string(), number, wanted.extension().string()));
    if (!std::filesystem::exists(candidate, error)) return candidate.string();
  }
}

}  // namespace locksim::cli
