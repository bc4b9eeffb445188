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

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace locksim::scenario {

struct PresetSetting {
  std::string_view pointer;  // the scenario key, "/workers/retry"
  std::string_view value;    // its value as the file would write it (JSON)
  std::string_view source;   // where the library says so: file, and the line or name
  std::string_view services = "";  // only with these service kinds (space-separated); "" = every kind the preset takes
  // A setting of the library's renewal goes with its renewal: a file that
  // sets this key itself (`"renew": "none"`) gets none of them.
  std::string_view follows = "";
};

struct ClientPreset {
  std::string_view name;      // the value of workers.client
  std::string_view library;   // as its users know it, with the version the values come from
  std::string_view services;  // the service kinds it can lock with (space-separated)
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
