// Checkpoints cost what changed: a session that changed one file in a workspace of
// thousands adds a few kilobytes; the content store frees what no checkpoint names; a file
// written while a checkpoint is taken is frozen whole; old full-copy checkpoints still read.
#include "fuse/meta_store.hpp"
#include "fuse/store/checkpoint_record.hpp"
#include "fuse/store/content_store.hpp"
#include "fuse/store/snapshot_builder.hpp"
#include "fuse/store/tree.hpp"
#include "tests/support/checkpoint_steps.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

using namespace ws::test;
namespace fs = std::filesystem;
namespace store = ws::fuse::store;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Bytes allocated under `dir` (what `du` counts).
uint64_t disk_usage(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0) {
      total += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  return total;
}

size_t object_count(const fs::path& state) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(state / "store" / "objects", ec);
       !ec && it != fs::end(it); it.increment(ec)) {
    n += it->is_regular_file() ? 1 : 0;
  }
  return n;
}

std::string snapshot_value(const fs::path& cp, const std::string& key) {
  std::ifstream in(cp / "snapshot");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + " ", 0) == 0) {
      return line.substr(key.size() + 1);
    }
  }
  return "";
}

/// The content of `path` (a top-level file) frozen in checkpoint `id`, read from the store.
std::string frozen_content(const MountedWorkspace& w, unsigned id, const std::string& name) {
  fs::path cp = w.state_dir() / "checkpoints" / std::to_string(id);
  auto root = store::snapshot_root(cp);
  REQUIRE(root);
  store::ContentStore cs(w.state_dir() / "store");
  store::Tree t = store::parse_tree(cs.read(*root));
  const store::TreeEntry* e = t.find(name);
  REQUIRE(e);
  REQUIRE(e->ref == store::ContentRef::Object);
  return cs.read(e->content);
}

/// `n` small files under `dir` in the view (one python process: fast through FUSE).
void make_files(const MountedWorkspace& w, const std::string& dir, int n) {
  Run r = w.in_view("python3 -c 'import os\n"
                    "for i in range(" +
                    std::to_string(n) +
                    "):\n"
                    "    d = \"" +
                    dir +
                    "/p%d\" % (i // 100)\n"
                    "    os.makedirs(d, exist_ok=True)\n"
                    "    open(d + \"/f%d.js\" % i, \"w\").write(\"module.exports = %d\\n\" % i)'");
  REQUIRE(r.status == 0);
}

} // namespace

TEST_CASE("checkpoint store: a session that changed one file adds a few kilobytes") {
  TestRepo repo;
  MountedWorkspace w(repo);
  make_files(w, "node_modules", 3000);
  Run first = w.ws("run -- true");
  REQUIRE(first.status == 0);
  fs::path st = w.state_dir() / "store";
  uint64_t before = disk_usage(st);
  CHECK(before > 3000 * 100); // the first checkpoint holds the files

  Run one = w.ws("run -- sh -c 'echo more >> README.md'");
  INFO(one.err);
  REQUIRE(one.status == 0);
  // The summary speaks of what the session did, and counts the rest.
  // (the workspace's name where it fits in 80 columns)
  check_has_all(one.err, {"ws: 1 changed path since checkpoint 1", "  M  README.md\n",
                          " holds 3001 changes in all (ws status)\n"});
  CHECK(!contains(one.err, "node_modules/p0"));
  uint64_t after = disk_usage(st);
  INFO("store: " << before << " bytes, then " << after);
  CHECK(after - before < 32 * 1024); // the file's content and two trees, on 4 KiB blocks
  Run list = w.ws("checkpoints --json");
  CHECK(contains(list.out, "\"changes\": 3001, \"message\": \"end of ws run: sh -c "));
  // What the second checkpoint added, as `ws checkpoints` shows it.
  fs::path cp2 = w.state_dir() / "checkpoints" / "2";
  CHECK(std::stoull(snapshot_value(cp2, "bytes")) < 32 * 1024);
  CHECK(snapshot_value(cp2, "files_read") == "1");

  // Nothing changed: nothing added, nothing read.
  Run none = w.ws("run -- true");
  // "the workspace holds" where "workspace 'default' holds" passes 80 columns.
  CHECK(contains(none.err, "ws: no changes since checkpoint 2; "));
  CHECK(contains(none.err, " holds 3001 changes (ws status)\n"));
  CHECK(disk_usage(st) - after < 8 * 1024);
  CHECK(snapshot_value(w.state_dir() / "checkpoints" / "3", "files_read") == "0");
  Run human = w.ws("checkpoints");
  check_has_all(human.out,
                {"3 checkpoints, ", " on disk in all (kept: the newest 50, for 30 days)\n"});
}

