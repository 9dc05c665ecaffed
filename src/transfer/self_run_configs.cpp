// The project files the person's own self-running configs run (self_run_configs.hpp): read
// from the real tree, parsed with real parsers (libyaml, nlohmann::json), their command lines
// split as the shell would (filters/command_words.hpp).
#include "src/transfer/self_run_configs.hpp"

#include "filters/command_words.hpp"
#include "filters/policy_rules.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/transfer/config_commands.hpp"
#include "src/transfer/config_text.hpp"
#include "src/transfer/script_imports.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

namespace ws {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::array<const char*, 2> k_pre_commit{".pre-commit-config.yaml",
                                                  ".pre-commit-config.yml"};
constexpr std::array<const char*, 14> k_lefthook{
    "lefthook.yml",        "lefthook.yaml",       ".lefthook.yml",       ".lefthook.yaml",
    "lefthook-local.yml",  "lefthook-local.yaml", ".lefthook-local.yml", ".lefthook-local.yaml",
    "lefthook.json",       ".lefthook.json",      "lefthook.toml",       ".lefthook.toml",
    "lefthook-local.toml", ".lefthook-local.toml"};
constexpr std::array<const char*, 2> k_claude{".claude/settings.json",
                                              ".claude/settings.local.json"};
constexpr std::array<const char*, 4> k_mcp{".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json",
                                           ".gemini/settings.json"};
constexpr std::array<const char*, 5> k_lint_staged{".lintstagedrc", ".lintstagedrc.json",
                                                   ".lintstagedrc.yaml", ".lintstagedrc.yml",
                                                   ".simple-git-hooks.json"};
constexpr std::array<const char*, 2> k_devcontainer{".devcontainer/devcontainer.json",
                                                    ".devcontainer.json"};

/// The strings of `v`: itself if a string, its string elements if an array.
std::vector<std::string> strings_of(const json& v) {
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    for (const json& e : v) {
      if (e.is_string()) {
        out.push_back(e.get<std::string>());
      } else if (e.is_object() && e.contains("value") && e["value"].is_string()) {
        out.push_back(e["value"].get<std::string>()); // VS Code's {value, quoting}
      }
    }
  } else if (v.is_object() && v.contains("value") && v["value"].is_string()) {
    out.push_back(v["value"].get<std::string>());
  }
  return out;
}

