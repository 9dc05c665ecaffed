// The policy's rationale, checked with the real tools: each file a rule names is planted the
// way an agent would plant it, the tool that runs it runs it (a marker file appears), and the
// policy gives the verdict the rule promises. No mount: these are about the tools, the verdict
// is filters::decide()'s. A tool that is not installed skips its case with a message.
#include "filters/policy.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/repository.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/tool_files.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;
using ws::filters::Verdict;

namespace {

/// The decision for a new regular file at `path`, as an agent would add it.
ws::filters::Decision added(const std::string& path, const ws::filters::PolicyConfig& c = {}) {
  ws::filters::PathFacts f;
  f.type = ws::filters::ChangeType::Added;
  f.path = path;
  f.mode = S_IFREG | 0644;
  f.size = 64;
  return ws::filters::decide(f, c);
}

} // namespace

TEST_CASE("policy real tools: python3 runs sitecustomize.py from PYTHONPATH - withheld") {
  if (!have("python3")) {
    MESSAGE("skipped: no python3");
    return;
  }
  TempDir dir;
  const auto marker = dir.path() / "ran";
  write_file(dir.path() / "lib" / "sitecustomize.py",
             "open(" + q(marker.string()) + ", 'w').write('x')\n");
  Run r = sh("PYTHONPATH=lib python3 -c pass", dir.path());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(fs::exists(marker)); // nothing named it: `python3 -c pass` ran it
  auto d = added("lib/sitecustomize.py");
  CHECK(d.verdict == Verdict::Withheld);
  CHECK(d.reason == "Python runs it at every start-up: sitecustomize.py");
}

TEST_CASE("policy real tools: python3 runs the import lines of a .pth - withheld") {
  if (!have("python3")) {
    MESSAGE("skipped: no python3");
    return;
  }
  TempDir dir;
  const auto marker = dir.path() / "ran";
  // What site.py does for every site-packages directory, and for an editable install's.
  write_file(dir.path() / "site" / "zz-editable.pth",
             "import os; open(" + q(marker.string()) + ", 'w').write('x')\n");
  Run r = sh("python3 -c 'import site; site.addsitedir(\"site\")'", dir.path());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(fs::exists(marker));
  auto d = added("site/zz-editable.pth");
  CHECK(d.verdict == Verdict::Withheld);
  CHECK(d.reason == "Python runs it at every start-up: zz-editable.pth");
}

TEST_CASE("policy real tools: python3 -m pdb runs .pdbrc from the current directory - flagged") {
  if (!have("python3")) {
    MESSAGE("skipped: no python3");
    return;
  }
  TempDir dir;
  const auto marker = dir.path() / "ran";
  write_file(dir.path() / ".pdbrc", "import os; open(" + q(marker.string()) + ", 'w')\n");
  write_file(dir.path() / "x.py", "pass\n");
  sh("echo q | python3 -m pdb x.py", dir.path());
  CHECK(fs::exists(marker));
  auto d = added(".pdbrc");
  CHECK(d.verdict == Verdict::Flagged);
  CHECK(d.reason == "runs code on your machine: .pdbrc");
}

TEST_CASE("policy real tools: git commit runs a hook in the real core.hooksPath - withheld") {
  ws::gitbridge::LibGit2 libgit2;
  TempDir dir;
  const auto marker = dir.path() / "ran";
  Run r = sh("git init -q repo && cd repo && git config user.email p@example.com && "
             "git config user.name Person && git config core.hooksPath tools/hooks",
             dir.path());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto repo = dir.path() / "repo";
  write_file(repo / "tools" / "hooks" / "pre-commit",
             "#!/bin/sh\ntouch " + q(marker.string()) + "\n", true);
  r = sh("mkdir -p src && echo x > src/a.c && git add src && git commit -qm a", repo);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(fs::exists(marker)); // the person only ran `git commit`

  ws::filters::PolicyConfig config;
  config.hooks_path = ws::gitbridge::hooks_dir_inside(repo).value_or("");
  CHECK(config.hooks_path == "tools/hooks");
  auto d = added("tools/hooks/pre-commit", config);
  CHECK(d.verdict == Verdict::Withheld);
  CHECK(d.reason == "in core.hooksPath 'tools/hooks' (git runs these on commit, push...)");
}

TEST_CASE("policy real tools: cmake --preset includes what CMakePresets.json names - flagged") {
  if (!have("cmake")) {
    MESSAGE("skipped: no cmake");
    return;
  }
  TempDir dir;
  const auto marker = dir.path() / "ran";
  write_file(dir.path() / "CMakeLists.txt",
             "cmake_minimum_required(VERSION 3.20)\nproject(p NONE)\n");
  write_file(dir.path() / "evil.txt", "file(WRITE " + marker.string() + " x)\n");
  write_file(dir.path() / "CMakePresets.json",
             R"({"version": 3, "configurePresets": [{"name": "p", "binaryDir": "out",
                 "cacheVariables": {"CMAKE_PROJECT_INCLUDE": "${sourceDir}/evil.txt"}}]})");
  Run r = sh("cmake --preset p >/dev/null", dir.path());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(fs::exists(marker)); // evil.txt matches no rule: the preset is what must be seen
  CHECK(added("evil.txt").verdict == Verdict::Transfer);
  auto d = added("CMakePresets.json");
  CHECK(d.verdict == Verdict::Flagged);
  CHECK(d.reason == "runs code on your machine: CMakePresets.json");
}

TEST_CASE("policy real tools: rustup runs the toolchain rust-toolchain.toml names - withheld") {
  if (!have("rustup") || !have("cargo")) {
    MESSAGE("skipped: no rustup");
    return;
  }
  TempDir dir;
  const auto marker = dir.path() / "ran";
  const auto tc = dir.path() / "tc";
  write_file(tc / "bin" / "cargo", "#!/bin/sh\ntouch " + q(marker.string()) + "\n", true);
  write_file(tc / "bin" / "rustc", "#!/bin/sh\ntouch " + q(marker.string()) + "\n", true);
  write_file(dir.path() / "proj" / "rust-toolchain.toml",
             "[toolchain]\npath = \"" + tc.string() + "\"\n");
  sh("cargo --version", dir.path() / "proj"); // only what the person types
  CHECK(fs::exists(marker));
  auto d = added("rust-toolchain.toml");
  CHECK(d.verdict == Verdict::Withheld);
  CHECK(d.reason == "rustup runs the toolchain it names for every cargo and rustc: "
                    "rust-toolchain.toml");
}
