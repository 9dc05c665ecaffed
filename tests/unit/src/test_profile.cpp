// Agent profiles as data (src/profile): the built-in ones, what ~/.config/ws/config changes
// and adds, bad entries; and which settings keys a change of an agent's config touches.
#include "gitbridge/repository.hpp"
#include "src/cli/error.hpp"
#include "src/profile/config_facts.hpp"
#include "src/profile/profile.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fstream>

using namespace ws;
namespace fs = std::filesystem;

namespace {

std::vector<Profile> with_user_file(const std::string& text, const fs::path& dir) {
  fs::path file = dir / "config";
  std::ofstream(file) << text;
  return load_profiles(file, "/home/me");
}

std::string keys_of(const std::vector<std::vector<std::string>>& keys) {
  std::string out;
  for (const auto& k : keys) {
    std::string one;
    for (const auto& part : k) {
      one += (one.empty() ? "" : ".") + part;
    }
    out += (out.empty() ? "" : " ") + one;
  }
  return out;
}

} // namespace

TEST_CASE("profile: the built-in claude and codex profiles") {
  gitbridge::LibGit2 libgit2;
  std::vector<Profile> all = load_profiles("", "/home/me");
  auto claude = find_profile(all, "claude");
  REQUIRE(claude);
  CHECK(claude->origin == "built in");
  CHECK(claude->config == std::vector<fs::path>{"/home/me/.claude"});
  CHECK(claude->env == EnvList{{"CLAUDE_CONFIG_DIR", "/home/me/.claude"}});
  REQUIRE(claude->seeds.size() == 1);
  CHECK(claude->seeds[0].first == "/home/me/.claude/.claude.json");
  CHECK(claude->seeds[0].second == "/home/me/.claude.json");
  CHECK(claude->default_network().rfind("allow:api.anthropic.com,", 0) == 0);
  auto codex = profile_for_command(all, "/usr/local/bin/codex");
  REQUIRE(codex);
  CHECK(codex->name == "codex");
  CHECK(codex->args == std::vector<std::string>{"-c", "sandbox_mode=\"danger-full-access\""});
  CHECK(with_profile_args(*codex, {"codex", "exec", "fix"}) ==
        std::vector<std::string>{"codex", "-c", "sandbox_mode=\"danger-full-access\"", "exec",
                                 "fix"});
  CHECK_FALSE(profile_for_command(all, "claude-helper"));
}

TEST_CASE("profile: ~/.config/ws/config adds to lists, resets them, adds profiles") {
  gitbridge::LibGit2 libgit2;
  test::TempDir dir;
  std::vector<Profile> all = with_user_file("[profile \"claude\"]\n"
                                            "\thost =\n"
                                            "\thost = models.example.test\n"
                                            "\tcache = ~/.cache/pip\n"
                                            "[profile \"aider\"]\n"
                                            "\tcommand = aider\n"
                                            "\tconfig = ~/.aider\n"
                                            "\tenv = AIDER_HOME=~/.aider\n",
                                            dir.path());
  auto claude = find_profile(all, "claude");
  REQUIRE(claude);
  CHECK(claude->hosts == std::vector<std::string>{"models.example.test"});
  CHECK(claude->default_network() == "allow:models.example.test");
  CHECK(claude->caches.back() == "/home/me/.cache/pip");
  CHECK(claude->caches.size() == 3); // the built-in two, then this one
  CHECK(claude->origin.find("built in, changed in ") == 0);
  auto aider = find_profile(all, "aider");
  REQUIRE(aider);
  CHECK(aider->env == EnvList{{"AIDER_HOME", "/home/me/.aider"}});
  CHECK(aider->default_network() == "off"); // no host: nothing may be reached
}

TEST_CASE("profile: a bad entry names the file and what to write") {
  gitbridge::LibGit2 libgit2;
  test::TempDir dir;
  auto error_of = [&](const std::string& text) {
    try {
      with_user_file(text, dir.path());
    } catch (const Error& e) {
      return std::string(e.what()) + " | " + e.hint();
    }
    return std::string("no error");
  };
  CHECK(error_of("[profile \"x\"]\n\tcomand = x\n").find("unknown key profile.x.comand") !=
        std::string::npos);
  CHECK(error_of("[profile \"x\"]\n\tconfig = relative/dir\n").find("not an absolute path") !=
        std::string::npos);
  CHECK(error_of("[profile \"x\"]\n\tconfig = ~/.x\n\tseed = ~/.y/f from ~/f\n")
            .find("is not inside one of its config directories") != std::string::npos);
  CHECK(error_of("[profile \"none\"]\n\tcommand = x\n").find("invalid profile name 'none'") !=
        std::string::npos);
  CHECK(error_of("[profile \"x\"\n").find("cannot read the agent profiles") != std::string::npos);
}

TEST_CASE("profile: the settings keys a change touches, in JSON and TOML") {
  bool bad = false;
  CHECK(keys_of(changed_settings_keys(
            R"j({"theme": "dark", "permissions": {"deny": ["Bash(rm:*)"]}})j",
            R"({"theme": "dark", "hooks": {"SessionStart": [{"hooks": []}]}})", false, bad)) ==
        "hooks.SessionStart permissions.deny");
  CHECK_FALSE(bad);
  CHECK(keys_of(changed_settings_keys(std::nullopt, R"({"mcpServers": {"x": {"command": "sh"}}})",
                                      false, bad)) == "mcpServers.x.command");
  changed_settings_keys(std::nullopt, "{not json", false, bad);
  CHECK(bad);
  CHECK(keys_of(changed_settings_keys("model = \"o3\"\n[model_providers.fake]\nname = \"F\"\n",
                                      "model = \"o3\"\n[model_providers.fake]\nname = \"F\"\n\n"
                                      "[mcp_servers.\"evil.one\"]\ncommand = \"sh\"\n"
                                      "notify = [\"sh\"]\n",
                                      true, bad)) ==
        "mcp_servers.evil.one mcp_servers.evil.one.command mcp_servers.evil.one.notify");
  CHECK(keys_of(changed_settings_keys("", "mcp_servers.x.command = \"sh\"\n", true, bad)) ==
        "mcp_servers.x.command");
}