std::string string_at(const json& obj, const char* key) {
  if (!obj.is_object()) {
    return {};
  }
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void pre_commit(const std::string& name, const json& doc, Collector& c) {
  if (!doc.is_object() || !doc.contains("repos") || !doc["repos"].is_array()) {
    return;
  }
  std::vector<std::string> types = strings_of(doc.value("default_install_hook_types", json()));
  if (types.empty()) {
    types.push_back("pre-commit");
  }
  const std::vector<std::string> default_stages = strings_of(doc.value("default_stages", json()));
  for (const json& repo : doc["repos"]) {
    // A remote repository's hooks run its own code, from pre-commit's cache.
    if (string_at(repo, "repo") != "local" || !repo.contains("hooks") ||
        !repo["hooks"].is_array()) {
      continue;
    }
    for (const json& hook : repo["hooks"]) {
      if (!hook.is_object()) {
        continue;
      }
      std::vector<std::string> stages = strings_of(hook.value("stages", json()));
      if (stages.empty()) {
        stages = default_stages.empty() ? types : default_stages;
      }
      std::erase(stages, "manual"); // run only by `pre-commit run --hook-stage manual`
      if (stages.empty()) {
        continue;
      }
      std::string stage = stages.front();
      for (const std::string& s : stages) {
        if (std::find(types.begin(), types.end(), s) != types.end()) {
          stage = s;
          break;
        }
      }
      Runner runner{name, when_hook_runs(stage), "hook " + string_at(hook, "id")};
      const std::string entry = string_at(hook, "entry");
      const std::string language = string_at(hook, "language");
      std::vector<filters::CommandWord> words;
      filters::command_words(entry, words);
      if ((language == "script" || language == "unsupported_script") && !words.empty()) {
        c.path(words.front().text, "", runner);
      }
      c.command(entry, "", runner);
      std::vector<std::string> args = strings_of(hook.value("args", json()));
      args.insert(args.begin(), "-"); // the entry's command: args are arguments
      c.argv(args, "", runner);
    }
  }
}

void lefthook(const std::string& name, const json& doc, Collector& c) {
  if (!doc.is_object()) {
    return;
  }
  const std::string source_dir = [&] {
    std::string s = string_at(doc, "source_dir");
    return s.empty() ? std::string(".lefthook") : s;
  }();
  for (const std::string& extended : strings_of(doc.value("extends", json()))) {
    c.path(extended, "", Runner{name, "on every git commit", "extends: lefthook obeys it"});
  }
  for (auto hook = doc.begin(); hook != doc.end(); ++hook) {
    if (!filters::is_git_hook_name(hook.key()) || !hook->is_object()) {
      continue;
    }
    const Runner base{name, when_hook_runs(hook.key()), {}};
    auto run_job = [&](const std::string& job, const json& v) {
      const std::string root = string_at(v, "root");
      const Runner runner = base.with_detail(hook.key() + " " + job);
      c.command(string_at(v, "run"), root, runner);
      if (std::string script = string_at(v, "script"); !script.empty()) {
        c.path(source_dir + "/" + hook.key() + "/" + script, "", runner);
      }
    };
    if (auto it = hook->find("commands"); it != hook->end() && it->is_object()) {
      for (auto cmd = it->begin(); cmd != it->end(); ++cmd) {
        run_job("command " + cmd.key(), *cmd);
      }
    }
    if (auto it = hook->find("scripts"); it != hook->end() && it->is_object()) {
      for (auto script = it->begin(); script != it->end(); ++script) {
        c.path(source_dir + "/" + hook.key() + "/" + script.key(), "",
               base.with_detail(hook.key() + " script " + script.key()));
      }
    }
    // jobs, and the jobs of their groups (bounded by the file's own nesting).
    std::vector<const json*> jobs;
    if (auto it = hook->find("jobs"); it != hook->end()) {
      jobs.push_back(&*it);
    }
    for (size_t k = 0; k < jobs.size() && k < 1000; ++k) {
      if (!jobs[k]->is_array()) {
        continue;
      }
      for (const json& job : *jobs[k]) {
        std::string job_name = string_at(job, "name");
        run_job("job " + (job_name.empty() ? std::string("(unnamed)") : job_name), job);
        if (job.is_object() && job.contains("group") && job["group"].is_object() &&
            job["group"].contains("jobs")) {
          jobs.push_back(&job["group"]["jobs"]);
        }
      }
    }
  }
}

void claude_settings(const std::string& name, const json& doc, Collector& c) {
  if (!doc.is_object()) {
    return;
  }
  const std::string when = "in every Claude Code session here";
  if (auto hooks = doc.find("hooks"); hooks != doc.end() && hooks->is_object()) {
    for (auto event = hooks->begin(); event != hooks->end(); ++event) {
      if (!event->is_array()) {
        continue;
      }
      for (const json& matcher : *event) {
        if (!matcher.is_object() || !matcher.contains("hooks") || !matcher["hooks"].is_array()) {
          continue;
        }
        for (const json& hook : matcher["hooks"]) {
          c.command(string_at(hook, "command"), "", Runner{name, when, event.key() + " hook"});
        }
      }
    }
  }
  if (auto status = doc.find("statusLine"); status != doc.end()) {
    c.command(string_at(*status, "command"), "", Runner{name, when, "statusLine"});
  }
  for (const char* helper : {"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport",
                             "otelHeadersHelper", "gcpAuthRefresh"}) {
    c.command(string_at(doc, helper), "", Runner{name, when, helper});
  }
}

void mcp_servers(const std::string& name, const json& doc, Collector& c) {
  if (!doc.is_object()) {
    return;
  }
  for (const char* key : {"mcpServers", "servers"}) {
    auto servers = doc.find(key);
    if (servers == doc.end() || !servers->is_object()) {
      continue;
    }
    for (auto server = servers->begin(); server != servers->end(); ++server) {
      if (!server->is_object()) {
        continue;
      }
      // The command alone, or a command line where the client hands it to a shell.
      std::vector<filters::CommandWord> words;
      filters::command_words(string_at(*server, "command"), words);
      std::vector<std::string> args;
      for (const filters::CommandWord& w : words) {
        args.push_back(w.text);
      }
      for (const std::string& a : strings_of(server->value("args", json()))) {
        args.push_back(a);
      }
      std::string cwd = string_at(*server, "cwd");
      c.argv(args, filters::project_path_of(cwd, "", "").value_or(""),
             Runner{name, "when an agent CLI starts here", "MCP server " + server.key()});
    }
  }
}

void vscode_tasks(const std::string& name, const json& doc, Collector& c) {
  if (!doc.is_object() || !doc.contains("tasks") || !doc["tasks"].is_array()) {
    return;
  }
  const json& tasks = doc["tasks"];
  auto label_of = [](const json& t) {
    std::string label = string_at(t, "label");
    if (label.empty() && string_at(t, "type") == "npm") {
      label = "npm: " + string_at(t, "script");
    }
    return label;
  };
  // The folderOpen tasks, then every task they depend on.
  std::vector<const json*> run;
  std::set<std::string> labels;
  for (const json& t : tasks) {
    if (t.is_object() && t.contains("runOptions") &&
        string_at(t["runOptions"], "runOn") == "folderOpen") {
      run.push_back(&t);
      labels.insert(label_of(t));
    }
  }
  for (size_t k = 0; k < run.size(); ++k) {
    for (const std::string& dep : strings_of(run[k]->value("dependsOn", json()))) {
      for (const json& t : tasks) {
        if (t.is_object() && label_of(t) == dep && labels.insert(dep).second) {
          run.push_back(&t);
        }
      }
    }
  }
  for (const json* t : run) {
    const json& linux = t->value("linux", json::object());
    const json& options =
        linux.contains("options") ? linux["options"] : t->value("options", json());
    const std::string dir =
        filters::project_path_of(string_at(options, "cwd"), "", "").value_or("");
    const Runner runner{name, "when VS Code opens the folder", "task '" + label_of(*t) + "'"};
    if (string_at(*t, "type") == "npm") {
      c.npm_script(string_at(*t, "script"), dir, runner, 0);
      continue;
    }
    const json& command =
        linux.contains("command") ? linux["command"] : t->value("command", json());
    const json& args = linux.contains("args") ? linux["args"] : t->value("args", json());
    std::vector<std::string> words = strings_of(command);
    for (const std::string& a : strings_of(args)) {
      words.push_back(a);
    }
    if (string_at(*t, "type") == "process") {
      c.argv(words, dir, runner);
    } else {
      std::string line;
      for (const std::string& w : words) {
        line += (line.empty() ? "" : " ") + w;
      }
      c.command(line, dir, runner);
    }
  }
}

void devcontainer(const std::string& name, const json& doc, Collector& c) {
  if (!doc.is_object()) {
    return;
  }
  for (const char* key : {"initializeCommand", "onCreateCommand", "updateContentCommand",
                          "postCreateCommand", "postStartCommand", "postAttachCommand"}) {
    auto it = doc.find(key);
    if (it == doc.end()) {
      continue;
    }
    const bool host = std::string_view(key) == "initializeCommand";
    const Runner runner{name,
                        host ? "on this machine when its dev container starts"
                             : "in its dev container, which mounts the project",
                        key};
    // A string is a shell line, an array one command's argv, an object several of either.
    std::vector<const json*> commands{&*it};
    if (it->is_object()) {
      commands.clear();
      for (const json& v : *it) {
        commands.push_back(&v);
      }
    }
    for (const json* cmd : commands) {
      if (cmd->is_string()) {
        c.command(cmd->get<std::string>(), "", runner);
      } else if (cmd->is_array()) {
        c.argv(strings_of(*cmd), "", runner);
      }
    }
  }
}

/// lint-staged's tasks (`{"*.js": "node tools/fmt.js"}`, or a list of commands per glob):
/// run on the staged files by the commit hook that runs lint-staged.
void lint_staged(const std::string& name, const json& tasks, Collector& c) {
  if (!tasks.is_object()) {
    return;
  }
  for (auto it = tasks.begin(); it != tasks.end(); ++it) {
    const Runner runner{name, "on every git commit", "lint-staged " + it.key()};
    for (const std::string& cmd : strings_of(*it)) {
      c.command(cmd, "", runner);
    }
  }
}

/// A map of git hook names to command lines (husky 4's `husky.hooks`, simple-git-hooks).
void hook_commands(const std::string& name, const json& hooks, const std::string& manager,
                   Collector& c) {
  if (!hooks.is_object()) {
    return;
  }
  for (auto it = hooks.begin(); it != hooks.end(); ++it) {
    if (filters::is_git_hook_name(it.key()) && it->is_string()) {
      c.command(it->get<std::string>(), "",
                Runner{name, when_hook_runs(it.key()), manager + " " + it.key()});
    }
  }
}

/// What the real package.json has git's hooks run: husky 4's `husky.hooks`,
/// `simple-git-hooks`, `lint-staged`. package.json then runs by itself too.
void package_json_hooks(const json& doc, Collector& c) {
  if (!doc.is_object()) {
    return;
  }
  bool hooks = false;
  if (auto husky = doc.find("husky");
      husky != doc.end() && husky->is_object() && husky->contains("hooks")) {
    hook_commands("package.json", (*husky)["hooks"], "husky", c);
    hooks = true;
  }
  if (auto simple = doc.find("simple-git-hooks"); simple != doc.end()) {
    hook_commands("package.json", *simple, "simple-git-hooks", c);
    hooks = true;
  }
  if (auto staged = doc.find("lint-staged"); staged != doc.end()) {
    lint_staged("package.json", *staged, c);
    hooks = true;
  }
  if (hooks) {
    c.add("package.json",
          "your package.json runs what it says on every git commit (husky, simple-git-hooks, "
          "lint-staged)");
  }
}

/// Every command line of a shell script git or direnv runs (`hook`), in `dir`.
void shell_script(const fs::path& file, const std::string& dir, const Runner& runner,
                  ConfigReader& r, Collector& c) {
  auto text = r.text(file);
  if (!text || text->find('\0') != std::string::npos) {
    return; // absent, too large, or a program: nothing of the project named in words
  }
  c.command(without_shell_comments(*text), dir, runner);
}

/// The devcontainer.json files: the two fixed names and one per folder of .devcontainer/.
std::vector<std::string> devcontainer_files(const fs::path& top, ConfigReader& r) {
  std::vector<std::string> out(k_devcontainer.begin(), k_devcontainer.end());
  std::error_code ec;
  for (const fs::path& p : r.list(top / ".devcontainer")) {
    if (fs::is_directory(p, ec)) {
      out.push_back(".devcontainer/" + p.filename().string() + "/devcontainer.json");
    }
  }
  return out;
}

/// The git hooks in `dir` (named as hooks, not samples), sorted.
std::vector<fs::path> hook_files(const fs::path& dir, ConfigReader& r) {
  std::vector<fs::path> out = r.list(dir);
  std::erase_if(
      out, [](const fs::path& p) { return !filters::is_git_hook_name(p.filename().string()); });
  return out;
}

/// How a reason names a hook file: repository-relative inside the worktree, else as it is.
std::string hook_shown(const fs::path& top, const fs::path& file) {
  fs::path rel = file.lexically_relative(top);
  return !rel.empty() && *rel.begin() != ".." ? rel.generic_string() : file.string();
}

} // namespace

