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
      m_loaded.emplace(l.path, l.lang).second) {
    m_loads.push_back(std::move(l));
  }
}

void Collector::follow() {
  // Loads append loads: index, never iterators.
  for (size_t k = 0; k < m_loads.size(); ++k) {
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

namespace {

/// The configs a tool run by name reads from where it runs, and what they are. `verb` says
/// what of the config runs, for the reason ("its rules").
struct ToolConfigs {
  std::string_view tool;
  std::string_view verb;
  std::optional<Collector::Lang> lang; ///< how to follow it; none: withheld, not followed
  std::vector<std::string_view> files;
};

const std::vector<ToolConfigs>& tool_configs() {
  using Lang = Collector::Lang;
  static const std::vector<ToolConfigs> k_table{
      {"make", "its rules", Lang::Make, {"GNUmakefile", "makefile", "Makefile"}},
      {"gmake", "its rules", Lang::Make, {"GNUmakefile", "makefile", "Makefile"}},
      {"tox", "its commands", Lang::Tox, {"tox.ini"}},
      {"nox", "its sessions", Lang::Python, {"noxfile.py"}},
      // pytest imports its rootdir's conftest.py before any test.
      {"pytest", "it", Lang::Python, {"conftest.py"}},
      {"py.test", "it", Lang::Python, {"conftest.py"}},
      {"task",
       "its tasks",
       Lang::Taskfile,
       {"Taskfile.yml", "Taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml"}},
      // The scripts and tasks of pyproject.toml (poe, hatch, pdm; uv and poetry run the
      // project's entry points), and Cargo.toml's build script.
      {"poe", "its tasks", Lang::Pyproject, {"pyproject.toml"}},
      {"hatch", "its scripts", Lang::Pyproject, {"pyproject.toml"}},
      {"pdm", "its scripts", Lang::Pyproject, {"pyproject.toml"}},
      {"uv", "its scripts", Lang::Pyproject, {"pyproject.toml"}},
      {"poetry", "its scripts", Lang::Pyproject, {"pyproject.toml"}},
      {"just", "its recipes", std::nullopt, {"justfile", ".justfile", "Justfile"}},
      {"eslint",
       "it",
       Lang::Node,
       {"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts",
        "eslint.config.mts", "eslint.config.cts", ".eslintrc.js", ".eslintrc.cjs"}},
      {"prettier",
       "it",
       Lang::Node,
       {"prettier.config.js", "prettier.config.cjs", "prettier.config.mjs", "prettier.config.ts",
        ".prettierrc.js", ".prettierrc.cjs", ".prettierrc.mjs", ".prettierrc.ts"}},
      {"jest",
       "it",
       Lang::Node,
       {"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs"}},
      {"vitest",
       "it",
       Lang::Node,
       {"vitest.config.ts", "vitest.config.js", "vitest.config.mts", "vitest.config.mjs",
        "vitest.config.cts", "vitest.config.cjs", "vite.config.ts", "vite.config.js",
        "vite.config.mts", "vite.config.mjs"}},
      {"vite",
       "it",
       Lang::Node,
       {"vite.config.ts", "vite.config.js", "vite.config.mts", "vite.config.mjs"}},
      {"stylelint",
       "it",
       Lang::Node,
       {"stylelint.config.js", "stylelint.config.cjs", "stylelint.config.mjs", ".stylelintrc.js",
        ".stylelintrc.cjs"}},
      {"mocha", "it", Lang::Node, {".mocharc.js", ".mocharc.cjs"}},
      {"webpack",
       "it",
       Lang::Node,
       {"webpack.config.js", "webpack.config.ts", "webpack.config.cjs", "webpack.config.mjs"}},
      {"rollup", "it", Lang::Node, {"rollup.config.js", "rollup.config.mjs", "rollup.config.ts"}},
      {"commitlint",
       "it",
       Lang::Node,
       {"commitlint.config.js", "commitlint.config.cjs", "commitlint.config.mjs",
        "commitlint.config.ts", ".commitlintrc.js", ".commitlintrc.cjs"}},
      {"cmake", "it", std::nullopt, {"CMakeLists.txt", "CMakePresets.json"}},
      {"cargo", "it", Lang::Cargo, {"Cargo.toml", "build.rs"}},
      {"gradle",
       "it",
       std::nullopt,
       {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
        "gradle.properties"}},
      {"gradlew",
       "it",
       std::nullopt,
       {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
        "gradle.properties"}},
      {"mvn",
       "it",
       std::nullopt,
       {"pom.xml", ".mvn/extensions.xml", ".mvn/maven.config", ".mvn/jvm.config"}},
      {"mvnw",
       "it",
       std::nullopt,
       {"pom.xml", ".mvn/extensions.xml", ".mvn/maven.config", ".mvn/jvm.config"}},
  };
  return k_table;
}

} // namespace

bool Collector::runner_config(std::string_view tool, const std::string& cwd, const Runner& runner) {
  for (const ToolConfigs& t : tool_configs()) {
    if (t.tool != tool) {
      continue;
    }
    const Runner by = runner.with_detail(std::string(tool));
    for (std::string_view name : t.files) {
      const std::string path = cwd.empty() ? std::string(name) : cwd + "/" + std::string(name);
      add(path, by.reason(std::string(t.verb)));
      if (t.lang) {
        load({path, cwd, by, *t.lang, {cwd}, false, 0, *t.lang == Lang::Node});
      }
    }
    return true;
  }
  return false;
}

void Collector::follow_taskfile(const Load& l) {
  // Task runs each task's `cmds` (a command line, or `{cmd: ...}`) in the task's `dir`.
  auto doc = m_reader.yaml(m_top / l.path);
  if (!doc || !doc->is_object() || !doc->contains("tasks") || !(*doc)["tasks"].is_object()) {
    return;
  }
  const Runner runner = l.runner.with_detail("a task of " + l.path);
  for (const auto& task : (*doc)["tasks"].items()) {
    const nlohmann::json& t = task.value();
    std::string dir = l.cwd;
    std::vector<const nlohmann::json*> cmds;
    if (t.is_string()) {
      cmds.push_back(&t); // `task: echo x`: the short form
    } else if (t.is_object()) {
      if (auto d = t.find("dir"); d != t.end() && d->is_string()) {
        dir = filters::project_path_of(d->get<std::string>(), l.cwd, m_top_text).value_or(l.cwd);
      }
      for (const char* key : {"cmds", "cmd"}) {
        if (auto c = t.find(key); c != t.end()) {
          if (c->is_array()) {
            for (const nlohmann::json& e : *c) {
              cmds.push_back(&e);
            }
          } else {
            cmds.push_back(&*c);
          }
        }
      }
    }
    for (const nlohmann::json* c : cmds) {
      const nlohmann::json* line = c;
      if (c->is_object() && c->contains("cmd")) {
        line = &(*c)["cmd"];
      }
      if (line->is_string()) {
        command(line->get<std::string>(), dir, runner.with_detail(task.key()));
      }
    }
  }
}

void Collector::entry_point(const std::string& ref, const std::string& dir, const Runner& runner) {
  const std::string name = ref.substr(0, ref.find(':'));
  module(name, dir, runner);
  module(name, dir.empty() ? "src" : dir + "/src", runner);
}

void Collector::follow_pyproject(const Load& l) {
  auto doc = m_reader.toml(m_top / l.path);
  if (!doc || !doc->is_object()) {
    return;
  }
  const std::string dir = dir_of(l.path);
  const Runner runner = l.runner.with_detail("a script of " + l.path);
  // A task is a command line, a list of them, or a table: `cmd`, `shell` (command lines),
  // `script`, `call` (an entry point `pkg.mod:func`), `sequence`, `composite` (more tasks).
  std::vector<std::pair<std::string, const nlohmann::json*>> tasks;
  auto table = [&](const nlohmann::json::json_pointer& at) {
    if (doc->contains(at) && (*doc)[at].is_object()) {
      for (const auto& t : (*doc)[at].items()) {
        tasks.emplace_back(t.key(), &t.value());
      }
    }
  };
  table(nlohmann::json::json_pointer("/tool/poe/tasks"));
  table(nlohmann::json::json_pointer("/tool/pdm/scripts"));
  if (auto envs = doc->find("tool"); envs != doc->end() && envs->is_object() &&
                                     envs->contains("hatch") && (*envs)["hatch"].is_object() &&
                                     (*envs)["hatch"].contains("envs") &&
                                     (*envs)["hatch"]["envs"].is_object()) {
    for (const auto& env : (*envs)["hatch"]["envs"].items()) {
      if (env.value().is_object() && env.value().contains("scripts") &&
          env.value()["scripts"].is_object()) {
        for (const auto& t : env.value()["scripts"].items()) {
          tasks.emplace_back(t.key(), &t.value());
        }
      }
    }
  }
  for (size_t k = 0; k < tasks.size() && k < 10000; ++k) {
    const std::string name = tasks[k].first;
    const nlohmann::json& t = *tasks[k].second;
    const Runner by = runner.with_detail(name);
    if (t.is_string()) {
      command(t.get<std::string>(), dir, by);
    } else if (t.is_array()) {
      for (const nlohmann::json& e : t) {
        tasks.emplace_back(name, &e);
      }
    } else if (t.is_object()) {
      for (const char* key : {"cmd", "shell"}) {
        if (auto c = t.find(key); c != t.end() && c->is_string()) {
          command(c->get<std::string>(), dir, by);
        } else if (c != t.end() && c->is_array()) {
          std::vector<std::string> args;
          for (const nlohmann::json& a : *c) {
            args.push_back(a.is_string() ? a.get<std::string>() : std::string());
          }
          argv(args, dir, by);
        }
      }
      for (const char* key : {"script", "call"}) {
        if (auto c = t.find(key); c != t.end() && c->is_string()) {
          entry_point(c->get<std::string>(), dir, by);
        }
      }
      for (const char* key : {"sequence", "composite"}) {
        if (auto c = t.find(key); c != t.end()) {
          tasks.emplace_back(name, &*c);
        }
      }
    }
  }
  // `uv run NAME`, `poetry run NAME`: the project's entry points.
  for (const char* at : {"/project/scripts", "/tool/poetry/scripts"}) {
    const nlohmann::json::json_pointer p(at);
    if (doc->contains(p) && (*doc)[p].is_object()) {
      for (const auto& e : (*doc)[p].items()) {
        if (e.value().is_string()) {
          entry_point(e.value().get<std::string>(), dir, runner.with_detail(e.key()));
        }
      }
    }
  }
}

void Collector::follow_cargo(const Load& l) {
  // `build = "tools/gen.rs"`: cargo compiles and runs that build script instead of build.rs.
  auto doc = m_reader.toml(m_top / l.path);
  if (!doc || !doc->is_object() || !doc->contains("package") || !(*doc)["package"].is_object()) {
    return;
  }
  const nlohmann::json& package = (*doc)["package"];
  if (auto b = package.find("build"); b != package.end() && b->is_string()) {
    if (auto p = filters::project_path_of(b->get<std::string>(), dir_of(l.path), m_top_text)) {
      add(*p, l.runner.with_detail("the build script of " + l.path).reason());
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
