// Command lines of the person's configs into the project files they name
// (config_commands.hpp).
#include "src/transfer/config_commands.hpp"

#include "filters/text_lines.hpp"
#include "src/transfer/config_text.hpp"

#include <algorithm>
#include <array>

namespace ws {

namespace fs = std::filesystem;
using nlohmann::json;

/// When git runs the hook `name`: "on every git commit".
std::string when_hook_runs(std::string_view name) {
  if (name == "pre-commit" || name == "prepare-commit-msg" || name == "commit-msg" ||
      name == "post-commit" || name == "commit") {
    return "on every git commit";
  }
  if (name == "pre-push" || name == "push") {
    return "on every git push";
  }
  if (name == "post-checkout") {
    return "on every git checkout and git switch";
  }
  if (name == "post-merge" || name == "pre-merge-commit" || name == "merge-commit") {
    return "on every git merge and git pull";
  }
  if (name == "post-rewrite") {
    return "on every git commit --amend and git rebase";
  }
  return "when git runs its " + std::string(name) + " hook";
}

/// Shell text without its comments (a `#` that starts a word, outside quotes, to the end of
/// its line): what a hook or `.envrc` runs, for command_words.
std::string without_shell_comments(std::string_view text) {
  std::string out;
  char quote = 0;
  bool word_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
        out += c;
        c = text[++i];
      }
    } else if (c == '#' && word_start) {
      while (i < text.size() && text[i] != '\n') {
        ++i;
      }
      out += '\n';
      word_start = true;
      continue;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i; // a continued line is one command
      out += ' ';
      continue;
    }
    out += c;
    word_start = !quote && (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
                            c == '|' || c == '(');
  }
  return out;
}

std::string Runner::reason(const std::string& what) const {
  return "your " + filters::shown_in_reason(config) + " runs " + what + " " + when +
         (detail.empty() ? "" : " (" + filters::shown_in_reason(detail) + ")");
}

Runner Runner::with_detail(const std::string& more) const {
  Runner r = *this;
  r.detail = r.detail.empty() ? more : r.detail + ", " + more;
  return r;
}

std::optional<std::string> ConfigReader::text(const fs::path& path) {
  m_read.push_back(path);
  return read_small_file(path.string());
}

std::optional<json> ConfigReader::yaml(const fs::path& path) {
  auto t = text(path);
  return t ? parse_yaml(*t) : std::nullopt;
}

std::optional<json> ConfigReader::jsonc(const fs::path& path) {
  auto t = text(path);
  return t ? parse_jsonc(*t) : std::nullopt;
}

std::optional<json> ConfigReader::toml(const fs::path& path) {
  auto t = text(path);
  return t ? parse_toml(*t) : std::nullopt;
}

