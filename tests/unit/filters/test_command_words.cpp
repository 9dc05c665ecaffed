// filters::command_words, names_a_file and project_path_of: the project files a command line
// of the person's configs names (what the policy withholds when the agent changes one).
#include "filters/command_words.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using ws::filters::project_path_of;

namespace {

/// The words of `line` that name a file, as project paths run from `dir`.
std::vector<std::string> named(const std::string& line, const std::string& dir = "") {
  std::vector<ws::filters::CommandWord> words;
  ws::filters::command_words(line, words);
  std::vector<std::string> out;
  for (const auto& w : words) {
    if (ws::filters::names_a_file(w)) {
      if (auto p = project_path_of(w.text, dir, "/home/p/proj")) {
        out.push_back(*p);
      }
    }
  }
  return out;
}

} // namespace

TEST_CASE("filters::command_words finds the project files a hook's command line runs") {
  CHECK(named("python3 tools/check.py --fix") == std::vector<std::string>{"tools/check.py"});
  CHECK(named("bash scripts/lint.sh") == std::vector<std::string>{"scripts/lint.sh"});
  CHECK(named("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh") ==
        std::vector<std::string>{".claude/hooks/x.sh"});
  CHECK(named("python3 ${workspaceFolder}/tools/w.py") == std::vector<std::string>{"tools/w.py"});
  CHECK(named("sh ./tools/y.sh {push_files}") == std::vector<std::string>{"tools/y.sh"});
  CHECK(named("python3 check.py") == std::vector<std::string>{"check.py"});
  CHECK(named("/home/p/proj/tools/abs.sh") == std::vector<std::string>{"tools/abs.sh"});
  // Commands found on PATH, options, other variables, the home, globs, outside: none.
  CHECK(named("npm test && eslint --max-warnings=0 .").empty());
  CHECK(named("sh $HOME/x.sh ~/y.sh ../outside.sh /etc/profile tools/*.sh").empty());
  // Several commands, and a quoted command line.
  CHECK(named("cd web; sh -c 'node ../tools/a.js' | tee out.log", "web") ==
        std::vector<std::string>{"tools/a.js", "web/out.log"});
  // Newlines separate commands: the next line's first word is a command again.
  CHECK(named("true\nrun.sh") == std::vector<std::string>{});
}

TEST_CASE("filters::project_path_of normalises lexically and never leaves the project") {
  CHECK(project_path_of("a/./b/../c.sh", "", "/p") == std::optional<std::string>("a/c.sh"));
  CHECK(project_path_of("../x.sh", "sub", "/p") == std::optional<std::string>("x.sh"));
  CHECK(!project_path_of("../../x.sh", "sub", "/p"));
  CHECK(!project_path_of(".", "", "/p"));
  CHECK(!project_path_of("/p", "", "/p"));
  CHECK(!project_path_of("/pq/x", "", "/p"));
  CHECK(project_path_of("/p/x", "", "/p/") == std::optional<std::string>("x"));
}
