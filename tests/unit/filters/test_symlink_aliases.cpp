// A file is judged under every name it will be reachable by through symlinks (red team 16:
// `.claude -> cfg` carried cfg/settings.json past the policy as a plain transfer).
#include "filters/symlink_aliases.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ws::filters;

namespace {

constexpr mode_t k_file = S_IFREG | 0644;
constexpr mode_t k_link = S_IFLNK | 0777;

PathFacts added(std::string path, mode_t mode = k_file) {
  PathFacts f;
  f.type = ChangeType::Added;
  f.path = std::move(path);
  f.mode = mode;
  f.size = 10;
  return f;
}

PathFacts link(std::string path, std::string target) {
  PathFacts f = added(std::move(path), k_link);
  f.symlink_target = std::move(target);
  return f;
}

std::vector<std::string> alias_paths(const SymlinkAliases& a, const std::string& path) {
  std::vector<std::string> out;
  for (const AliasName& n : a.aliases_of(path)) {
    out.push_back(n.path);
  }
  return out;
}

constexpr const char* k_agent_cli =
    "an agent CLI runs what it says when it starts here (hooks, MCP servers, helpers): ";

} // namespace

TEST_CASE("filters::SymlinkAliases resolves targets within the project") {
  SymlinkAliases a({{".claude", "cfg"},
                    {"sub/up", ".."},
                    {"x/y", "../cfg/./deep"},
                    {"chain", "x/y"},
                    {"abs", "/etc"},
                    {"out", "../elsewhere"},
                    {"loop1", "loop2"},
                    {"loop2", "loop1"},
                    {"twice", "a"},
                    {"twice", "b"}});
  CHECK(a.resolved(".claude") == std::vector<std::string>{"cfg"});
  CHECK(a.resolved("sub/up") == std::vector<std::string>{""});
  CHECK(a.resolved("x/y") == std::vector<std::string>{"cfg/deep"});
  CHECK(a.resolved("chain") == std::vector<std::string>{"cfg/deep"}); // through x/y
  CHECK(a.resolved("abs").empty());
  CHECK(a.resolved("out").empty());
  CHECK(a.resolved("loop1").empty());
  CHECK(a.resolved("twice") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("filters::SymlinkAliases names every path below a link's target under the link") {
  SymlinkAliases a({{".claude", "cfg"}, {"tools/.husky", "../h"}, {"CLAUDE.md", "AGENTS.md"}});
  CHECK(alias_paths(a, "cfg/settings.json") == std::vector<std::string>{".claude/settings.json"});
  CHECK(alias_paths(a, "cfg") == std::vector<std::string>{".claude"});
  CHECK(alias_paths(a, "h/pre-commit") == std::vector<std::string>{"tools/.husky/pre-commit"});
  CHECK(alias_paths(a, "AGENTS.md") == std::vector<std::string>{"CLAUDE.md"});
  CHECK(alias_paths(a, "cfgx/settings.json").empty()); // whole components only
  CHECK(alias_paths(a, "src/main.c").empty());
  CHECK(SymlinkAliases().aliases_of("cfg/settings.json").empty());

  // Links within links, and a link to the top: bounded.
  SymlinkAliases nested({{".config", "conf"}, {"conf/mise", "../m"}, {"sub/up", ".."}});
  std::vector<std::string> names = alias_paths(nested, "m/config.toml");
  CHECK(std::find(names.begin(), names.end(), "conf/mise/config.toml") != names.end());
  CHECK(std::find(names.begin(), names.end(), ".config/mise/config.toml") != names.end());
  CHECK(std::find(names.begin(), names.end(), "sub/up/m/config.toml") != names.end());
  CHECK(names.size() <= SymlinkAliases::k_max_aliases);
}

TEST_CASE("filters::decide_reachable judges a file under the names a symlink gives it") {
  SymlinkAliases a({{".claude", "cfg"},
                    {".husky", "h"},
                    {"gradle", "g"},
                    {".vscode", "editor"},
                    {".cargo", "c"},
                    {".github/workflows", "../ci"},
                    {"CLAUDE.md", "notes.md"}});
  PolicyConfig config;
  Decision d = decide_reachable(added("cfg/settings.json"), config, a);
  CHECK(d.verdict == Verdict::Withheld);
  CHECK(d.reason == std::string("reachable as .claude/settings.json through the symlink .claude "
                                "-> cfg: ") +
                        k_agent_cli + "settings.json");
  CHECK(decide_reachable(added("h/pre-commit"), config, a).reason ==
        "reachable as .husky/pre-commit through the symlink .husky -> h: git's hooks run what it "
        "says on commit: .husky/");
  CHECK(decide_reachable(added("g/wrapper/gradle-wrapper.properties"), config, a).verdict ==
        Verdict::Withheld);
  CHECK(decide_reachable(added("editor/tasks.json"), config, a).verdict == Verdict::Withheld);
  Decision ext = decide_reachable(added("editor/extensions.json"), config, a);
  CHECK(ext.verdict == Verdict::Flagged);
  CHECK(ext.reason == "reachable as .vscode/extensions.json through the symlink .vscode -> "
                      "editor: runs code on your machine: .vscode/");
  CHECK(decide_reachable(added("c/config.toml"), config, a).verdict == Verdict::Withheld);
  CHECK(decide_reachable(added("ci/deploy.yml"), config, a).reason ==
        "reachable as .github/workflows/deploy.yml through the symlink .github/workflows -> "
        "../ci: runs in CI with the repository's secrets: .github/workflows/");
  CHECK(decide_reachable(added("notes.md"), config, a).verdict == Verdict::Flagged);
  // Deleting or renaming away a file read through a link is flagged as its siblings are.
  PathFacts gone;
  gone.type = ChangeType::Deleted;
  gone.path = "h/pre-commit";
  gone.base_mode = k_file;
  CHECK(decide_reachable(gone, config, a).verdict == Verdict::Flagged);
  PathFacts moved = added("notes/old-hook");
  moved.type = ChangeType::Renamed;
  moved.from = "h/pre-commit";
  Decision mv = decide_reachable(moved, config, a);
  CHECK(mv.verdict == Verdict::Flagged);
  CHECK(mv.reason.rfind("was reachable as .husky/pre-commit through the symlink .husky -> h: ",
                        0) == 0);
  // Elsewhere, and the same verdict directly: the direct reason stays.
  CHECK(decide_reachable(added("src/main.c"), config, a).verdict == Verdict::Transfer);
  CHECK(decide_reachable(added(".claude/settings.json"), config, a).reason ==
        std::string(k_agent_cli) + "settings.json");
  // ws.withhold patterns count under the other name too.
  PolicyConfig secrets;
  secrets.withhold = {"/secrets/"};
  SymlinkAliases s(std::vector<SymlinkFact>{{"secrets", "plain"}});
  CHECK(decide_reachable(added("plain/key"), secrets, s).reason ==
        "reachable as secrets/key through the symlink secrets -> plain: matches ws.withhold "
        "pattern '/secrets/'");
}

TEST_CASE("filters::decide_reachable gives a symlink standing for a guarded place its verdict") {
  PolicyConfig config;
  SymlinkAliases none;
  auto verdict = [&](const std::string& path, const std::string& target) {
    return decide_reachable(link(path, target), config, none);
  };
  Decision claude = verdict(".claude", "cfg");
  CHECK(claude.verdict == Verdict::Withheld);
  CHECK(claude.reason == std::string("symlink .claude -> cfg stands for .claude/: ") + k_agent_cli +
                             "settings.json");
  CHECK(verdict(".husky", "h").reason ==
        "symlink .husky -> h stands for .husky/: git's hooks run what it says on commit: .husky/");
  CHECK(verdict("gradle", "g").verdict == Verdict::Withheld);              // gradle/wrapper/
  CHECK(verdict(".vscode", "editor").verdict == Verdict::Withheld);        // .vscode/settings.json
  CHECK(verdict("sub/.VSCode", "../editor").verdict == Verdict::Withheld); // case folded
  CHECK(verdict("node_modules", "shared/nm").reason ==
        "symlink node_modules -> shared/nm stands for node_modules/: under node_modules/");
  Decision cargo = verdict(".cargo", "c");
  CHECK(cargo.verdict == Verdict::Withheld);
  CHECK(cargo.reason == "symlink .cargo -> c stands for .cargo/: cargo runs the rustc it names "
                        "(rustc-wrapper) even for cargo metadata: .cargo/config");
  CHECK(verdict(".github/workflows", "../ci").verdict == Verdict::Flagged);
  CHECK(verdict(".github", "gh").verdict == Verdict::Flagged);
  CHECK(verdict("project", "p").verdict == Verdict::Flagged); // sbt's project/*.scala
  // Ordinary links stay ordinary.
  CHECK(verdict("docs", "documentation").verdict == Verdict::Transfer);
  CHECK(verdict("src/sub", "../lib").verdict == Verdict::Transfer);
  CHECK(verdict("lib/current", "v2").verdict == Verdict::Transfer);
  // Deleting such a link changes what runs: flagged, as deleting the files there.
  PathFacts gone;
  gone.type = ChangeType::Deleted;
  gone.path = ".husky";
  gone.base_mode = k_link;
  CHECK(decide_reachable(gone, config, none).verdict == Verdict::Flagged);
  // The person's patterns and the real core.hooksPath count too.
  PolicyConfig mine;
  mine.withhold = {"secrets/"};
  mine.hooks_path = "tools/hooks";
  CHECK(decide_reachable(link("secrets", "plain"), mine, none).verdict == Verdict::Withheld);
  CHECK(decide_reachable(link("tools", "t"), mine, none).verdict == Verdict::Withheld);
  // A link inside a directory that another link names is judged under that name too.
  SymlinkAliases outer(std::vector<SymlinkFact>{{".claude", "cfg"}});
  CHECK(decide_reachable(link("cfg/hooks", "../h"), config, outer).verdict == Verdict::Withheld);
}
