#include "checker/name_ids.h"

#include <algorithm>

namespace locksim::checker {

NameId NameIds::intern(std::string_view name) {
  if (name.empty()) {
    return kNoName;
  }
  auto found = ids_.find(name);
  if (found == ids_.end()) {
    found = ids_.emplace(std::string{name}, static_cast<NameId>(names_.size())).first;
    names_.push_back(&found->first);
  }
  return found->second;
}

void NameIds::sort_by_name(std::vector<NameId>& ids) const {
  std::sort(ids.begin(), ids.end(), [this](NameId left, NameId right) { return name(left) < name(right); });
}

std::size_t NameIds::Hash::operator()(std::string_view name) const {
  std::uint64_t hash = name.size() * 0x9E3779B97F4A7C15;
  std::size_t at = 0;
  for (; at + 8 <= name.size(); at += 8) {
    hash = (hash ^ word_at(name.data() + at)) * 0xFF51AFD7ED558CCD;
  }
  std::uint64_t tail = 0;
  for (std::size_t shift = 0; at < name.size(); ++at, shift += 8) {
    tail |= std::uint64_t{static_cast<unsigned char>(name[at])} << shift;
  }
  hash = (hash ^ tail) * 0xC4CEB9FE1A85EC53;
  return static_cast<std::size_t>(hash ^ (hash >> 29));
}

bool NameIds::Equal::operator()(std::string_view left, std::string_view right) const {
  if (left.size() != right.size()) return false;
  std::size_t at = 0;
  for (; at + 8 <= left.size(); at += 8) {
    if (word_at(left.data() + at) != word_at(right.data() + at)) return false;
  }
  for (; at < left.size(); ++at) {
    if (left[at] != right[at]) return false;
  }
  return true;
}

}  // namespace locksim::checker