TEST_CASE("checkpoint store: restore after pruning, and pruning frees what only it held") {
  TestRepo repo;
  MountedWorkspace w(repo);
  checkpoint_each(w, {{"echo shared > shared.txt && echo v1 > a.txt", "one"},
                      {"echo v2 > a.txt && echo gone-later > b.txt", "two"},
                      {"echo v3 > a.txt && rm b.txt", "three"}});
  size_t objects = object_count(w.state_dir());

  Run pruned = w.ws("checkpoints --keep 1");
  CHECK(pruned.status == 0);
  check_has_all(pruned.err, {"deleted checkpoint 1 (one)", "deleted checkpoint 2 (two)"});
  CHECK(object_count(w.state_dir()) < objects); // v1, v2, b.txt and their trees
  REQUIRE(w.in_view("echo v4 > a.txt && rm shared.txt").status == 0);
  Run restore = w.ws("restore 3");
  CHECK(restore.status == 0);
  CHECK(w.in_view("cat a.txt shared.txt && test ! -e b.txt").out == "v3\nshared\n");
  CHECK(w.ws("status").out == "A a.txt\nA shared.txt\n");
  // The checkpoint of the state before the restore brings v4 back.
  CHECK(w.ws("restore 4").status == 0);
  CHECK(w.in_view("cat a.txt && test ! -e shared.txt").out == "v4\n");

  // Nothing kept: the store empties, and the next checkpoint starts afresh (numbers too).
  CHECK(w.ws("checkpoints --keep 0").status == 0);
  CHECK(object_count(w.state_dir()) == 0);
  CHECK(w.ws("checkpoint -m again").out == "checkpoint 1: 1 change\n");
  REQUIRE(w.in_view("echo v5 > a.txt").status == 0);
  REQUIRE(w.ws("checkpoint -m last").status == 0);
  Run back = w.ws("restore 1");
  INFO(back.err);
  CHECK(back.status == 0);
  CHECK(w.in_view("cat a.txt").out == "v4\n");
}

TEST_CASE("checkpoint store: a file written all along is frozen whole, writers pause briefly") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // The agent rewrites a 64 KiB file without pause, each version one byte repeated, in
  // one write each (one request to the view).
  fs::path stop = w.state_root() / "stop";
  fs::path started = w.state_root() / "started";
  std::string writer = "python3 -c 'import os\n"
                       "fd = os.open(\"hammer.bin\", os.O_RDWR | os.O_CREAT, 0o644)\n"
                       "i = 0\n"
                       "while not os.path.exists(\"" +
                       stop.string() +
                       "\"):\n"
                       "    os.pwrite(fd, bytes([65 + i % 26]) * 65536, 0)\n"
                       "    i += 1\n"
                       "    if i == 2: open(\"" +
                       started.string() +
                       "\", \"w\").close()\n"
                       "print(i)'";
  REQUIRE(w.in_view("python3 -c 'open(\"hammer.bin\", \"wb\").write(b\"A\" * 65536)'").status == 0);
  Run wrote;
  std::thread agent([&] { wrote = w.in_view(writer); });
  for (int i = 0; i < 1000 && !fs::exists(started); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(fs::exists(started));
  std::vector<unsigned> ids;
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Run cp = w.ws("checkpoint");
    REQUIRE(cp.status == 0);
    ids.push_back(static_cast<unsigned>(std::stoul(cp.out.substr(11))));
  }
  std::ofstream(stop).put('x');
  agent.join();
  INFO("versions written: " << wrote.out);
  CHECK(wrote.status == 0);
  CHECK(std::stoul(wrote.out) > 8);
  std::set<char> seen;
  for (unsigned id : ids) {
    std::string content = frozen_content(w, id, "hammer.bin");
    REQUIRE(content.size() == 65536);
    CHECK(content == std::string(65536, content[0])); // one version, never two halves
    seen.insert(content[0]);
    fs::path cp = w.state_dir() / "checkpoints" / std::to_string(id);
    // Writers waited only while what they wrote during the read was read again.
    CHECK(std::stoll(snapshot_value(cp, "paused_us")) < 250'000);
  }
  CHECK(seen.size() > 1); // the writer ran during the checkpoints
}

