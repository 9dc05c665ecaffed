// ws apply's consistent snapshot: the daemon pauses the agent's writers on request, and the
// upper layer then holds a state the view had, unchanging, while reads of the view go on.
#include "src/daemon/daemon_client.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The writer: two slots g0 and g1 each hold a pair A, B (300 KB each, several WRITE
/// requests); it rewrites the slot `cur` does not point to, then flips `cur` to it with a
/// rename. So in every state the view has, cur/A == cur/B; a reader racing it without a
/// pause reads cur, then a slot the writer is rewriting.
const char* k_writer = R"(python3 - <<'EOF' >/dev/null 2>&1 &
import os
os.makedirs('pair/g0', exist_ok=True)
os.makedirs('pair/g1', exist_ok=True)
def fill(slot, gen):
    body = ('%d\n' % gen).encode() * 50000
    for name in ('A', 'B'):
        with open('pair/g%d/%s' % (slot, name), 'wb') as f:
            f.write(body)
fill(0, 0)
os.symlink('g0', 'pair/cur')
gen = 0
while not os.path.exists('stop') and gen < 100000:
    gen += 1
    slot = gen % 2
    fill(slot, gen)
    os.symlink('g%d' % slot, 'pair/cur.tmp')
    os.rename('pair/cur.tmp', 'pair/cur')
    with open('gen.tmp', 'w') as f:
        f.write(str(gen))
    os.rename('gen.tmp', 'gen')
EOF
)";

struct Pair {
  std::string cur, a, b;
  bool operator==(const Pair&) const = default;
};

Pair read_upper(const fs::path& upper) {
  Pair p;
  std::error_code ec;
  p.cur = fs::read_symlink(upper / "pair" / "cur", ec).string();
  p.a = slurp(upper / "pair" / p.cur / "A");
  p.b = slurp(upper / "pair" / p.cur / "B");
  return p;
}

int generation(const fs::path& view) {
  std::string g = slurp(view / "gen");
  return g.empty() ? -1 : std::stoi(g);
}

/// `w` as the CLI names it.
ws::Workspace workspace_of(const MountedWorkspace& w) {
  ws::Workspace ws;
  ws.layout = ws::fuse::WorkspaceLayout{w.state_dir()};
  ws.mountpoint = w.view();
  return ws;
}

} // namespace

TEST_CASE("writer pause: the upper layer holds a state the view had while writers pause") {
  TestRepo repo;
  MountedWorkspace w(repo);
  ws::Workspace wsp = workspace_of(w);
  fs::path upper = w.state_dir() / "upper";
  REQUIRE(w.in_view(k_writer).status == 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (generation(w.view()) < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(generation(w.view()) >= 3);

  int mismatches = 0, moved = 0;
  for (int i = 0; i < 20; ++i) {
    std::optional<ws::WriterPause> pause = ws::pause_writers(wsp);
    REQUIRE(pause.has_value());
    Pair first = read_upper(upper);
    mismatches += first.a != first.b || first.a.empty();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // Reads of the view go on meanwhile, although the writer's requests are held.
    CHECK(slurp(w.view() / "pair" / first.cur / "A") == first.a);
    moved += !(read_upper(upper) == first); // nothing lands while paused
    pause.reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  CHECK(mismatches == 0);
  CHECK(moved == 0);

  // The writer goes on once the pause ends.
  int before = generation(w.view());
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (generation(w.view()) < before + 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(generation(w.view()) >= before + 3);
  REQUIRE(w.in_view("touch stop").status == 0);
}

TEST_CASE("writer pause: a held pause blocks writes until released - other requests answer") {
  TestRepo repo;
  MountedWorkspace w(repo);
  ws::Workspace wsp = workspace_of(w);
  REQUIRE(w.in_view("echo one > note.txt && echo edit >> src/main.c").status == 0);
  std::optional<ws::WriterPause> pause = ws::pause_writers(wsp);
  REQUIRE(pause.has_value());
  // A write started now waits for the pause to end.
  REQUIRE(w.in_view("(echo two > note.txt; touch wrote) >/dev/null 2>&1 &").status == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(slurp(w.state_dir() / "upper" / "note.txt") == "one\n");
  CHECK(!fs::exists(w.state_dir() / "upper" / "wrote"));
  // The daemon still answers the requests apply makes after landing (a drop here), and
  // ws status, which reads the state files.
  CHECK(w.ws("status").status == 0);
  Run reset = w.ws("reset src/main.c");
  INFO(reset.err);
  CHECK(reset.status == 0);
  CHECK(!fs::exists(w.state_dir() / "upper" / "src" / "main.c"));
  pause->release();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!fs::exists(w.state_dir() / "upper" / "wrote") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(slurp(w.state_dir() / "upper" / "note.txt") == "two\n");
}

TEST_CASE("writer pause: no daemon - nothing to pause") {
  TestRepo repo;
  MountedWorkspace w(repo);
  ws::Workspace wsp = workspace_of(w);
  w.unmount();
  CHECK(!ws::pause_writers(wsp).has_value());
}
