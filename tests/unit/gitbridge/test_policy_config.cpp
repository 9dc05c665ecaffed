// The [ws] settings, read from real config files on disk with libgit2.
#include "gitbridge/policy_config.hpp"
#include "gitbridge/repository.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

using ws::filters::PolicyConfig;
using ws::gitbridge::load_policy_config;

namespace {

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

/// Sets (or unsets) an environment variable for one test, and puts it back.
class EnvVar {
public:
  EnvVar(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) {
      m_old = old;
    }
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~EnvVar() { m_old ? ::setenv(m_name, m_old->c_str(), 1) : ::unsetenv(m_name); }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

/// The message of what `fn` throws as GitError, or "" when it does not throw.
template <class Fn> std::string git_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const ws::gitbridge::GitError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("gitbridge::load_policy_config defaults when no file exists") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  PolicyConfig c = load_policy_config(dir.path() / "git", dir.path() / "user" / "config");
  CHECK(c.level == PolicyConfig::Level::Default);
  CHECK(c.max_file_size == 10ull * 1024 * 1024);
  CHECK(c.withhold.empty());
  CHECK(c.flag.empty());
  // An empty user file name means: only the repository's config.
  CHECK(load_policy_config(dir.path() / "git", {}).level == PolicyConfig::Level::Default);
}

TEST_CASE("gitbridge::load_policy_config reads both files and the repository wins") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  const auto git_dir = dir.path() / "repo" / ".git";
  const auto user = dir.path() / "xdg" / "ws" / "config";
  write_file(git_dir / "config", "[core]\n\tbare = false\n"
                                 "[ws]\n"
                                 "\tpolicy = strict\n"
                                 "\tmaxFileSize = 5m\n"
                                 "\twithhold = *.log\n"
                                 "\twithhold = /tmp/\n"
                                 "\tflag = scripts/\n");
  write_file(user, "[ws]\n"
                   "\tpolicy = default\n"
                   "\tmaxFileSize = 1k\n"
                   "\twithhold = *.bak\n"
                   "\tflag = ci/\n");
  PolicyConfig c = load_policy_config(git_dir, user);
  CHECK(c.level == PolicyConfig::Level::Strict);
  CHECK(c.max_file_size == 5ull * 1024 * 1024);
  CHECK(c.withhold == std::vector<std::string>{"*.bak", "*.log", "/tmp/"});
  CHECK(c.flag == std::vector<std::string>{"ci/", "scripts/"});

  // Only the user file sets them: its values hold.
  write_file(git_dir / "config", "[core]\n\tbare = false\n");
  c = load_policy_config(git_dir, user);
  CHECK(c.level == PolicyConfig::Level::Default);
  CHECK(c.max_file_size == 1024);
  CHECK(c.withhold == std::vector<std::string>{"*.bak"});
}

TEST_CASE("gitbridge::load_policy_config takes git's spelling") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  const auto git_dir = dir.path() / "git";
  write_file(git_dir / "config", "[WS]\n  Policy = STRICT\n  MAXFILESIZE = 1g\n"
                                 "  Withhold = \"with space/\"\n");
  PolicyConfig c = load_policy_config(git_dir, {});
  CHECK(c.level == PolicyConfig::Level::Strict);
  CHECK(c.max_file_size == 1024ull * 1024 * 1024);
  CHECK(c.withhold == std::vector<std::string>{"with space/"});

  write_file(git_dir / "config", "[ws]\n  maxFileSize = 0\n");
  CHECK(load_policy_config(git_dir, {}).max_file_size == 0);
}

TEST_CASE("gitbridge::load_policy_config reads what git config wrote") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  auto r = ws::test::sh("git init -q repo && cd repo && git config ws.policy strict && "
                        "git config ws.maxFileSize 2m && git config --add ws.withhold '*.tmp' && "
                        "git config --add ws.withhold 'out/' && git config --add ws.flag tools/",
                        dir.path());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  PolicyConfig c = load_policy_config(dir.path() / "repo" / ".git", {});
  CHECK(c.level == PolicyConfig::Level::Strict);
  CHECK(c.max_file_size == 2ull * 1024 * 1024);
  CHECK(c.withhold == std::vector<std::string>{"*.tmp", "out/"});
  CHECK(c.flag == std::vector<std::string>{"tools/"});
}

TEST_CASE("gitbridge::load_policy_config empty value resets a pattern list") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  const auto git_dir = dir.path() / "git";
  const auto user = dir.path() / "user";
  write_file(user, "[ws]\n\twithhold = *.bak\n\tflag = ci/\n");
  write_file(git_dir / "config", "[ws]\n\twithhold =\n\twithhold = *.log\n");
  PolicyConfig c = load_policy_config(git_dir, user);
  CHECK(c.withhold == std::vector<std::string>{"*.log"});
  CHECK(c.flag == std::vector<std::string>{"ci/"});
}

