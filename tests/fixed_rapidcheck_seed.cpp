// CI runs every rapidcheck property from one fixed seed, so the gate never
// flickers: ctest passes LOCKSIM_DEFAULT_RC_PARAMS (tests/CMakeLists.txt),
// and this turns it into RC_PARAMS before any property runs — unless
// RC_PARAMS is already set, so a developer's own wins
// (`RC_PARAMS="seed=42" ctest ...`; scripts/soak.sh draws fresh ones).
// rapidcheck reads RC_PARAMS once, at its first property, long after static
// initialisation, and prints the configuration it uses ("Using configuration:
// seed=...") and, on a failure, the RC_PARAMS that reproduce it.
#include <cstdlib>

namespace {

const bool kDefaultParamsApplied = [] {
  if (const char* params = std::getenv("LOCKSIM_DEFAULT_RC_PARAMS")) setenv("RC_PARAMS", params, /*overwrite=*/0);
  return true;
}();

}  // namespace
