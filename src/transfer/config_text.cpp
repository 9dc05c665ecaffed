// YAML and JSON-with-comments into nlohmann::json (config_text.hpp). libyaml parses (Debian's
// libyaml-0-2, the parser PyYAML is built on); this file only walks what it built.
#include "src/transfer/config_text.hpp"

#include "fuse/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include <cerrno>
#include <memory>

namespace ws {

namespace {

/// Owns a libyaml parser and the document it loaded (yaml_parser_delete,
/// yaml_document_delete), both used by one thread.
class YamlDocument {
public:
  explicit YamlDocument(std::string_view text) {
    if (!yaml_parser_initialize(&m_parser)) {
      return;
    }
    m_parser_ready = true;
    yaml_parser_set_input_string(&m_parser, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
    m_loaded = yaml_parser_load(&m_parser, &m_doc) != 0;
  }
  ~YamlDocument() {
    if (m_loaded) {
      yaml_document_delete(&m_doc);
    }
    if (m_parser_ready) {
      yaml_parser_delete(&m_parser);
    }
  }
  YamlDocument(const YamlDocument&) = delete;
  YamlDocument& operator=(const YamlDocument&) = delete;

  /// The root node; nullptr when nothing loaded (an error, or an empty stream).
  yaml_node_t* root() { return m_loaded ? yaml_document_get_root_node(&m_doc) : nullptr; }
  yaml_node_t* node(int index) { return yaml_document_get_node(&m_doc, index); }

private:
  yaml_parser_t m_parser{};
  yaml_document_t m_doc{};
  bool m_parser_ready = false;
  bool m_loaded = false;
};

constexpr int k_max_depth = 64;
constexpr size_t k_max_nodes = 100000;

std::string scalar_of(const yaml_node_t& n) {
  return std::string(reinterpret_cast<const char*>(n.data.scalar.value), n.data.scalar.length);
}

/// `n` as json; false past a bound (the caller then gives up on the whole file).
bool to_json(YamlDocument& doc, yaml_node_t* n, int depth, size_t& budget, nlohmann::json& out) {
  if (!n || depth > k_max_depth || budget == 0) {
    return false;
  }
  --budget;
  switch (n->type) {
  case YAML_SCALAR_NODE:
    out = scalar_of(*n);
    return true;
  case YAML_SEQUENCE_NODE:
    out = nlohmann::json::array();
    for (yaml_node_item_t* i = n->data.sequence.items.start; i < n->data.sequence.items.top; ++i) {
      nlohmann::json item;
      if (!to_json(doc, doc.node(*i), depth + 1, budget, item)) {
        return false;
      }
      out.push_back(std::move(item));
    }
    return true;
  case YAML_MAPPING_NODE:
    out = nlohmann::json::object();
    for (yaml_node_pair_t* p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
      yaml_node_t* key = doc.node(p->key);
      if (!key || key->type != YAML_SCALAR_NODE) {
        continue;
      }
      nlohmann::json value;
      if (!to_json(doc, doc.node(p->value), depth + 1, budget, value)) {
        return false;
      }
      out[scalar_of(*key)] = std::move(value);
    }
    return true;
  case YAML_NO_NODE:
    break;
  }
  out = nullptr;
  return true;
}

} // namespace

std::optional<nlohmann::json> parse_yaml(std::string_view text) {
  YamlDocument doc(text);
  yaml_node_t* root = doc.root();
  if (!root) {
    return std::nullopt;
  }
  nlohmann::json out;
  size_t budget = k_max_nodes;
  if (!to_json(doc, root, 0, budget, out)) {
    return std::nullopt;
  }
  return out;
}

std::optional<nlohmann::json> parse_jsonc(std::string_view text) {
  // Comments out, and a comma before a closing bracket, outside strings: then plain JSON.
  std::string plain;
  plain.reserve(text.size());
  size_t comma = std::string::npos; // where in `plain` a comma waits for what follows
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      comma = std::string::npos;
      plain += c;
      for (++i; i < text.size(); ++i) {
        plain += text[i];
        if (text[i] == '\\' && i + 1 < text.size()) {
          plain += text[++i];
        } else if (text[i] == '"') {
          break;
        }
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') {
        ++i;
      }
      plain += '\n';
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
      plain += ' ';
      continue;
    }
    if ((c == '}' || c == ']') && comma != std::string::npos) {
      plain[comma] = ' ';
    }
    if (c == ',') {
      comma = plain.size();
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      comma = std::string::npos;
    }
    plain += c;
  }
  nlohmann::json out = nlohmann::json::parse(plain, nullptr, false);
  if (out.is_discarded()) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> read_small_file(const std::string& path, size_t limit) {
  fuse::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) > limit) {
    return std::nullopt;
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return std::nullopt;
    }
    if (n == 0) {
      break;
    }
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > limit) {
      return std::nullopt;
    }
  }
  return out;
}

} // namespace ws
