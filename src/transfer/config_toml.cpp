// TOML into nlohmann::json (config_text.hpp): toml++ (Debian's libtomlplusplus) parses; this
// file only walks what it built, so that pyproject.toml and Cargo.toml are read like the YAML
// and JSON configs.
#include "src/transfer/config_text.hpp"

#include <string>

#include <toml++/toml.h>

namespace ws {

namespace {

constexpr int k_max_depth = 64;

bool to_json(const toml::node& node, int depth, nlohmann::json& out) {
  if (depth > k_max_depth) {
    return false;
  }
  if (const toml::table* t = node.as_table()) {
    out = nlohmann::json::object();
    for (const auto& [key, value] : *t) {
      nlohmann::json v;
      if (!to_json(value, depth + 1, v)) {
        return false;
      }
      if (!v.is_null()) {
        out[std::string(key.str())] = std::move(v);
      }
    }
  } else if (const toml::array* a = node.as_array()) {
    out = nlohmann::json::array();
    for (const toml::node& e : *a) {
      nlohmann::json v;
      if (!to_json(e, depth + 1, v)) {
        return false;
      }
      out.push_back(std::move(v));
    }
  } else if (const auto* s = node.as_string()) {
    out = s->get();
  } else if (const auto* i = node.as_integer()) {
    out = std::to_string(i->get());
  } else if (const auto* f = node.as_floating_point()) {
    out = std::to_string(f->get());
  } else if (const auto* b = node.as_boolean()) {
    out = b->get() ? "true" : "false";
  } // dates and times: nothing a tool runs
  return true;
}

} // namespace

std::optional<nlohmann::json> parse_toml(std::string_view text) {
  try {
    const toml::table doc = toml::parse(text);
    nlohmann::json out;
    if (!to_json(doc, 0, out)) {
      return std::nullopt;
    }
    return out;
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

} // namespace ws