TEST_CASE("checkpoint store: retention keeps the store bounded") {
  TestRepo repo;
  REQUIRE(sh("git config ws.checkpointKeep 3", repo.path()).status == 0);
  MountedWorkspace w(repo);
  std::vector<uint64_t> usage;
  for (int i = 0; i < 8; ++i) {
    // Each session rewrites a 256 KiB file: without pruning, the store would grow by as
    // much each time.
    REQUIRE(w.in_view("head -c 262144 /dev/urandom > big.bin").status == 0);
    REQUIRE(w.ws("checkpoint -m s" + std::to_string(i)).status == 0);
    usage.push_back(disk_usage(w.state_dir() / "store"));
  }
  Run list = w.ws("checkpoints");
  CHECK(!contains(list.out, "s4\n"));
  check_has_all(list.out, {"s5\n", "s7\n", "3 checkpoints, ", "kept: the newest 3, for 30 days"});
  INFO("store after 3 checkpoints: " << usage[2] << ", after 8: " << usage[7]);
  // Three versions held by checkpoints (the newest one also by the tracker): the same
  // bound after 8 as after 3.
  CHECK(usage[7] <= usage[2] + 64 * 1024);
  CHECK(usage[7] < 4 * 262144 + 128 * 1024);

  // Age: a checkpoint older than ws.checkpointMaxDays goes at the next one.
  REQUIRE(sh("git config ws.checkpointMaxDays 2", repo.path()).status == 0);
  fs::path info = w.state_dir() / "checkpoints" / "7" / "info"; // s6
  std::ifstream in(info);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  in.close();
  text.replace(text.find("time_ns ") + 8, text.find('\n') - 8, "1000000000");
  std::ofstream(info, std::ios::trunc) << text;
  REQUIRE(w.ws("checkpoint -m s8").status == 0);
  Run aged = w.ws("checkpoints");
  CHECK(!contains(aged.out, "s5\n")); // the count
  CHECK(!contains(aged.out, "s6\n")); // the age
  check_has_all(aged.out, {"s7\n", "s8\n", "kept: the newest 3, for 2 days"});
}