TEST_CASE("gitbridge::load_policy_config rejects bad values naming file and key") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  const auto git_dir = dir.path() / "git";
  const auto user = dir.path() / "user";
  const std::string local_file = (git_dir / "config").string();

  SUBCASE("unknown policy") {
    write_file(git_dir / "config", "[ws]\n\tpolicy = lenient\n");
    std::string msg = git_error_of([&] { load_policy_config(git_dir, user); });
    CHECK(msg.find("invalid ws.policy 'lenient'") != std::string::npos);
    CHECK(msg.find(local_file) != std::string::npos);
    CHECK(msg.find("expected 'default' or 'strict'") != std::string::npos);
  }
  SUBCASE("unknown policy in the user file") {
    write_file(user, "[ws]\n\tpolicy = paranoid\n");
    std::string msg = git_error_of([&] { load_policy_config(git_dir, user); });
    CHECK(msg.find("'paranoid'") != std::string::npos);
    CHECK(msg.find(user.string()) != std::string::npos);
  }
  SUBCASE("policy without a value") {
    write_file(git_dir / "config", "[ws]\n\tpolicy\n");
    CHECK(git_error_of([&] { load_policy_config(git_dir, user); }).find("invalid ws.policy") !=
          std::string::npos);
  }
  SUBCASE("size that is not a number") {
    write_file(git_dir / "config", "[ws]\n\tmaxFileSize = huge\n");
    std::string msg = git_error_of([&] { load_policy_config(git_dir, user); });
    CHECK(msg.find("invalid ws.maxFileSize 'huge'") != std::string::npos);
    CHECK(msg.find(local_file) != std::string::npos);
  }
  SUBCASE("negative size") {
    write_file(user, "[ws]\n\tmaxFileSize = -1\n");
    std::string msg = git_error_of([&] { load_policy_config(git_dir, user); });
    CHECK(msg.find("must not be negative") != std::string::npos);
    CHECK(msg.find(user.string()) != std::string::npos);
  }
  SUBCASE("pattern without a value") {
    write_file(user, "[ws]\n\tflag\n");
    std::string msg = git_error_of([&] { load_policy_config(git_dir, user); });
    CHECK(msg.find("ws.flag") != std::string::npos);
    CHECK(msg.find("has no value") != std::string::npos);
  }
  SUBCASE("broken syntax") {
    write_file(git_dir / "config", "[ws\n\tpolicy = strict\n");
    std::string msg = git_error_of([&] { load_policy_config(git_dir, user); });
    CHECK(msg.find("cannot read git config '" + local_file + "'") != std::string::npos);
  }
}

TEST_CASE("gitbridge::default_user_config_file follows XDG then HOME") {
  EnvVar home("HOME", "/home/someone");
  {
    EnvVar xdg("XDG_CONFIG_HOME", "/xdg");
    CHECK(ws::gitbridge::default_user_config_file() == "/xdg/ws/config");
  }
  {
    EnvVar xdg("XDG_CONFIG_HOME", "relative/is/ignored");
    CHECK(ws::gitbridge::default_user_config_file() == "/home/someone/.config/ws/config");
  }
  {
    EnvVar xdg("XDG_CONFIG_HOME", nullptr);
    CHECK(ws::gitbridge::default_user_config_file() == "/home/someone/.config/ws/config");
    EnvVar no_home("HOME", nullptr);
    CHECK(ws::gitbridge::default_user_config_file().empty());
  }
}

TEST_CASE("gitbridge::load_config_size reads ws.maxDisk with git's suffixes") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  auto git_dir = dir.path() / "repo" / ".git";
  auto user = dir.path() / "user" / "config";
  using ws::gitbridge::load_config_size;
  CHECK(!load_config_size(git_dir, user, "ws.maxDisk")); // neither file exists
  write_file(user, "[ws]\n\tmaxDisk = 10g\n");
  CHECK(load_config_size(git_dir, user, "ws.maxDisk") == 10ull << 30);
  write_file(git_dir / "config", "[ws]\n\tmaxdisk = 500M\n"); // the repository's wins
  CHECK(load_config_size(git_dir, user, "ws.maxDisk") == 500ull << 20);
  write_file(git_dir / "config", "[ws]\n\tmaxDisk = 0\n");
  CHECK(load_config_size(git_dir, user, "ws.maxDisk") == 0);
  write_file(git_dir / "config", "[ws]\n\tmaxDisk = lots\n");
  std::string msg = git_error_of([&] { load_config_size(git_dir, user, "ws.maxDisk"); });
  CHECK(msg.find("invalid ws.maxDisk 'lots'") != std::string::npos);
}

