#include "model/fault.h"

#include <utility>

namespace locksim::model {
namespace {

template <std::size_t... Index>
constexpr bool kinds_in_order(std::index_sequence<Index...>) {
  return ((std::variant_alternative_t<Index, FaultParams>::kKind == static_cast<vocabulary::FaultKind>(Index)) && ...);
}
static_assert(std::variant_size_v<FaultParams> == vocabulary::kFaultKindNames.size(), "one type per fault kind");
static_assert(kinds_in_order(std::make_index_sequence<std::variant_size_v<FaultParams>>{}),
              "FaultParams lists the kinds in FaultKind order");

template <std::size_t... Index>
FaultParams make_default(std::size_t kind, std::index_sequence<Index...>) {
  FaultParams params;
  (void)((kind == Index && (params.emplace<Index>(), true)) || ...);
  return params;
}

}  // namespace

FaultParams default_fault_params(vocabulary::FaultKind kind) {
  return make_default(static_cast<std::size_t>(kind), std::make_index_sequence<std::variant_size_v<FaultParams>>{});
}

}  // namespace locksim::model
