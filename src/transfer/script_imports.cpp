// What a script loads as it runs, read from its text (script_imports.hpp).
#include "src/transfer/script_imports.hpp"

#include "filters/command_words.hpp"
#include "filters/text_lines.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace ws {

namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && blank(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && blank(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

/// `s` split at `sep`, each part trimmed, empty parts left out.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    size_t at = s.find(sep);
    std::string_view part = trimmed(s.substr(0, at));
    if (!part.empty()) {
      out.push_back(part);
    }
    s = at == std::string_view::npos ? std::string_view() : s.substr(at + 1);
  }
  return out;
}

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

/// A dotted name (`a.b.c`), or empty when `s` is not one.
std::string dotted(std::string_view s) {
  if (s.empty()) {
    return {};
  }
  for (char c : s) {
    if (!identifier_char(c) && c != '.') {
      return {};
    }
  }
  return std::string(s);
}

/// The name before ` as alias`.
std::string_view unaliased(std::string_view s) {
  size_t as = s.find(" as ");
  return trimmed(as == std::string_view::npos ? s : s.substr(0, as));
}

/// Python's logical lines, roughly: a line continued by a backslash or by an open bracket is
/// one, comments taken off (a `#` outside quotes), `;` separating statements.
std::vector<std::string> python_statements(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\' && i + 1 < text.size()) {
        cur += c;
        cur += text[++i];
        continue;
      }
      if (c == quote || c == '\n') {
        quote = 0;
      }
      cur += c;
      continue;
    }
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      cur += ' ';
      continue;
    }
    if ((c == '\n' && depth == 0) || c == ';') {
      out.push_back(std::move(cur));
      cur.clear();
      if (c == '\n') {
        depth = 0;
      }
      continue;
    }
    cur += c == '\n' ? ' ' : c;
  }
  out.push_back(std::move(cur));
  return out;
}

/// The dotted names given as string literals to `call(` in `s`: `import_module("a.b")`.
void literal_modules(std::string_view s, std::string_view call, std::vector<PythonImport>& out) {
  for (size_t at = s.find(call); at != std::string_view::npos; at = s.find(call, at + 1)) {
    size_t i = at + call.size();
    while (i < s.size() && blank(s[i])) {
      ++i;
    }
    if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) {
      continue;
    }
    size_t end = s.find(s[i], i + 1);
    if (end == std::string_view::npos) {
      continue;
    }
    if (std::string name = dotted(s.substr(i + 1, end - i - 1)); !name.empty()) {
      out.push_back({0, name, {}});
    }
  }
}

/// Every quoted dotted name in `s`: `["a.b", 'c']`.
void quoted_modules(std::string_view s, std::vector<PythonImport>& out) {
  for (size_t i = s.find_first_of("\"'"); i != std::string_view::npos;
       i = s.find_first_of("\"'", i + 1)) {
    const size_t end = s.find(s[i], i + 1);
    if (end == std::string_view::npos) {
      return;
    }
    if (std::string name = dotted(s.substr(i + 1, end - i - 1)); !name.empty()) {
      out.push_back({0, name, {}});
    }
    i = end;
  }
}

void add_module_files(const std::string& base, std::string_view module,
                      const std::vector<std::string>& names, std::vector<std::string>& out) {
  std::string p = base;
  for (std::string_view part : split(module, '.')) {
    p += (p.empty() ? "" : "/") + std::string(part);
    out.push_back(p + "/__init__.py");
    out.push_back(p + ".py");
  }
  for (const std::string& name : names) {
    if (name != "*") {
      const std::string sub = (p.empty() ? "" : p + "/") + name;
      out.push_back(sub + ".py");
      out.push_back(sub + "/__init__.py");
    }
  }
}

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

} // namespace

