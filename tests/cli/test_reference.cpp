// Man pages and shell completions are generated from the parser's own definition: every
// command and option `ws --help` shows is in them, and the completions complete.
#include "tests/cli/cli_surface.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// An option or command name as roff spells it (hyphens escaped).
std::string roff(std::string s) {
  std::string out;
  for (char c : s) {
    out += c == '-' ? std::string("\\-") : std::string(1, c);
  }
  return out;
}

/// What the generated bash completion offers for `words` (the last one being completed),
/// calling its function as bash's programmable completion does.
std::vector<std::string> bash_complete(const fs::path& script,
                                       const std::vector<std::string>& words,
                                       const fs::path& cwd = "/") {
  std::string array;
  for (const auto& w : words) {
    array += " " + q(w);
  }
  Run r =
      sh("PATH=" + q(ws_binary().parent_path().string()) + ":$PATH bash --norc --noprofile -c " +
             q("source " + q(script.string()) + " && COMP_WORDS=(" + array + ") && COMP_CWORD=" +
               std::to_string(words.size() - 1) + " && _ws && printf '%s\\n' \"${COMPREPLY[@]}\""),
         cwd);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) {
      out.push_back(line);
    }
  }
  return out;
}

/// Whether the fish script completes `option` (-x or --long) only after `command` (or
/// after its subcommand `sub`).
bool fish_has_option(const std::string& fish, const std::string& command, const std::string& option,
                     const std::string& sub = {}) {
  std::string flag = option.size() == 2 ? " -s " + option.substr(1) : " -l " + option.substr(2);
  std::istringstream in(fish);
  for (std::string line; std::getline(in, line);) {
    bool scoped =
        sub.empty()
            ? has(line, "__ws_using " + command + "'") || has(line, "__ws_using " + command + ";")
            : has(line, "__ws_using " + command + "; and __fish_seen_subcommand_from " + sub + "'");
    if (scoped && has(line, flag + " ")) {
      return true;
    }
  }
  return false;
}

bool offers(const std::vector<std::string>& replies, const std::string& word) {
  return std::find(replies.begin(), replies.end(), word) != replies.end();
}

/// The generated files: those of the build (what installing copies), checked to be what
/// the binary generates now.
struct Generated {
  TempDir dir;
  fs::path man = dir.path() / "man1";
  fs::path bash = dir.path() / "ws.bash";
  fs::path zsh = dir.path() / "_ws";
  fs::path fish = dir.path() / "ws.fish";
  Generated() {
    std::string ws = q(ws_binary().string());
    REQUIRE(sh(ws + " __man " + q(man.string())).status == 0);
    for (const auto& generated : {std::pair{"bash", bash}, {"zsh", zsh}, {"fish", fish}}) {
      const fs::path& file = generated.second; // (clang 14: no structured binding in a lambda)
      REQUIRE(sh(ws + " __complete " + generated.first + " " + q(file.string())).status == 0);
      CHECK_MESSAGE(read(file) == read(fs::path(WS_BUILD_DIR) / "share" / file.filename()),
                    "the build's " << file.filename() << " is stale");
    }
    CHECK(read(man / "ws.1") == read(fs::path(WS_BUILD_DIR) / "share" / "man1" / "ws.1"));
  }
};

} // namespace

