#pragma once
// Client presets: `"workers": {"client": "redis-py"}` sets the client keys
// to what a real lock library does by default — its lease, its retry
// waits, its request timeout, its renewal, the clock it times its lease
// on — each value with the library's version and the source file it comes
// from. The preset fills only keys the file does not set, so a file can
// still say `"lock": {"lease": "30s"}` (the lease its code passes) and
// keep the rest of the library's behaviour.
//
// What a library does that no key describes is said in the preset's
// `not_modelled`, so the user knows where the model stops.

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/options.h"

namespace locksim::scenario {

// A set of service kinds (model::ServiceKind), as bits.
class ServiceKinds {
 public:
  constexpr ServiceKinds() = default;
  constexpr ServiceKinds(std::initializer_list<model::ServiceKind> kinds) {
    for (const model::ServiceKind kind : kinds) bits_ |= bit(kind);
  }
  [[nodiscard]] constexpr bool empty() const { return bits_ == 0; }
  [[nodiscard]] constexpr bool contains(model::ServiceKind kind) const { return (bits_ & bit(kind)) != 0; }
  // In the order of model::ServiceKind.
  [[nodiscard]] std::vector<model::ServiceKind> kinds() const;
  // "\"redis\" or \"redis-failover\"", as the file names them.
  [[nodiscard]] std::string text() const;

 private:
  static constexpr unsigned bit(model::ServiceKind kind) { return 1u << static_cast<unsigned>(kind); }
  unsigned bits_ = 0;
};

struct PresetSetting {
  std::string_view pointer;  // the scenario key, "/workers/retry"
  std::string_view value;    // its value as the file would write it (JSON)
  std::string_view source;   // where the library says so: file, and the line or name
  ServiceKinds services = {};  // only with these service kinds; empty: every kind the preset takes
  // A setting of the library's renewal goes with its renewal: a file that
  // sets this key itself (`"renew": "none"`) gets none of them.
  std::string_view follows = "";
};

struct ClientPreset {
  std::string_view name;      // the value of workers.client
  std::string_view library;   // as its users know it, with the version the values come from
  ServiceKinds services;      // the service kinds it can lock with
  std::span<const PresetSetting> settings;
  std::string_view not_modelled;  // what it does that no key describes
};

[[nodiscard]] std::span<const ClientPreset> client_presets();

// Null when there is none of that name.
[[nodiscard]] const ClientPreset* find_client_preset(std::string_view name);

// The names, for an error message: "redis-py", "redsync", …
[[nodiscard]] std::string client_preset_names();

// Sets every key of the preset the document does not set, for the
// document's service kind. Returns "" or why the preset does not apply (a
// service kind the library cannot lock with).
[[nodiscard]] std::string apply_client_preset(const ClientPreset& preset, nlohmann::json& document);

// Every preset as text for `locksim explain /workers/client`, and as the
// Markdown table docs/models.md holds (a test compares the two).
[[nodiscard]] std::string client_presets_text();
[[nodiscard]] std::string client_presets_markdown_table();

}  // namespace locksim::scenario