std::vector<PythonImport> python_imports(std::string_view text) {
  std::vector<PythonImport> out;
  // The logical lines, and the physical ones too: a bracket left open in a docstring must not
  // hide the imports after it.
  std::vector<std::string> statements = python_statements(text);
  filters::for_each_line(text, [&](std::string_view line) {
    line = trimmed(line);
    if (line.starts_with("import") || line.starts_with("from")) {
      statements.emplace_back(line);
    }
  });
  for (const std::string& statement : statements) {
    std::string_view s = trimmed(statement);
    literal_modules(s, "import_module(", out);
    literal_modules(s, "__import__(", out);
    // A conftest.py's `pytest_plugins = ["tools.fixtures"]`: pytest imports each.
    if (s.starts_with("pytest_plugins") && s.find('=') != std::string_view::npos) {
      quoted_modules(s.substr(s.find('=') + 1), out);
    }
    if (s.starts_with("import ") || s.starts_with("import\t")) {
      for (std::string_view part : split(s.substr(7), ',')) {
        if (std::string name = dotted(unaliased(part)); !name.empty()) {
          out.push_back({0, name, {}});
        }
      }
      continue;
    }
    if (!s.starts_with("from ") && !s.starts_with("from\t")) {
      continue;
    }
    s = trimmed(s.substr(5));
    size_t import_at = s.find(" import");
    if (import_at == std::string_view::npos) {
      continue;
    }
    std::string_view from = trimmed(s.substr(0, import_at));
    PythonImport imp;
    while (!from.empty() && from.front() == '.') {
      ++imp.level;
      from.remove_prefix(1);
    }
    imp.module = dotted(from);
    if (imp.module.empty() && !from.empty()) {
      continue;
    }
    std::string_view names = s.substr(import_at + 7);
    for (std::string_view part : split(names, ',')) {
      while (!part.empty() && (part.front() == '(' || blank(part.front()))) {
        part.remove_prefix(1);
      }
      while (!part.empty() && (part.back() == ')' || blank(part.back()))) {
        part.remove_suffix(1);
      }
      std::string_view name = unaliased(part);
      if (name == "*" || !dotted(name).empty()) {
        imp.names.emplace_back(name);
      }
    }
    out.push_back(std::move(imp));
  }
  return out;
}

std::vector<std::string> python_import_files(const PythonImport& import, const std::string& file,
                                             const std::vector<std::string>& roots) {
  std::vector<std::string> out;
  if (import.level > 0) {
    std::string base = parent_of(file);
    for (int up = 1; up < import.level; ++up) {
      if (base.empty()) {
        return out; // above the top: not the project's
      }
      base = parent_of(base);
    }
    if (import.module.empty()) {
      out.push_back((base.empty() ? "" : base + "/") + "__init__.py");
    }
    add_module_files(base, import.module, import.names, out);
    return out;
  }
  for (const std::string& root : roots) {
    add_module_files(root, import.module, import.names, out);
  }
  return out;
}

std::vector<std::string> node_specifiers(std::string_view text, bool all_strings) {
  std::vector<std::string> out;
  if (all_strings) {
    for (size_t i = 0; i < text.size(); ++i) {
      const char q = text[i];
      if (q != '"' && q != '\'' && q != '`') {
        continue;
      }
      const size_t end = text.find(q, i + 1);
      if (end == std::string_view::npos) {
        break;
      }
      std::string spec(text.substr(i + 1, end - i - 1));
      i = end;
      if (spec.starts_with("<rootDir>/")) {
        spec.replace(0, 10, "./");
      }
      if ((spec.starts_with("./") || spec.starts_with("../")) && spec.size() < 4096 &&
          spec.find('\n') == std::string::npos) {
        out.push_back(std::move(spec));
      }
    }
  }
  for (std::string_view keyword : {"require", "import", "from"}) {
    for (size_t at = text.find(keyword); at != std::string_view::npos;
         at = text.find(keyword, at + 1)) {
      if ((at > 0 &&
           (identifier_char(text[at - 1]) || text[at - 1] == '.' || text[at - 1] == '$')) ||
          (at + keyword.size() < text.size() && identifier_char(text[at + keyword.size()]))) {
        continue;
      }
      size_t i = at + keyword.size();
      while (i < text.size() &&
             (std::isspace(static_cast<unsigned char>(text[i])) != 0 || text[i] == '(')) {
        ++i;
      }
      if (i >= text.size() || (text[i] != '"' && text[i] != '\'' && text[i] != '`')) {
        continue;
      }
      size_t end = text.find(text[i], i + 1);
      if (end == std::string_view::npos || end - i > 4096) {
        continue;
      }
      std::string_view spec = text.substr(i + 1, end - i - 1);
      if (spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..") {
        out.emplace_back(spec);
      }
    }
  }
  return out;
}