TEST_CASE("reference: every command and option is in the man pages and the completions") {
  HelpSurface surface = help_surface();
  REQUIRE(surface.commands.size() >= 18);
  Generated g;
  std::string main_page = read(g.man / "ws.1");
  std::string bash = read(g.bash), zsh = read(g.zsh), fish = read(g.fish);
  for (const auto& opt : surface.global) {
    CAPTURE(opt);
    CHECK(has(main_page, "\\fB" + roff(opt) + "\\fR"));
    CHECK(has(bash, opt));
    CHECK(has(zsh, opt));
    CHECK(has(fish, opt.size() == 2 ? " -s " + opt.substr(1) : " -l " + opt.substr(2)));
  }
  for (const auto& c : surface.commands) {
    CAPTURE(c.name);
    fs::path page = g.man / ("ws-" + c.name + ".1");
    REQUIRE(fs::exists(page));
    std::string text = read(page);
    CHECK(has(
        text, ".TH WS\\-" + [&] {
          std::string u = c.name;
          for (char& ch : u) {
            ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
          }
          return roff(u);
        }()));
    CHECK(has(main_page, "\\fBws\\-" + roff(c.name) + "\\fR(1)"));
    CHECK(has(bash, " " + c.name + ")"));
    CHECK(has(zsh, "'" + c.name + ":"));
    CHECK(has(fish, "-a " + c.name + " "));
    // Each option of the command (or of its subcommand `sub`): in its page, and completed.
    auto check_options = [&](const std::vector<std::string>& options, const std::string& sub) {
      for (const auto& opt : options) {
        CAPTURE(opt);
        CHECK(has(text, "\\fB" + roff(opt) + "\\fR"));
        CHECK(has(bash, opt));
        CHECK(has(zsh, opt));
        CHECK(fish_has_option(fish, c.name, opt, sub));
      }
    };
    check_options(c.options, {});
    // `ws profile diff`: in the command's page, and completed after the command
    for (const auto& sub : c.subcommands) {
      CAPTURE(sub.name);
      CHECK(has(text, "\\fB" + roff(c.name + " " + sub.name) + "\\fR"));
      CHECK(has(bash, c.name + "/" + sub.name + ")"));
      CHECK(has(zsh, "'" + sub.name + ":"));
      CHECK(has(fish, "__fish_seen_subcommand_from " + sub.name + "'"));
      CHECK(has(fish, "-a " + sub.name + " "));
      check_options(sub.options, sub.name);
    }
  }
  // a command of commands: at least ws profile's
  CHECK(std::any_of(surface.commands.begin(), surface.commands.end(),
                    [](const HelpCommand& c) { return c.subcommands.size() >= 4; }));
  // Internal commands stay out.
  CHECK(!has(main_page, "__daemon"));
  CHECK(!has(bash, "__daemon"));
  CHECK(!fs::exists(g.man / "ws-__man.1"));
}

TEST_CASE("reference: the man pages render") {
  if (sh("command -v man").status != 0) {
    MESSAGE("man is not installed: skipped");
    return;
  }
  Generated g;
  Run page = sh("MANWIDTH=100 man -l " + q((g.man / "ws-run.1").string()) + " 2>&1");
  CHECK(page.status == 0);
  CHECK(has(page.out, "ws-run - Run the agent confined"));
  CHECK(has(page.out, "--writable PATH"));
  CHECK(has(page.out, "COMMAND [ARGS...]"));
  CHECK(has(page.out, "GLOBAL OPTIONS"));
  CHECK(!has(page.out, "warning"));
  Run main_page = sh("MANWIDTH=100 man -l " + q((g.man / "ws.1").string()) + " 2>&1");
  CHECK(has(main_page.out, "ws-status(1)"));
  CHECK(has(main_page.out, "EXIT STATUS"));
}

TEST_CASE("reference: bash completes commands, options, values and the agent's command") {
  Generated g;
  HelpSurface surface = help_surface();
  for (const auto& c : surface.commands) {
    CAPTURE(c.name);
    CHECK(offers(bash_complete(g.bash, {"ws", c.name.substr(0, 2)}), c.name));
    for (const auto& opt : c.options) {
      CAPTURE(opt);
      CHECK(offers(bash_complete(g.bash, {"ws", c.name, opt.substr(0, opt.size() - 1)}), opt));
    }
    for (const auto& sub : c.subcommands) {
      CAPTURE(sub.name);
      CHECK(offers(bash_complete(g.bash, {"ws", c.name, sub.name.substr(0, 2)}), sub.name));
      for (const auto& opt : sub.options) {
        CAPTURE(opt);
        CHECK(offers(bash_complete(g.bash, {"ws", c.name, sub.name, opt.substr(0, opt.size() - 1)}),
                     opt));
      }
    }
  }
  // ws's own commands, its profiles
  CHECK(offers(bash_complete(g.bash, {"ws", "help", "sta"}), "status"));
  CHECK(offers(bash_complete(g.bash, {"ws", "profile", "show", "cl"}), "claude"));
  CHECK(offers(bash_complete(g.bash, {"ws", "run", "--profile", "co"}), "codex"));
  CHECK(bash_complete(g.bash, {"ws", "statu"}) == std::vector<std::string>{"status"});
  CHECK(bash_complete(g.bash, {"ws", "diff", "--color", ""}) ==
        std::vector<std::string>{"auto", "always", "never"});
  CHECK(bash_complete(g.bash, {"ws", "apply", "--conflicts", "=", "m"}) ==
        std::vector<std::string>{"markers"});
  CHECK(bash_complete(g.bash, {"ws", "-C", "/tm"}) == std::vector<std::string>{"/tmp"});
  // After the command's own options: the agent's command, then its files.
  CHECK(offers(bash_complete(g.bash, {"ws", "run", "--writable", "/tmp", "ech"}), "echo"));
  CHECK(offers(bash_complete(g.bash, {"ws", "run", "--", "ech"}), "echo"));
  CHECK(offers(bash_complete(g.bash, {"ws", "run", "sh", "/tm"}), "/tmp"));
  CHECK(!offers(bash_complete(g.bash, {"ws", "run", "sh", "--"}), "--writable"));
  // Workspace names, from the repository at hand.
  TestRepo repo;
  TempDir state;
  std::string env = "XDG_DATA_HOME=" + q((state.path() / "d").string()) + " ";
  REQUIRE(sh(env + q(ws_binary().string()) + " new second", repo.path()).status == 0);
  Run names = sh(env + "PATH=" + q(ws_binary().parent_path().string()) +
                     ":$PATH bash --norc --noprofile -c " +
                     q("source " + q(g.bash.string()) +
                       " && COMP_WORDS=(ws -w s) && COMP_CWORD=2 && _ws && echo "
                       "\"${COMPREPLY[@]}\""),
                 repo.path());
  CHECK(names.out == "second\n");
}