TEST_CASE("gitbridge::load_config_count reads a count, and its errors speak of a count") {
  // ws.checkpointKeep once said "expected a size such as 10m" and "0 means no limit".
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  auto git_dir = dir.path() / "repo" / ".git";
  auto user = dir.path() / "user" / "config";
  using ws::gitbridge::load_config_count;
  CHECK(!load_config_count(git_dir, user, "ws.checkpointKeep"));
  write_file(user, "[ws]\n\tcheckpointKeep = 20\n");
  CHECK(load_config_count(git_dir, user, "ws.checkpointKeep") == 20);
  write_file(git_dir / "config", "[ws]\n\tcheckpointKeep = 7\n"); // the repository's wins
  CHECK(load_config_count(git_dir, user, "ws.checkpointKeep") == 7);
  write_file(git_dir / "config", "[ws]\n\tcheckpointKeep = abc\n");
  std::string msg = git_error_of([&] { load_config_count(git_dir, user, "ws.checkpointKeep"); });
  CHECK(msg.find("invalid ws.checkpointKeep 'abc'") != std::string::npos);
  CHECK(msg.find("expected a whole number") != std::string::npos);
  CHECK(msg.find("size") == std::string::npos);
  write_file(git_dir / "config", "[ws]\n\tcheckpointKeep = -5\n");
  msg = git_error_of([&] { load_config_count(git_dir, user, "ws.checkpointKeep"); });
  CHECK(msg.find("must not be negative") != std::string::npos);
  CHECK(msg.find("no limit") == std::string::npos);
}

TEST_CASE("gitbridge::hooks_dir_inside resolves core.hooksPath as git does") {
  ws::gitbridge::LibGit2 libgit2;
  ws::test::TempDir dir;
  // Canonical, so that a symlinked temporary directory cannot make "inside" look outside.
  const auto root = std::filesystem::canonical(dir.path());
  const auto repo = root / "repo";
  auto r = ws::test::sh("git init -q repo && mkdir -p repo/tools/hooks outside", root);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto set = [&](const std::string& value) {
    auto s = ws::test::sh("git -C repo config core.hooksPath '" + value + "'", root);
    REQUIRE_MESSAGE(s.status == 0, s.err);
  };
  using ws::gitbridge::hooks_dir_inside;

  SUBCASE("unset") {
    CHECK(hooks_dir_inside(repo) == std::nullopt);
  }
  SUBCASE("empty") {
    set("");
    CHECK(hooks_dir_inside(repo) == std::nullopt);
  }
  SUBCASE("relative: from the top of the worktree") {
    set("tools/hooks/");
    CHECK(hooks_dir_inside(repo) == "tools/hooks");
    set("./tools/../tools/hooks");
    CHECK(hooks_dir_inside(repo) == "tools/hooks");
    set("not/made/yet"); // git would run hooks there once they exist
    CHECK(hooks_dir_inside(repo) == "not/made/yet");
    set(".");
    CHECK(hooks_dir_inside(repo) == ".");
  }
  SUBCASE("relative, leaving the worktree") {
    set("../outside");
    CHECK(hooks_dir_inside(repo) == std::nullopt);
  }
  SUBCASE("absolute inside") {
    set((repo / "tools" / "hooks").string());
    CHECK(hooks_dir_inside(repo) == "tools/hooks");
  }
  SUBCASE("absolute outside") {
    set((root / "outside").string());
    CHECK(hooks_dir_inside(repo) == std::nullopt);
  }
  SUBCASE("~ expands from HOME") {
    EnvVar home("HOME", root.c_str());
    set("~/repo/tools/hooks");
    CHECK(hooks_dir_inside(repo) == "tools/hooks");
    set("~/outside");
    CHECK(hooks_dir_inside(repo) == std::nullopt);
  }
  SUBCASE("~user expands from the password database") {
    set("~root/x"); // root's home is not inside a temporary directory
    CHECK(hooks_dir_inside(repo) == std::nullopt);
  }
  SUBCASE("through a symlink in the worktree: where writes land") {
    std::filesystem::create_directory_symlink("tools", repo / "link");
    set("link/hooks");
    CHECK(hooks_dir_inside(repo) == "tools/hooks");
  }
  SUBCASE("a symlink leaving the worktree") {
    std::filesystem::create_directory_symlink(root / "outside", repo / "away");
    set("away");
    CHECK(hooks_dir_inside(repo) == std::nullopt);
  }
  SUBCASE("from an included file, as git reads it") {
    write_file(root / "inc.cfg", "[core]\n\thooksPath = tools/hooks\n");
    auto s = ws::test::sh("git -C repo config include.path " + (root / "inc.cfg").string(), root);
    REQUIRE_MESSAGE(s.status == 0, s.err);
    CHECK(hooks_dir_inside(repo) == "tools/hooks");
  }
  SUBCASE("not a repository") {
    CHECK(git_error_of([&] {
            hooks_dir_inside(root / "outside");
          }).find("cannot open repository") != std::string::npos);
  }
}

TEST_CASE("libgit2's init skips the CA bundle, and libgit2 still reads config") {
  // ws never talks TLS through libgit2: the ~10 ms mbedTLS spends parsing every certificate
  // of the system's bundle at init is spared (gitbridge/libgit2_init.cpp).
  int before = ws::gitbridge::ca_bundle_loads_skipped();
  ws::gitbridge::LibGit2 libgit2;
  if (libgit2.did_init()) { // no other init was live in this process
    CHECK(ws::gitbridge::ca_bundle_loads_skipped() == before + 1);
  }
  ws::test::TempDir dir;
  write_file(dir.path() / "config", "[ws]\n\tpolicy = strict\n");
  CHECK(load_policy_config(dir.path(), dir.path() / "none").level == PolicyConfig::Level::Strict);
}