std::vector<std::string> node_files(const std::string& specifier, const std::string& dir) {
  std::vector<std::string> out;
  auto p = filters::project_path_of(specifier, dir, "");
  if (!p) {
    return out;
  }
  out.push_back(*p);
  for (const char* more :
       {".js", ".cjs", ".mjs", ".ts", ".mts", ".cts", ".json", "/index.js", "/index.cjs",
        "/index.mjs", "/index.ts", "/index.json", "/package.json"}) {
    out.push_back(*p + more);
  }
  return out;
}

MakefileParts makefile_parts(std::string_view text) {
  MakefileParts out;
  // Logical lines: a backslash at the end continues one.
  std::vector<std::string> lines;
  std::string cur;
  filters::for_each_line(text, [&](std::string_view line) {
    if (line.ends_with('\\')) {
      cur.append(line.substr(0, line.size() - 1)).push_back(' ');
      return;
    }
    lines.push_back(std::move(cur.append(line)));
    cur.clear();
  });
  if (!cur.empty()) {
    lines.push_back(std::move(cur));
  }
  for (const std::string& line : lines) {
    if (line.starts_with('\t')) {
      std::string_view r = trimmed(std::string_view(line).substr(1));
      while (!r.empty() && (r.front() == '@' || r.front() == '-' || r.front() == '+')) {
        r = trimmed(r.substr(1));
      }
      if (!r.empty()) {
        out.recipes.emplace_back(r);
      }
      continue;
    }
    std::string_view s = trimmed(line);
    s = trimmed(s.substr(0, s.find('#')));
    for (std::string_view directive : {"include", "-include", "sinclude"}) {
      if (s.starts_with(directive) && s.size() > directive.size() && blank(s[directive.size()])) {
        for (std::string_view word : split(s.substr(directive.size()), ' ')) {
          if (word.find_first_of("$()*?[\t") == std::string_view::npos) {
            out.includes.emplace_back(word);
          }
        }
      }
    }
  }
  return out;
}

std::vector<std::string> ini_values(std::string_view text, bool (*section_wanted)(std::string_view),
                                    const std::vector<std::string_view>& keys) {
  std::vector<std::string> out;
  bool in_section = false;
  bool in_key = false;
  std::string pending; // a value line continued with a backslash
  filters::for_each_line(text, [&](std::string_view raw) {
    // Trimmed: a value's continuation is told by the key it follows, not its indent.
    raw = trimmed(raw);
    if (raw.empty()) {
      return;
    }
    if (raw.starts_with('[')) {
      in_section = section_wanted(trimmed(raw.substr(1, raw.find(']') - 1)));
      in_key = false;
      return;
    }
    if (!in_section || raw.starts_with('#') || raw.starts_with(';')) {
      return;
    }
    std::string_view value = raw;
    const size_t eq = raw.find('=');
    if (eq != std::string_view::npos && pending.empty()) {
      const std::string_view key = trimmed(raw.substr(0, eq));
      if (dotted(key) == key && key.find('.') == std::string_view::npos) {
        in_key = std::find(keys.begin(), keys.end(), key) != keys.end();
        value = trimmed(raw.substr(eq + 1));
      }
    }
    if (!in_key || value.empty()) {
      return;
    }
    if (value.back() == '\\') {
      pending += std::string(value.substr(0, value.size() - 1)) + " ";
      return;
    }
    out.push_back(pending + std::string(value));
    pending.clear();
  });
  return out;
}

