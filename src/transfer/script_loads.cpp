// What the scripts the person's configs name load in turn (config_commands.hpp): a hook runs
// `python3 tools/check.py`, and `tools/helpers.py`, which check.py imports, runs with it.
// Each named script is read from the real tree (the person's version is what runs; the
// agent's version of it is withheld by name) and parsed for what it loads
// (script_imports.hpp); what it names is withheld with the same runner, and followed again.
#include "src/transfer/config_commands.hpp"
#include "src/transfer/script_imports.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

namespace {

/// Files followed per command at most, and how many loads deep: bounds the work whatever the
/// real tree holds.
constexpr size_t k_max_loads = 4000;
constexpr int k_max_depth = 8;

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

/// The directory `dir` (repository-relative) as an absolute path, with no trailing '/'.
std::string absolute_dir(const std::filesystem::path& top, const std::string& dir) {
  std::string out = (top / dir).lexically_normal().string();
  while (out.size() > 1 && out.ends_with('/')) {
    out.pop_back();
  }
  return out;
}

std::string_view base_of(std::string_view word) {
  const size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

/// How a file run as a command runs: by its name, else by its `#!` line.
std::optional<Collector::Lang> lang_of_executable(const std::string& path, std::string_view text) {
  using Lang = Collector::Lang;
  const std::string_view name = base_of(path);
  if (name.ends_with(".py")) {
    return Lang::Python;
  }
  for (std::string_view ext : {".js", ".cjs", ".mjs", ".ts", ".mts", ".cts"}) {
    if (name.ends_with(ext)) {
      return Lang::Node;
    }
  }
  if (name.ends_with(".sh") || name.ends_with(".bash")) {
    return Lang::Shell;
  }
  if (!text.starts_with("#!")) {
    return std::nullopt;
  }
  std::string_view line = text.substr(2, text.find('\n') - 2);
  // `#!/usr/bin/env -S python3 -u`: the interpreter is the first word not env or an option.
  std::string_view interpreter;
  while (!line.empty()) {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      line.remove_prefix(1);
    }
    std::string_view word = line.substr(0, line.find_first_of(" \t"));
    line.remove_prefix(word.size());
    word = base_of(word);
    if (!word.empty() && word != "env" && !word.starts_with('-')) {
      interpreter = word;
      break;
    }
  }
  if (interpreter.starts_with("python")) {
    return Lang::Python;
  }
  if (interpreter.starts_with("node") || interpreter == "bun" || interpreter == "tsx" ||
      interpreter == "ts-node") {
    return Lang::Node;
  }
  for (std::string_view sh : {"sh", "bash", "dash", "zsh", "ksh"}) {
    if (interpreter == sh) {
      return Lang::Shell;
    }
  }
  if (interpreter == "make") {
    return Lang::Make;
  }
  return std::nullopt;
}

} // namespace

std::vector<filters::ScriptUse> Collector::take() {
  follow();
  // Sorted for the policy's lookup (PolicyConfig::run_by_configs); one per path already.
  std::sort(
      m_out.begin(), m_out.end(),
      [](const filters::ScriptUse& a, const filters::ScriptUse& b) { return a.path < b.path; });
  return std::move(m_out);
}

void Collector::load(Load l) {
  if (l.depth <= k_max_depth && m_loads.size() < k_max_loads &&
      m_loaded.emplace(l.path, l.lang, l.tool).second) {
    m_loads.push_back(std::move(l));
  }
}

void Collector::follow() {
  // Loads append loads: index, never iterators. The later ones when all others are done.
  for (size_t k = 0;; ++k) {
    if (k == m_loads.size()) {
      for (Load& later : m_later) {
        load(std::move(later));
      }
      m_later.clear();
      if (k == m_loads.size()) {
        break;
      }
    }
    Load l = m_loads[k];
    auto text = m_reader.text(m_top / l.path);
    if (!text || text->find('\0') != std::string::npos) {
      continue; // absent, too large, or a program: nothing of the project named in words
    }
    if (l.lang == Lang::Exec) {
      auto lang = lang_of_executable(l.path, *text);
      if (!lang) {
        continue;
      }
      l.lang = *lang;
      l.roots = {dir_of(l.path), l.cwd};
    }
    switch (l.lang) {
    case Lang::Python:
      follow_python(l, *text);
      break;
    case Lang::Node:
      follow_node(l, *text);
      break;
    case Lang::Make:
      follow_make(l, *text);
      break;
    case Lang::Taskfile:
      follow_taskfile(l);
      break;
    case Lang::Pyproject:
      follow_pyproject(l);
      break;
    case Lang::Cargo:
      follow_cargo(l);
      break;
    case Lang::Rust:
      follow_rust(l, *text);
      break;
    case Lang::PytestConfig:
      follow_pytest_config(l, *text);
      break;
    case Lang::Tox: {
      const Runner runner = l.runner.with_detail("a command of " + l.path);
      for (const std::string& line : tox_commands(*text, absolute_dir(m_top, dir_of(l.path)))) {
        command(line, dir_of(l.path), runner);
      }
      break;
    }
    case Lang::Shell: {
      // What it runs, as its own command lines; `$(dirname "$0")` is its directory.
      const std::string lines =
          with_script_dir(without_shell_comments(*text), absolute_dir(m_top, dir_of(l.path)));
      command(lines, l.cwd, l.runner.with_detail("run by " + l.path));
      break;
    }
    case Lang::Exec:
      break;
    }
  }
}

void Collector::follow_python(const Load& l, const std::string& text) {
  const Runner runner = l.runner.with_detail(l.imported ? l.path : "imported by " + l.path);
  const std::string reason = runner.reason();
  for (const PythonImport& import : python_imports(text)) {
    for (const std::string& file : python_import_files(import, l.path, l.roots)) {
      add(file, reason);
      load({file, l.cwd, runner, Lang::Python, l.roots, true, l.depth + 1});
    }
  }
}

void Collector::follow_node(const Load& l, const std::string& text) {
  const Runner runner = l.runner.with_detail(l.imported ? l.path : "imported by " + l.path);
  const std::string reason = runner.reason();
  for (const std::string& spec : node_specifiers(text, l.tool_config)) {
    for (const std::string& file : node_files(spec, dir_of(l.path))) {
      add(file, reason);
      load({file, l.cwd, runner, Lang::Node, {}, true, l.depth + 1});
    }
  }
}

void Collector::follow_make(const Load& l, const std::string& text) {
  // make reads an include relative to where it runs, and obeys it as its own text.
  const MakefileParts parts = makefile_parts(text);
  const Runner included = l.runner.with_detail("included by " + l.path);
  for (const std::string& word : parts.includes) {
    if (auto p = filters::project_path_of(word, l.cwd, m_top_text)) {
      add(*p, included.reason());
      load({*p, l.cwd, l.runner, Lang::Make, {}, false, l.depth + 1});
    }
  }
  const Runner rule = l.runner.with_detail("a rule of " + l.path);
  for (const std::string& recipe : parts.recipes) {
    command(recipe, l.cwd, rule);
  }
}

} // namespace ws