TEST_CASE("reference: bash completes for real, on Tab in an interactive shell") {
  if (sh("command -v tmux").status != 0) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  Generated g;
  Terminal t("PATH=" + q(ws_binary().parent_path().string()) +
             ":$PATH PS1='$ ' bash --norc --noprofile -i");
  t.keys(q("source " + g.bash.string()) + " Enter", "$ ");
  // (tmux drops trailing blanks from the screen: the space after a completed word shows
  // once the next word follows it)
  t.keys("'ws statu' Tab", "$ ws status");
  t.keys("'--js' Tab", "$ ws status --json");
}

TEST_CASE("reference: zsh completes for real, on Tab in an interactive shell") {
  if (sh("command -v tmux && command -v zsh").status != 0) {
    MESSAGE("tmux or zsh is not installed: skipped");
    return;
  }
  Generated g;
  Terminal t("PATH=" + q(ws_binary().parent_path().string()) + ":$PATH zsh -f -i");
  t.keys(q("fpath=(" + g.dir.path().string() +
           " $fpath); autoload -U compinit; compinit -u; PS1='%% '") +
             " Enter",
         "% ");
  t.keys("'ws statu' Tab", "% ws status");
  t.keys("' --' Tab", "--verbose");
  t.keys("C-u 'ws diff --color ' Tab", "always");
  t.keys("C-u 'ws profile di' Tab", "% ws profile diff");
  t.keys("' --js' Tab", "% ws profile diff --json");
}

TEST_CASE("reference: zsh and fish read their scripts, fish completes") {
  Generated g;
  if (sh("command -v zsh").status == 0) {
    Run z = sh("zsh -n " + q(g.zsh.string()));
    CHECK_MESSAGE(z.status == 0, z.err);
  } else {
    MESSAGE("zsh is not installed: its script is checked for coverage only");
  }
  if (sh("command -v fish").status != 0) {
    MESSAGE("fish is not installed: its script is checked for coverage only");
    return;
  }
  auto fish = [&](const std::string& line) {
    Run r = sh("HOME=/tmp PATH=" + q(ws_binary().parent_path().string()) +
               ":$PATH fish --no-config -c " +
               q("source " + q(g.fish.string()) + "; complete -C " + q(line)));
    CHECK_MESSAGE(r.err == "", r.err);
    return r.out;
  };
  CHECK(fish("ws stau").rfind("status\t", 0) == 0);
  CHECK(has(fish("ws status --j"), "--json\t"));
  CHECK(has(fish("ws diff --color="), "--color=always"));
  CHECK(has(fish("ws -C /tmp sta"), "status\t"));
  CHECK(!has(fish("ws status --j"), "--max-disk"));
  // ws run's own options, then the agent's command line, completed as fish completes it
  CHECK(has(fish("ws run --net"), "--network\t"));
  CHECK(has(fish("ws run --writable /tmp ech"), "echo\t"));
  CHECK(has(fish("ws run -- ech"), "echo\t"));
  CHECK(has(fish("ws run echo /tm"), "/tmp/"));
  CHECK(!has(fish("ws run echo --"), "--writable"));
  // a command's commands, then their options and arguments
  CHECK(has(fish("ws profile "), "diff\t"));
  CHECK(!has(fish("ws profile diff "), "reset\t"));
  CHECK(has(fish("ws profile diff --j"), "--json\t"));
  CHECK(has(fish("ws profile show "), "claude\n"));
  CHECK(has(fish("ws help sta"), "status\n"));
}