std::vector<fs::path> ConfigReader::list(const fs::path& dir) {
  m_read.push_back(dir);
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

/// Commands whose arguments are not run: direnv's watch and PATH helpers, echo.
bool runs_no_argument(std::string_view command) {
  static constexpr std::array<std::string_view, 9> k_names{
      "echo",     "printf",      "watch_file", "watch_dir", "PATH_add",
      "path_add", "MANPATH_add", "log_status", "log_error"};
  return std::find(k_names.begin(), k_names.end(), command) != k_names.end();
}

std::string_view base_name(std::string_view word) {
  size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

std::string joined(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

} // namespace

void Collector::command(std::string_view line, const std::string& dir, const Runner& runner,
                        int depth) {
  // Hooks find the top with git itself: that is where they run, as `$PWD`.
  std::string text(line);
  for (std::string_view top :
       {"$(git rev-parse --show-toplevel)", "`git rev-parse --show-toplevel`"}) {
    for (size_t at = text.find(top); at != std::string::npos; at = text.find(top, at)) {
      text.replace(at, top.size(), "$PWD");
    }
  }
  std::vector<filters::CommandWord> words;
  filters::command_words(text, words);
  words_of(words, dir, runner, depth);
}

void Collector::argv(const std::vector<std::string>& args, const std::string& dir,
                     const Runner& runner) {
  std::vector<filters::CommandWord> words;
  for (size_t i = 0; i < args.size(); ++i) {
    words.push_back({args[i], i == 0});
  }
  words_of(words, dir, runner, 0);
}

void Collector::path(const std::string& word, const std::string& dir, const Runner& runner) {
  if (auto p = filters::project_path_of(word, dir, m_top_text)) {
    add(*p, runner.reason());
    load({*p, dir, runner, Lang::Exec});
  }
}

void Collector::npm_script(const std::string& name, const std::string& dir, const Runner& runner,
                           int depth) {
  const json* scripts = package_scripts(dir);
  if (!scripts || depth > 4) {
    return;
  }
  const std::string via = "package.json's \"" + name + "\" script";
  add(joined(dir, "package.json"), runner.with_detail(via).reason("its scripts"));
  npmrc(dir, runner.with_detail(via));
  for (const std::string& s : {"pre" + name, name, "post" + name}) {
    auto it = scripts->find(s);
    if (it != scripts->end() && it->is_string()) {
      command(it->get<std::string>(), dir, runner.with_detail(via), depth + 1);
    }
  }
}

void Collector::npmrc(const std::string& dir, const Runner& runner) {
  // npm runs every script with the project's .npmrc: `script-shell` is the program that runs
  // the script, `node-options` (`--require ./x.js`) loads code into every node it starts.
  const std::string path = joined(dir, ".npmrc");
  if (m_seen.count(path) != 0) {
    return;
  }
  add(path, runner.reason("npm with it"));
  auto text = m_reader.text(m_top / path);
  if (!text) {
    return;
  }
  filters::for_each_line(*text, [&](std::string_view line) {
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return;
    }
    std::string key(line.substr(0, eq));
    std::erase_if(key, [](char c) { return c == ' ' || c == '\t'; });
    if (key == "script-shell" || key == "node-options" || key == "shell") {
      command(key + " " + std::string(line.substr(eq + 1)), dir, runner.with_detail(key));
    }
  });
}

void Collector::add(const std::string& path, std::string reason) {
  if (m_seen.insert(path).second) {
    m_out.push_back({path, std::move(reason)});
  }
}

void Collector::words_of(const std::vector<filters::CommandWord>& words, const std::string& dir,
                         const Runner& runner, int depth) {
  std::string cwd = dir; // `cd sub && npm test` runs sub/package.json's script
  std::string_view tool; // the command the current word is an argument of
  bool quiet = false;    // in the arguments of a command that runs none of them
  for (size_t i = 0; i < words.size(); ++i) {
    const filters::CommandWord& w = words[i];
    if (w.command) {
      tool = base_name(w.text);
      quiet = runs_no_argument(tool);
      if (runner_config(tool, cwd, runner)) {
      } else if (tool == "npm" || tool == "pnpm" || tool == "yarn" || tool == "bun" ||
                 tool == "npx" || tool == "bunx" || tool == "pnpx") {
        const bool runs_bin = tool == "npx" || tool == "bunx" || tool == "pnpx";
        if (auto script = runs_bin ? std::nullopt : script_run(words, i, tool, cwd)) {
          npm_script(*script, cwd, runner, depth);
        } else if (auto bin = package_bin(words, i, tool)) {
          runner_config(*bin, cwd, runner); // `npx eslint`, `yarn jest`: the tool's config
        }
      } else if (tool == "cd" && i + 1 < words.size() && !words[i + 1].command) {
        cwd = filters::project_path_of(words[i + 1].text, cwd, m_top_text).value_or("");
        quiet = true;
      }
    }
    if (quiet) {
      continue;
    }
    // python -m pkg.mod runs pkg/mod.py (or its package's __main__), after pkg/__init__.py.
    if (i > 0 && words[i - 1].text == "-m" && w.text.find('/') == std::string::npos) {
      module(w.text, cwd, runner);
      if (w.text == "pytest" || w.text == "tox" || w.text == "nox") {
        runner_config(w.text, cwd, runner);
      }
      continue;
    }
    if (!filters::names_a_file(w)) {
      continue;
    }
    std::optional<std::string> p = filters::project_path_of(w.text, cwd, m_top_text);
    if (!p) {
      continue;
    }
    add(*p, runner.reason());
    // What the interpreter opens for that name: node tries extensions and index.js, Python
    // runs a directory's (or zip's) __main__.py. What the file loads runs too.
    const bool node =
        tool == "node" || tool == "nodejs" || tool == "bun" || tool == "tsx" || tool == "ts-node";
    const bool python = tool.starts_with("python") || tool == "uv" || tool == "pipenv";
    const bool shell = tool == "sh" || tool == "bash" || tool == "dash" || tool == "zsh" ||
                       tool == "ksh" || tool == "." || tool == "source" || tool == "source_env" ||
                       tool == "source_up";
    if (w.command) {
      load({*p, cwd, runner, Lang::Exec});
    } else if (shell) {
      load({*p, cwd, runner, Lang::Shell});
    }
    if (node) {
      load({*p, cwd, runner, Lang::Node});
      for (const char* more : {".js", ".cjs", ".mjs", ".ts", "/index.js", "/index.cjs",
                               "/index.mjs", "/package.json"}) {
        add(*p + more, runner.reason());
        load({*p + more, cwd, runner, Lang::Node});
      }
    } else if (python && !w.command) {
      // sys.path[0] is the script's directory (the directory run, for its __main__.py).
      const size_t slash = p->rfind('/');
      const std::string script_dir = slash == std::string::npos ? "" : p->substr(0, slash);
      add(*p + "/__main__.py", runner.reason());
      load({*p, cwd, runner, Lang::Python, {script_dir, cwd}});
      load({*p + "/__main__.py", cwd, runner, Lang::Python, {*p, cwd}});
    }
  }
}

void Collector::module(std::string name, const std::string& dir, const Runner& runner) {
  std::replace(name.begin(), name.end(), '.', '/');
  if (name.empty() || name.find_first_of("$*?") != std::string::npos) {
    return;
  }
  std::vector<std::string> files{name + ".py", name + "/__main__.py", name + "/__init__.py"};
  for (size_t slash = name.find('/'); slash != std::string::npos;
       slash = name.find('/', slash + 1)) {
    files.push_back(name.substr(0, slash) + "/__init__.py");
  }
  // `python -m` puts the directory it runs in first on sys.path.
  for (const std::string& file : files) {
    if (auto p = filters::project_path_of(file, dir, m_top_text)) {
      add(*p, runner.reason());
      load({*p, dir, runner, Lang::Python, {dir}});
    }
  }
}

std::optional<std::string> Collector::package_bin(const std::vector<filters::CommandWord>& words,
                                                  size_t i, std::string_view tool) {
  auto next = [&](size_t j) {
    while (j < words.size() && !words[j].command && words[j].text.front() == '-') {
      ++j;
    }
    return j < words.size() && !words[j].command ? j : words.size();
  };
  size_t at = next(i + 1);
  // npx X; pnpm exec X, pnpm dlx X, yarn exec X, yarn dlx X, bun x X; yarn X, pnpm X.
  if (at < words.size() && tool != "npx" && tool != "bunx" && tool != "pnpx") {
    const std::string& verb = words[at].text;
    if (verb == "exec" || verb == "dlx" || verb == "x") {
      at = next(at + 1);
    } else if (tool == "npm") {
      return std::nullopt;
    }
  }
  return at < words.size() ? std::optional(words[at].text) : std::nullopt;
}

std::optional<std::string> Collector::script_run(const std::vector<filters::CommandWord>& words,
                                                 size_t i, std::string_view tool,
                                                 const std::string& dir) {
  auto next = [&](size_t j) {
    while (j < words.size() && !words[j].command && words[j].text.front() == '-') {
      ++j;
    }
    return j < words.size() && !words[j].command ? j : words.size();
  };
  size_t sub = next(i + 1);
  if (sub == words.size()) {
    return std::nullopt;
  }
  const std::string& verb = words[sub].text;
  if (verb == "run" || verb == "run-script" || verb == "rum" || verb == "urn") {
    size_t name = next(sub + 1);
    return name == words.size() ? std::nullopt : std::optional(words[name].text);
  }
  if (verb == "test" || verb == "t" || verb == "tst") {
    return "test";
  }
  if (verb == "start" || verb == "stop" || verb == "restart") {
    return verb;
  }
  // yarn, pnpm and bun run a script named as their first word.
  const json* scripts = tool == "npm" ? nullptr : package_scripts(dir);
  if (scripts && scripts->contains(verb)) {
    return verb;
  }
  return std::nullopt;
}

const json* Collector::package_scripts(const std::string& dir) {
  auto it = m_packages.find(dir);
  if (it == m_packages.end()) {
    std::optional<json> scripts;
    if (auto text = m_reader.text(m_top / joined(dir, "package.json"))) {
      if (auto doc = parse_jsonc(*text);
          doc && doc->is_object() && doc->contains("scripts") && (*doc)["scripts"].is_object()) {
        scripts = (*doc)["scripts"];
      }
    }
    it = m_packages.emplace(dir, std::move(scripts)).first;
  }
  return it->second ? &*it->second : nullptr;
}

} // namespace ws
