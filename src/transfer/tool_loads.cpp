// What the tools a command runs by name load by themselves (config_commands.hpp): make its
// Makefile, pytest its configs and every conftest.py (and what each conftest.py the real
// index tracks imports), poe, pdm, hatch, uv and poetry the tasks of pyproject.toml, eslint
// or jest their JavaScript configs; cargo's are in cargo_loads.cpp. TOML is read with toml++
// (config_toml.cpp), YAML with libyaml.
#include "src/transfer/config_commands.hpp"
#include "src/transfer/config_text.hpp"
#include "src/transfer/script_imports.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

namespace {

/// Files named by their name at most, whatever the real tree holds.
constexpr size_t k_max_by_name = 4000;

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

} // namespace

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
  if (tool == "pytest" || tool == "py.test") {
    pytest(cwd, runner.with_detail(std::string(tool)));
    return true;
  }
  for (const ToolConfigs& t : tool_configs()) {
    if (t.tool != tool) {
      continue;
    }
    const Runner by = runner.with_detail(std::string(tool));
    for (std::string_view name : t.files) {
      const std::string path = cwd.empty() ? std::string(name) : cwd + "/" + std::string(name);
      add(path, by.reason(std::string(t.verb)));
      if (t.lang) {
        load({path, cwd, by, *t.lang, {cwd}, false, 0, *t.lang == Lang::Node, std::string(tool)});
      }
    }
    return true;
  }
  return false;
}

void Collector::pytest(const std::string& cwd, const Runner& by) {
  auto at = [&](std::string_view name) {
    return cwd.empty() ? std::string(name) : cwd + "/" + std::string(name);
  };
  // pytest obeys the first of these it finds where it runs (`addopts = -p tools.plugin`
  // imports the plugin before any test); the agent can add the section to any of them.
  for (const char* name : {"pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"}) {
    add(at(name), by.reason("its addopts"));
    load({at(name), cwd, by, Lang::PytestConfig});
  }
  // It imports every conftest.py on its way: the rootdir's, which may lie above where it
  // runs, and one in each directory it collects tests from, new ones too.
  add_by_name("", "conftest.py", by.with_detail("every conftest.py").reason());
  // And every plugin a package's metadata names (`[pytest11]` in a `*.dist-info` or
  // `*.egg-info` found on sys.path, which holds where it runs and each conftest.py's
  // directory): only that file names one, and no other tool reads a file so named.
  add_by_name("", "entry_points.txt",
              by.with_detail("the plugins entry_points.txt names").reason());
  // What the usual ones import runs with them; pytest's default import mode (`prepend`) puts
  // the conftest.py's directory first on sys.path.
  for (const char* name :
       {"conftest.py", "tests/conftest.py", "test/conftest.py", "testing/conftest.py"}) {
    const std::string path = at(name);
    add(path, by.reason());
    load({path, cwd, by, Lang::Python, {dir_of(path), cwd}});
  }
  tracked_conftests(cwd, by);
}

void Collector::tracked_conftests(const std::string& cwd, const Runner& by) {
  if (!m_tracked_named) {
    return;
  }
  // Every other conftest.py the person has (the real index's, read in one pass; the real
  // tree is not walked), and what each imports: pytest imports the conftest.py of every
  // directory it collects. In `prepend` mode the directory put first on sys.path is the
  // first one upwards without an __init__.py (the conftest.py's own one when it has none),
  // and the module is imported as a package below it; where pytest runs is on sys.path too
  // (`python3 -m pytest`).
  for (const std::string& path : m_tracked_named("conftest.py")) {
    std::string base = dir_of(path);
    for (int up = 0; !base.empty() && up < 64; ++up) {
      if (!m_reader.text(m_top / base / "__init__.py")) {
        break;
      }
      base = dir_of(base);
    }
    std::vector<std::string> roots{dir_of(path)};
    for (const std::string& root : {base, cwd}) {
      if (std::find(roots.begin(), roots.end(), root) == roots.end()) {
        roots.push_back(root);
      }
    }
    load({path, cwd, by, Lang::Python, std::move(roots)});
  }
}

