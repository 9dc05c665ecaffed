// A view served by a daemon of another build of ws (the person rebuilt or upgraded ws while
// the view stayed mounted): every command that uses it says so once, with the fix, and
// `ws list` shows it. The other build is a copy of this ws whose build-id differs, as a
// rebuild's does.
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <string>

using namespace ws::test;

namespace {

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++n;
  }
  return n;
}

/// This build as `ws --version` names it: "0.1.0 (commit ..., build-id 2afa94211cc0)".
std::string identity_of(const std::string& binary) {
  std::string line = sh(q(binary) + " --version").out;
  line = line.substr(0, line.find('\n'));
  return line.rfind("ws ", 0) == 0 ? line.substr(3) : "";
}

/// A copy of the ws under test at `to`, its build-id's first byte changed: another build.
void write_other_build(const std::filesystem::path& to) {
  std::string id = identity_of(ws_binary().string());
  size_t at = id.find("build-id ");
  REQUIRE(at != std::string::npos);
  std::string hex = id.substr(at + 9, 12);
  std::string bytes;
  for (size_t k = 0; k + 1 < hex.size(); k += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(k, 2), nullptr, 16)));
  }
  std::ifstream in(ws_binary(), std::ios::binary);
  std::string elf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t where = elf.find(bytes);
  REQUIRE(where != std::string::npos);
  REQUIRE(elf.find(bytes, where + 1) == std::string::npos);
  elf[where] = static_cast<char>(~elf[where]);
  std::ofstream(to, std::ios::binary) << elf;
  REQUIRE(::chmod(to.c_str(), 0755) == 0);
}

} // namespace

TEST_CASE("daemon build: a view served by another build of ws is named once, with the fix") {
  TestRepo repo;
  MountedWorkspace w(repo);
  CHECK(w.ws("status").err == ""); // this build's own daemon: nothing to say
  TempDir bin;
  std::filesystem::path other = bin.path() / "ws";
  write_other_build(other);
  std::string mine = identity_of(ws_binary().string());
  std::string theirs = identity_of(other.string());
  REQUIRE(!theirs.empty());
  REQUIRE(theirs != mine);

  // The view served again by the other build, as if this ws had been rebuilt since.
  w.unmount();
  std::string other_ws = w.ws_command();
  other_ws.replace(other_ws.find(q(ws_binary().string())), q(ws_binary().string()).size(),
                   q(other.string()));
  REQUIRE(sh(other_ws + " mount", repo.path()).status == 0);
  w.mount(); // this ws finds it mounted, and says whose it is
  REQUIRE(w.in_view("echo new > new.txt").status == 0);
  std::string warning = "ws: warning: workspace 'default' is served by a daemon (pid " +
                        std::to_string(w.daemon_pid()) + ") of another build of ws: " + theirs +
                        "; this ws is " + mine + ". What changed since does not apply";
  for (const char* args : {"mount", "status", "log", "checkpoint -m x", "reset new.txt"}) {
    CAPTURE(args);
    Run r = w.ws(args);
    CHECK(r.status == 0);
    check_has_all(r.err, {warning, "hint: ws umount && ws mount   (ws umount --force if"});
    CHECK(count_of(r.err, "ws: warning:") == 1); // once per command, however many requests
  }
  CHECK(sh(other_ws + " status", repo.path()).err == ""); // its own daemon, for that build

  Run list = w.ws("list");
  check_has_all(list.out, {"* default          mounted (other ws)",
                           "(other ws): its daemon is from another build of ws than this one, " +
                               mine + ": what changed since does not apply to its view"});
  Run json = sh(w.ws_command() + " list --json | python3 -c 'import json,sys; d=json.load(sys."
                                 "stdin)[0][\"daemon\"]; print(d[\"build\"], d[\"this_build\"])'");
  CHECK(json.out == theirs + " False\n");

  // A daemon from before builds were recorded: its lock file holds only its pid.
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  std::ofstream(w.state_dir() / "daemon.lock") << pid << "\n";
  check_has_all(w.ws("status").err, {"of another build of ws: an older one, which does not "
                                     "record its build; this ws is " +
                                     mine});

  // The fix as printed: served by this build again, nothing more to say.
  REQUIRE(w.ws("umount").status == 0);
  w.mount();
  CHECK(w.ws("status").err == "");
  CHECK(w.ws("list").out.find("other ws") == std::string::npos);
  Run again = sh(w.ws_command() + " list --json | python3 -c 'import json,sys; d=json.load(sys."
                                  "stdin)[0][\"daemon\"]; print(d[\"build\"], d[\"this_build\"])'");
  CHECK(again.out == mine + " True\n");
}

TEST_CASE("daemon build: a profile's config layer served by another build is mounted afresh") {
  Person p("");
  std::filesystem::create_directories(p.home() / ".claude");
  std::filesystem::create_directories(p.base() / "bin");
  std::ofstream(p.base() / "bin" / "claude") << "#!/bin/sh\nls ~/.claude >/dev/null\n";
  std::filesystem::permissions(p.base() / "bin" / "claude", std::filesystem::perms(0755));
  std::string path = "PATH=" + q((p.base() / "bin").string()) + ":$PATH";
  Run first = p.ws("run --network=off -- claude", path);
  REQUIRE_MESSAGE(first.status == 0, first.err);
  // The layer's daemon stays mounted; make it one from before builds were recorded.
  Run locks = sh("find " + q((p.data() / "ws" / "profiles").string()) + " -name daemon.lock");
  REQUIRE(!locks.out.empty());
  std::string lock = locks.out.substr(0, locks.out.find('\n'));
  int old_pid = 0;
  std::ifstream(lock) >> old_pid;
  REQUIRE(old_pid > 0);
  std::ofstream(lock) << old_pid << "\n";
  // The next session, alone, serves it with this ws: a new daemon, nothing to warn about.
  Run second = p.ws("run --network=off -- claude", path);
  CHECK_MESSAGE(second.status == 0, second.err);
  CHECK(second.err.find("another build of ws") == std::string::npos);
  int new_pid = 0;
  std::ifstream(lock) >> new_pid;
  CHECK(new_pid > 0);
  CHECK(new_pid != old_pid);
  CHECK(p.ws("profile umount claude").status == 0);
}