std::vector<std::string> pytest_plugin_modules(std::string_view addopts) {
  std::vector<std::string> out;
  std::vector<filters::CommandWord> words;
  filters::command_words(addopts, words);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words[i].text;
    std::string_view name;
    if (w == "-p" && i + 1 < words.size()) {
      name = words[++i].text;
    } else if (w.starts_with("-p") && w.size() > 2 && w[2] != '-') {
      name = w.substr(2);
    }
    if (!name.empty() && !name.starts_with("no:") && !dotted(name).empty()) {
      out.emplace_back(name);
    }
  }
  return out;
}

std::vector<std::string> tox_commands(std::string_view text, std::string_view top) {
  std::vector<std::string> out;
  auto testenv = [](std::string_view section) {
    return section == "testenv" || section.starts_with("testenv:");
  };
  for (std::string line :
       ini_values(text, testenv, {"commands", "commands_pre", "commands_post"})) {
    for (std::string_view root : {"{toxinidir}", "{tox_root}"}) {
      for (size_t at = line.find(root); at != std::string::npos; at = line.find(root, at)) {
        line.replace(at, root.size(), top);
        at += top.size();
      }
    }
    // `{posargs}`, `{envpython}`...: what tox fills in is no file of the project.
    for (size_t at = line.find('{'); at != std::string::npos; at = line.find('{', at)) {
      const size_t end = line.find('}', at);
      if (end == std::string::npos) {
        break;
      }
      line.erase(at, end - at + 1);
    }
    if (line.starts_with('-')) {
      line.erase(0, 1); // tox's "ignore the exit status" marker
    }
    out.push_back(std::move(line));
  }
  return out;
}

std::string with_script_dir(std::string text, std::string_view dir) {
  // The script's directory as the idioms write it, the nested forms first.
  static constexpr std::array<std::string_view, 12> k_dirname{"$(dirname \"$0\")",
                                                              "$(dirname $0)",
                                                              "$(dirname -- \"$0\")",
                                                              "$(dirname -- $0)",
                                                              "`dirname \"$0\"`",
                                                              "`dirname $0`",
                                                              "${0%/*}",
                                                              "$(dirname \"${BASH_SOURCE[0]}\")",
                                                              "$(dirname \"$BASH_SOURCE\")",
                                                              "$(dirname -- \"${BASH_SOURCE[0]}\")",
                                                              "$(dirname ${BASH_SOURCE[0]})",
                                                              "$(dirname $BASH_SOURCE)"};
  auto replace_all = [&](std::string_view from, std::string_view to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  };
  for (std::string_view idiom : k_dirname) {
    replace_all(idiom, dir);
  }
  const std::string d(dir);
  for (const std::string& cd :
       {"$(cd \"" + d + "\" && pwd)", "$(cd " + d + " && pwd)", "$(cd -- \"" + d + "\" && pwd)",
        "$(cd \"" + d + "\" && pwd -P)", "$(cd \"" + d + "\"; pwd)"}) {
    replace_all(cd, dir);
  }
  // NAME=DIR (or "DIR"), then $NAME and ${NAME}: the usual `here=$(dirname "$0")`.
  std::vector<std::string> names;
  filters::for_each_line(text, [&](std::string_view line) {
    line = trimmed(line);
    if (line.starts_with("export ")) {
      line = trimmed(line.substr(7));
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return;
    }
    std::string_view name = line.substr(0, eq);
    std::string_view value = line.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    bool ident = true;
    for (char c : name) {
      ident = ident && (identifier_char(c) && static_cast<unsigned char>(c) < 0x80);
    }
    if (ident && value == dir) {
      names.emplace_back(name);
    }
  });
  for (const std::string& name : names) {
    replace_all("${" + name + "}", dir);
    replace_all("$" + name + "/", d + "/");
  }
  return text;
}

} // namespace ws