void Collector::follow_pytest_config(const Load& l, const std::string& text) {
  std::vector<std::string> addopts;
  std::vector<std::string> pythonpath;
  if (l.path.ends_with(".toml")) {
    // [tool.pytest.ini_options]: a string, or a list of strings.
    auto doc = parse_toml(text);
    const nlohmann::json::json_pointer at("/tool/pytest/ini_options");
    if (!doc || !doc->contains(at) || !(*doc)[at].is_object()) {
      return;
    }
    const nlohmann::json& options = (*doc)[at];
    auto strings = [&](const char* key, std::vector<std::string>& out) {
      if (auto v = options.find(key); v != options.end() && v->is_string()) {
        out.push_back(v->get<std::string>());
      } else if (v != options.end() && v->is_array()) {
        for (const nlohmann::json& e : *v) {
          if (e.is_string()) {
            out.push_back(e.get<std::string>());
          }
        }
      }
    };
    strings("addopts", addopts);
    strings("pythonpath", pythonpath);
  } else {
    auto section = l.path.ends_with("setup.cfg")
                       ? +[](std::string_view s) { return s == "tool:pytest"; }
                       : +[](std::string_view s) { return s == "pytest"; };
    addopts = ini_values(text, section, {"addopts"});
    pythonpath = ini_values(text, section, {"pythonpath"});
  }
  // `-p NAME` imports NAME from sys.path: where pytest runs (`python -m pytest`), and the
  // directories `pythonpath` adds (relative to the config's).
  std::vector<std::string> roots{l.cwd};
  std::vector<filters::CommandWord> words;
  for (const std::string& value : pythonpath) {
    filters::command_words(value, words);
  }
  for (const filters::CommandWord& w : words) {
    if (auto p = filters::project_path_of(w.text, dir_of(l.path), m_top_text)) {
      roots.push_back(*p);
    }
  }
  const Runner runner = l.runner.with_detail("a plugin in " + l.path);
  std::string all;
  for (const std::string& value : addopts) {
    all += value + " ";
  }
  // A list's items may be `-p` and the name apart: read them as one line.
  for (const std::string& name : pytest_plugin_modules(all)) {
    for (const std::string& root : roots) {
      module(name, root, runner);
    }
  }
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
  // Only the tasks of the tool that runs (any, for no tool named).
  auto runs = [&](std::string_view tool) { return l.tool.empty() || l.tool == tool; };
  if (runs("poe")) {
    table(nlohmann::json::json_pointer("/tool/poe/tasks"));
  }
  if (runs("pdm")) {
    table(nlohmann::json::json_pointer("/tool/pdm/scripts"));
  }
  if (auto envs = doc->find("tool"); runs("hatch") && envs != doc->end() && envs->is_object() &&
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
  // `uv run NAME`, `poetry run NAME`, `pdm run NAME`, `hatch run NAME`: the project's entry
  // points, installed into the environment they run in.
  for (const char* at : {"/project/scripts", "/tool/poetry/scripts"}) {
    const nlohmann::json::json_pointer p(at);
    const bool poetry_only = std::string_view(at) == "/tool/poetry/scripts";
    if (l.tool == "poe" || (poetry_only && !runs("poetry"))) {
      continue; // poe runs its own tasks only
    }
    if (doc->contains(p) && (*doc)[p].is_object()) {
      for (const auto& e : (*doc)[p].items()) {
        if (e.value().is_string()) {
          entry_point(e.value().get<std::string>(), dir, runner.with_detail(e.key()));
        }
      }
    }
  }
}

void Collector::add_by_name(const std::string& dir, const std::string& name, std::string reason) {
  const bool known = std::any_of(m_by_name.begin(), m_by_name.end(),
                                 [&](const auto& u) { return u.dir == dir && u.name == name; });
  if (!known && m_by_name.size() < k_max_by_name) {
    m_by_name.push_back({dir, name, std::move(reason)});
  }
}

} // namespace ws
