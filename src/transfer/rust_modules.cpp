// What a Rust source file compiles in (rust_modules.hpp).
#include "src/transfer/rust_modules.hpp"

#include "filters/command_words.hpp"

#include <cctype>
#include <optional>

namespace ws {

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// Reads Rust text token by token, skipping comments, strings and character literals.
class Scanner {
public:
  explicit Scanner(std::string_view text) : m_t(text) {}

  bool done() const { return m_i >= m_t.size(); }
  char peek() const { return done() ? '\0' : m_t[m_i]; }

  /// Past whitespace and comments (`//` to the end of the line, `/* */` nested).
  void skip_space() {
    while (!done()) {
      if (std::isspace(static_cast<unsigned char>(m_t[m_i])) != 0) {
        ++m_i;
      } else if (m_t.substr(m_i, 2) == "//") {
        const size_t eol = m_t.find('\n', m_i);
        m_i = eol == std::string_view::npos ? m_t.size() : eol + 1;
      } else if (m_t.substr(m_i, 2) == "/*") {
        int depth = 0;
        while (!done()) {
          if (m_t.substr(m_i, 2) == "/*") {
            ++depth;
            m_i += 2;
          } else if (m_t.substr(m_i, 2) == "*/") {
            m_i += 2;
            if (--depth == 0) {
              break;
            }
          } else {
            ++m_i;
          }
        }
      } else {
        return;
      }
    }
  }

  /// An identifier here (`r#type` as `type`), or empty.
  std::string_view ident() {
    if (m_t.substr(m_i, 2) == "r#" && m_i + 2 < m_t.size() && ident_char(m_t[m_i + 2])) {
      m_i += 2;
    }
    const size_t start = m_i;
    if (done() || std::isdigit(static_cast<unsigned char>(m_t[m_i])) != 0) {
      return {};
    }
    while (!done() && ident_char(m_t[m_i])) {
      ++m_i;
    }
    return m_t.substr(start, m_i - start);
  }

  /// A string literal here (`"..."`, `r"..."`, `r#"..."#`), its text with simple escapes
  /// taken; nullopt when none starts here (nothing consumed then).
  std::optional<std::string> string_literal() {
    size_t i = m_i;
    size_t hashes = 0;
    const bool raw =
        m_t.substr(i, 1) == "r" && i + 1 < m_t.size() && (m_t[i + 1] == '"' || m_t[i + 1] == '#');
    if (raw) {
      ++i;
      while (i < m_t.size() && m_t[i] == '#') {
        ++hashes;
        ++i;
      }
    }
    if (i >= m_t.size() || m_t[i] != '"') {
      return std::nullopt;
    }
    ++i;
    std::string out;
    while (i < m_t.size()) {
      const char c = m_t[i];
      if (raw && c == '"' && m_t.substr(i + 1, hashes) == std::string(hashes, '#')) {
        m_i = i + 1 + hashes;
        return out;
      }
      if (!raw && c == '"') {
        m_i = i + 1;
        return out;
      }
      if (!raw && c == '\\' && i + 1 < m_t.size()) {
        out += m_t[i + 1];
        i += 2;
        continue;
      }
      out += c;
      ++i;
    }
    m_i = m_t.size();
    return out;
  }

  /// Past one character, or a character literal (`'"'`, `'\''`) as a whole.
  void skip_one() {
    if (m_t[m_i] == '\'' && m_t.substr(m_i + 1, 1) == "\\") {
      const size_t end = m_t.find('\'', m_i + 3);
      m_i = end == std::string_view::npos ? m_t.size() : end + 1;
    } else if (m_t[m_i] == '\'' && m_i + 2 < m_t.size() && m_t[m_i + 2] == '\'') {
      m_i += 3;
    } else {
      ++m_i;
    }
  }

  void next() { ++m_i; }

private:
  std::string_view m_t;
  size_t m_i = 0;
};

/// The inside of an attribute, from after `#[` to its `]` (which is consumed): the string of
/// `path = "..."`, else nullopt.
std::optional<std::string> attribute(Scanner& s) {
  std::optional<std::string> path;
  s.skip_space();
  const bool is_path = s.ident() == "path";
  s.skip_space();
  if (is_path && s.peek() == '=') {
    s.next();
    s.skip_space();
    path = s.string_literal();
  }
  for (int depth = 1; !s.done();) {
    s.skip_space();
    if (s.string_literal()) {
      continue;
    }
    if (s.done()) {
      break;
    }
    const char c = s.peek();
    s.skip_one();
    if (c == '[') {
      ++depth;
    } else if (c == ']' && --depth == 0) {
      break;
    }
  }
  return path;
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

} // namespace

RustFileRefs rust_file_refs(std::string_view text) {
  RustFileRefs out;
  Scanner s(text);
  std::optional<std::string> pending_path; // a `#[path]` waiting for its item
  while (true) {
    s.skip_space();
    if (s.done()) {
      break;
    }
    if (s.string_literal()) {
      continue;
    }
    if (s.peek() == '#') {
      s.next();
      if (s.peek() == '!') {
        s.next();
      }
      if (s.peek() == '[') {
        s.next();
        if (auto p = attribute(s)) {
          pending_path = std::move(p);
        }
      }
      continue;
    }
    const std::string_view word = s.ident();
    if (word.empty()) {
      const char c = s.peek();
      if (c == ';' || c == '{' || c == '}') {
        pending_path.reset(); // the attribute belonged to another item
      }
      s.skip_one();
      continue;
    }
    if (word == "mod") {
      s.skip_space();
      const std::string name(s.ident());
      s.skip_space();
      if (!name.empty() && s.peek() == ';') {
        s.next();
        out.mods.push_back({name, pending_path.value_or("")});
      }
      pending_path.reset();
      continue;
    }
    if (word == "include") {
      s.skip_space();
      if (s.peek() != '!') {
        continue;
      }
      s.next();
      s.skip_space();
      if (s.peek() != '(' && s.peek() != '[' && s.peek() != '{') {
        continue;
      }
      s.next();
      s.skip_space();
      if (auto literal = s.string_literal()) {
        s.skip_space();
        if (s.peek() == ')' || s.peek() == ']' || s.peek() == '}' || s.peek() == ',') {
          out.includes.push_back(std::move(*literal));
        }
      }
    }
  }
  return out;
}

std::string rust_module_dir(const std::string& file, bool module_root) {
  const std::string dir = dir_of(file);
  const std::string base = file.substr(dir.empty() ? 0 : dir.size() + 1);
  if (module_root || base == "mod.rs") {
    return dir;
  }
  const std::string stem = base.ends_with(".rs") ? base.substr(0, base.size() - 3) : base;
  return dir.empty() ? stem : dir + "/" + stem;
}

std::vector<std::string> rust_mod_files(const RustMod& m, const std::string& file_dir,
                                        const std::string& module_dir) {
  if (!m.path.empty()) {
    if (auto p = filters::project_path_of(m.path, file_dir, "")) {
      return {*p};
    }
    return {};
  }
  const std::string prefix = module_dir.empty() ? std::string() : module_dir + "/";
  return {prefix + m.name + ".rs", prefix + m.name + "/mod.rs"};
}

} // namespace ws
