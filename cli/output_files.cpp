#include "output_files.h"

#include <cerrno>
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

}  // namespace locksim::cli