SelfRunConfigs read_self_run_configs(const fs::path& worktree, const fs::path& hooks_dir,
                                     const fs::path& index_cache) {
  ConfigReader r;
  // The real index, opened only if a followed tool finds files by their name (pytest).
  std::optional<gitbridge::RealRepo> repo;
  Collector c(worktree, r, [&](const std::string& name) {
    if (!repo) {
      repo.emplace(worktree, index_cache);
    }
    return repo->tracked_named(name);
  });
  // A config of a shape its tool refuses (a list where a map belongs) names what was found
  // before the odd part; nlohmann::json throws type_error there.
  auto guarded = [](auto&& read) {
    try {
      read();
    } catch (const json::exception&) {
    }
  };
  for (const char* name : k_pre_commit) {
    if (auto doc = r.yaml(worktree / name)) {
      guarded([&] { pre_commit(name, *doc, c); });
    }
  }
  for (const char* name : k_lefthook) {
    const std::string_view n = name;
    auto doc = n.ends_with(".json")   ? r.jsonc(worktree / name)
               : n.ends_with(".toml") ? r.toml(worktree / name)
                                      : r.yaml(worktree / name);
    if (doc) {
      guarded([&] { lefthook(name, *doc, c); });
    }
  }
  for (const fs::path& hook : hook_files(worktree / ".husky", r)) {
    const std::string hook_name = hook.filename().string();
    shell_script(hook, "", Runner{".husky/" + hook_name, when_hook_runs(hook_name), {}}, r, c);
  }
  if (!hooks_dir.empty()) {
    for (const fs::path& hook : hook_files(hooks_dir, r)) {
      const std::string hook_name = hook.filename().string();
      const Runner runner{"git hook " + hook_shown(worktree, hook), when_hook_runs(hook_name), {}};
      // A hook linked to a file of the project (`ln -s ../../tools/pre-commit .git/hooks/`)
      // is that file.
      std::error_code ec;
      const fs::path target = fs::canonical(hook, ec);
      if (!ec && fs::is_symlink(fs::symlink_status(hook, ec))) {
        if (auto rel = filters::project_path_of(target.string(), "",
                                                fs::weakly_canonical(worktree, ec).string())) {
          c.add(*rel, runner.with_detail("a symlink to this file").reason());
        }
      }
      shell_script(hook, "", runner, r, c);
    }
  }
  if (auto doc = r.jsonc(worktree / "package.json")) {
    guarded([&] { package_json_hooks(*doc, c); });
  }
  for (const char* name : k_lint_staged) {
    auto doc = std::string_view(name).ends_with(".json") ? r.jsonc(worktree / name)
                                                         : r.yaml(worktree / name);
    if (doc && std::string_view(name).find("simple") != std::string_view::npos) {
      guarded([&] { hook_commands(name, *doc, "simple-git-hooks", c); });
    } else if (doc) {
      guarded([&] { lint_staged(name, *doc, c); });
    }
  }
  for (const char* name : k_claude) {
    if (auto doc = r.jsonc(worktree / name)) {
      guarded([&] { claude_settings(name, *doc, c); });
    }
  }
  for (const char* name : k_mcp) {
    if (auto doc = r.jsonc(worktree / name)) {
      guarded([&] { mcp_servers(name, *doc, c); });
    }
  }
  if (auto doc = r.jsonc(worktree / ".vscode/tasks.json")) {
    guarded([&] { vscode_tasks(".vscode/tasks.json", *doc, c); });
  }
  for (const std::string& name : devcontainer_files(worktree, r)) {
    if (auto doc = r.jsonc(worktree / name)) {
      guarded([&] { devcontainer(name, *doc, c); });
    }
  }
  shell_script(worktree / ".envrc", "", Runner{".envrc", "when you cd into the project", "direnv"},
               r, c);
  // rust-analyzer runs `cargo check` when an editor opens a Cargo project, no command typed.
  c.editor_cargo_projects();
  // In this order: what the named scripts load is read (and followed) by take().
  std::vector<filters::ScriptUse> uses = c.take();
  return {std::move(uses), c.take_by_name(), r.take()};
}