TEST_CASE("checkpoint store: a full-copy checkpoint of an older ws still reads") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // What ws wrote before the content store: checkpoints/N/{upper/, meta.db, info}.
  fs::path cp = w.state_dir() / "checkpoints" / "1";
  fs::create_directories(cp / "upper" / "src");
  std::ofstream(cp / "upper" / "old.txt") << "from the old format\n";
  std::ofstream(cp / "upper" / "src" / "util.c") << "int old;\n";
  {
    ws::fuse::MetaStore meta(cp / "meta.db", ws::fuse::Db::Mode::ReadWrite);
    ws::fuse::PathMeta gone;
    gone.whiteout = true;
    meta.put("README.md", gone);
  }
  std::ofstream(cp / "info") << "time_ns 1700000000000000000\nchanges 3\nmessage old one\n";

  Run list = w.ws("checkpoints --json");
  CHECK(contains(list.out, "\"full_copy\": true, \"changes\": 3, \"message\": \"old one\""));
  Run diff = w.ws("diff --stat --checkpoint 1");
  INFO(diff.out << diff.err);
  CHECK(diff.status == 0);
  check_has_all(diff.out, {"old.txt", "README.md"});
  Run restore = w.ws("restore 1");
  INFO(restore.err);
  CHECK(restore.status == 0);
  CHECK(w.in_view("cat old.txt src/util.c && test ! -e README.md").out ==
        "from the old format\nint old;\n");
  // The next checkpoints are content-addressed, and pruning takes the old one whole.
  REQUIRE(w.ws("checkpoint -m new").status == 0);
  CHECK(fs::exists(w.state_dir() / "checkpoints" / "3" / "snapshot"));
  CHECK(w.ws("checkpoints --keep 2").status == 0);
  CHECK(!fs::exists(cp));
  CHECK(w.ws("diff --stat --checkpoint 3").status == 0);
}

TEST_CASE("checkpoint store: changes made under an earlier daemon, or before it died, count") {
  TestRepo repo;
  MountedWorkspace w(repo);
  make_files(w, "build", 300);
  // Files changed within 100 ms of a checkpoint's read are "racy" (their ctime cannot vouch for
  // what was read) and are read again by every later scan: on a fast machine all 300 would be.
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  REQUIRE(w.ws("checkpoint").status == 0);
  // A clean stop keeps the list of what changed: the next daemon reads only that.
  REQUIRE(w.in_view("echo late > build/p0/f0.js").status == 0);
  w.unmount();
  w.mount();
  REQUIRE(w.ws("checkpoint").status == 0);
  CHECK(snapshot_value(w.state_dir() / "checkpoints" / "2", "files_read") == "1");

  // A daemon killed: what it knew is lost, so everything is looked at again (by identity:
  // only what changed is read).
  REQUIRE(w.in_view("echo killed > build/p1/f100.js").status == 0);
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  REQUIRE(::kill(pid, SIGKILL) == 0);
  for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(w.ws("mount").status == 0);
  REQUIRE(w.ws("checkpoint").status == 0);
  // Files frozen within the timestamps' granularity of their change are read again too.
  CHECK(std::stoul(snapshot_value(w.state_dir() / "checkpoints" / "3", "files_read")) < 100);
  REQUIRE(w.ws("restore 3").status == 0);
  CHECK(w.in_view("cat build/p0/f0.js build/p1/f100.js").out == "late\nkilled\n");
}

TEST_CASE("checkpoint store: what a shared mapping wrote back is in the next checkpoint") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("python3 -c 'open(\"mapped.bin\", \"wb\").write(b\"a\" * 8192)'").status == 0);
  REQUIRE(w.ws("checkpoint").status == 0);
  // No write(2): only the kernel's writeback of the mapping reaches the view.
  Run mapped = w.in_view("python3 -c 'import mmap, os\n"
                         "fd = os.open(\"mapped.bin\", os.O_RDWR)\n"
                         "m = mmap.mmap(fd, 8192, mmap.MAP_SHARED)\n"
                         "m[0:8192] = b\"b\" * 8192\n"
                         "m.flush()\n"
                         "m.close()\n"
                         "os.close(fd)'");
  REQUIRE(mapped.status == 0);
  REQUIRE(w.ws("checkpoint").status == 0);
  std::string before = frozen_content(w, 1, "mapped.bin");
  std::string after = frozen_content(w, 2, "mapped.bin");
  CHECK(before.size() == 8192);
  CHECK(before.find_first_not_of('a') == std::string::npos);
  CHECK(after.size() == 8192);
  CHECK(after.find_first_not_of('b') == std::string::npos);
}
