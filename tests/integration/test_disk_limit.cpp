// A workspace's disk limit (ws.maxDisk, set_disk_limit): past it the agent's writes get
// ENOSPC, what it wrote before stays intact, removing gives the room back, and the daemon
// keeps serving (docs/filesystem.md, "Disk limit").
#include "src/cli/error.hpp"
#include "src/daemon/control_socket.hpp"
#include "src/daemon/daemon.hpp"
#include "src/workspace/workspace.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

using namespace ws::test;

namespace {

constexpr auto npos = std::string::npos;
constexpr const char* k_full = "No space left on device";

/// "USED LIMIT" of the daemon serving `w`, as two numbers.
std::pair<uint64_t, uint64_t> disk_usage(const MountedWorkspace& w) {
  auto reply = ws::control_call(w.state_dir(), {"disk-usage"});
  REQUIRE(reply);
  uint64_t used = std::strtoull(reply->c_str(), nullptr, 10);
  uint64_t limit = std::strtoull(reply->c_str() + reply->find(' ') + 1, nullptr, 10);
  return {used, limit};
}

ws::Workspace workspace_of(const TestRepo& repo) {
  return ws::Workspace::locate(repo.path(), "default");
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

} // namespace

TEST_CASE("disk limit: ws.maxDisk stops writes at the limit - rm gives the room back") {
  TestRepo repo;
  REQUIRE(sh("git config ws.maxDisk 10M", repo.path()).status == 0);
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  CHECK(disk_usage(w).second == 10u << 20);

  REQUIRE(w.in_view("dd if=/dev/urandom of=first bs=1M count=4 2>/dev/null && "
                    "sha256sum first > first.sum")
              .status == 0);
  Run big = w.in_view("dd if=/dev/zero of=big bs=1M count=20 2>&1");
  INFO(big.out);
  CHECK(big.status != 0);
  CHECK(big.out.find(k_full) != npos);
  auto [used, limit] = disk_usage(w);
  CHECK(used <= limit);
  CHECK(used > (9u << 20)); // it stopped at the limit, not before

  // Less than a block left (a 1 MiB write stopped up to 1 MiB from the limit)...
  w.in_view("dd if=/dev/zero of=big bs=4k count=1000 oflag=append conv=notrunc 2>/dev/null");
  // ...so nothing new, no copy-up of a real-tree file, no room reserved ahead.
  Run more = w.in_view("exec 2>&1; mkdir d; touch new; echo x | cat >> README.md; "
                       "fallocate -l 8M first; cp first copy; true");
  CHECK_MESSAGE(count(more.out, k_full) == 5, more.out);
  // ...but reading, truncating and removing work, and the daemon serves on.
  CHECK(w.in_view("sha256sum -c first.sum").status == 0);
  CHECK(w.in_view("truncate -s 1M big && rm big").status == 0);
  CHECK(disk_usage(w).first < (5u << 20));
  Run again = w.in_view("dd if=/dev/zero of=again bs=1M count=3 2>&1 && echo x >> README.md");
  CHECK_MESSAGE(again.status == 0, again.out);
  CHECK(w.in_view("sha256sum -c first.sum").status == 0);
  Run st = w.ws("status");
  CHECK(st.status == 0);
  CHECK(st.out.find("A again") != npos);
  CHECK(st.out.find("M README.md") != npos);
  CHECK(repo.snapshot() == before); // the real tree never saw any of it
}

TEST_CASE("disk limit: set_disk_limit changes the limit of a running view") {
  TestRepo repo;
  MountedWorkspace w(repo);
  auto [used, limit] = disk_usage(w);
  CHECK(limit > 0); // the default: 20 GiB, or the free space less a margin
  CHECK(limit <= 20ull << 30);

  ws::set_disk_limit(workspace_of(repo), 2u << 20);
  CHECK(disk_usage(w).second == 2u << 20);
  Run big = w.in_view("dd if=/dev/zero of=big bs=1M count=4 2>&1");
  CHECK(big.status != 0);
  CHECK(big.out.find(k_full) != npos);
  ws::set_disk_limit(workspace_of(repo), 0); // none
  CHECK(w.in_view("dd if=/dev/zero of=big bs=1M count=4 2>/dev/null").status == 0);
  CHECK(w.in_view("wc -c < big").out == "4194304\n");

  w.unmount();
  CHECK_THROWS_WITH_AS(ws::set_disk_limit(workspace_of(repo), 1), doctest::Contains("not mounted"),
                       ws::Error);
}

TEST_CASE("disk limit: a workspace already past its limit mounts and can be cleaned up") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("dd if=/dev/zero of=big bs=1M count=3 2>/dev/null && mkdir -p a/b && "
                    "echo small > a/b/small")
              .status == 0);
  w.unmount();
  REQUIRE(sh("git config ws.maxDisk 1m", repo.path()).status == 0);
  w.mount();
  auto [used, limit] = disk_usage(w); // counted by the walk at mount
  CHECK(limit == 1u << 20);
  CHECK(used >= 3u << 20);
  CHECK(w.in_view("cat a/b/small").out == "small\n");
  CHECK(w.in_view("exec 2>&1; echo more | cat >> a/b/small").out.find(k_full) != npos);
  CHECK(w.in_view("rm big && echo more >> a/b/small && cat a/b/small").out == "small\nmore\n");
  CHECK(disk_usage(w).first < (1u << 20));
}

TEST_CASE("disk limit: a bad ws.maxDisk is reported when mounting") {
  TestRepo repo;
  REQUIRE(sh("git config ws.maxDisk lots", repo.path()).status == 0);
  CHECK_THROWS_WITH(MountedWorkspace{repo}, doctest::Contains("invalid ws.maxDisk 'lots'"));
}