bool is_conftest(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return name.size() == 11 &&
         std::equal(name.begin(), name.end(), "conftest.py", [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

void add_view_conftest_imports(filters::PolicyConfig& config,
                               const std::vector<std::pair<std::string, std::string>>& conftests) {
  const filters::ScriptNameUse* pytest = nullptr;
  for (const filters::ScriptNameUse& use : config.run_by_name) {
    if (use.name == "conftest.py") {
      pytest = &use;
      break;
    }
  }
  if (pytest == nullptr || conftests.empty()) {
    return; // nothing of the person's runs pytest
  }
  // "... (pytest, every conftest.py)" -> "... (pytest, imported by PATH)"
  const std::string every = "every conftest.py)";
  const std::string& runner = pytest->runner;
  std::vector<filters::ScriptUse> found;
  for (const auto& conftest : conftests) {
    const std::string& path = conftest.first;
    const std::string reason =
        runner.ends_with(every)
            ? runner.substr(0, runner.size() - every.size()) + "imported by " + path + ")"
            : runner;
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash);
    const std::vector<std::string> roots =
        dir.empty() ? std::vector<std::string>{""} : std::vector<std::string>{dir, ""};
    for (const PythonImport& import : python_imports(conftest.second)) {
      for (std::string& file : python_import_files(import, path, roots)) {
        found.push_back({std::move(file), reason});
      }
    }
  }
  // One sorted list, one entry per path, the person's own configs' reasons first.
  auto by_path = [](const filters::ScriptUse& a, const filters::ScriptUse& b) {
    return a.path < b.path;
  };
  std::stable_sort(found.begin(), found.end(), by_path);
  std::vector<filters::ScriptUse> merged;
  merged.reserve(config.run_by_configs.size() + found.size());
  std::merge(std::make_move_iterator(config.run_by_configs.begin()),
             std::make_move_iterator(config.run_by_configs.end()),
             std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()),
             std::back_inserter(merged), by_path);
  merged.erase(std::unique(merged.begin(), merged.end(),
                           [](const filters::ScriptUse& a, const filters::ScriptUse& b) {
                             return a.path == b.path;
                           }),
               merged.end());
  config.run_by_configs = std::move(merged);
}

SelfRunConfigs read_self_run_configs(const fs::path& worktree, const fs::path& index_cache) {
  return read_self_run_configs(worktree, gitbridge::hooks_dir_of(worktree), index_cache);
}

} // namespace ws
