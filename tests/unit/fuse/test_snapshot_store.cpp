// The content store, tree objects and snapshots on plain directories (no mount): what a
// checkpoint stores, shares and frees.
#include "fuse/meta_store.hpp"
#include "fuse/store/change_tracker.hpp"
#include "fuse/store/checkpoint_record.hpp"
#include "fuse/store/content_store.hpp"
#include "fuse/store/snapshot_builder.hpp"
#include "fuse/store/tree.hpp"
#include "fuse/store/tree_writer.hpp"
#include "fuse/unique_fd.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

using namespace ws::fuse;
using namespace ws::fuse::store;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::trunc) << text;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t count_objects(const fs::path& store) {
  size_t n = 0;
  for (auto& e : fs::recursive_directory_iterator(store / "objects")) {
    n += e.is_regular_file() ? 1 : 0;
  }
  return n;
}

/// A state directory: upper/, bases/, meta.db and a store, snapshotted like a checkpoint.
struct State {
  ws::test::TempDir dir;
  fs::path upper = dir.path() / "upper";
  fs::path bases = dir.path() / "bases";
  MetaStore meta{(fs::create_directories(dir.path() / "upper"),
                  fs::create_directories(dir.path() / "bases"), dir.path() / "meta.db"),
                 Db::Mode::ReadWrite};
  ContentStore store{dir.path() / "store"};
  UniqueFd upper_fd{::open(upper.c_str(), O_PATH | O_DIRECTORY)};
  UniqueFd bases_fd{::open(bases.c_str(), O_PATH | O_DIRECTORY)};
  std::optional<ObjectId> base;

  ObjectId snapshot(const Marks& marks, SnapshotBuilder::Stats* stats = nullptr) {
    SnapshotBuilder b(store, base, {upper_fd.get(), &meta, bases_fd.get()});
    b.set_may_chmod(true);
    b.read(marks);
    ObjectId root = b.assemble();
    if (stats) {
      *stats = b.stats();
    }
    auto lock = store.lock();
    commit_snapshot(store, dir.path() / "store" / "tracker", base, false, root,
                    dir.path() / ("cp-" + root.hex()));
    base = root;
    return root;
  }
};

Marks all_marks() {
  Marks m;
  m.all = true;
  return m;
}

} // namespace

TEST_CASE("store::Tree round-trips every field") {
  Tree t;
  TreeEntry f;
  f.name = std::string("a\nb\xff", 4);
  f.type = EntryType::File;
  f.mode = 0755;
  f.uid = 1000;
  f.gid = 100;
  f.atime_ns = -5;
  f.mtime_ns = 1700000000123456789;
  f.ctime_ns = 42;
  f.ino = 77;
  f.nlink = 2;
  f.size = 12345;
  f.racy = true;
  f.ref = ContentRef::Object;
  f.content.bytes[0] = 0xab;
  f.xxh3 = Hash128{1, 2};
  f.xattrs = {{"user.a", std::string("v\0w", 3)}};
  PathMeta m;
  m.opaque = true;
  m.base = Identity{1, 2, 3, 0100644, Hash128{4, 5}};
  m.origin = Identity{6, 7, -8, 040755, std::nullopt};
  m.origin_path = "x/y";
  f.meta = m;
  TreeEntry l;
  l.name = "link";
  l.type = EntryType::Symlink;
  l.target = "../t";
  TreeEntry n;
  n.name = "only-record";
  n.meta = PathMeta{true, false, std::nullopt, std::nullopt, std::nullopt};
  n.subtree = ObjectId{};
  t.entries = {f, l, n};
  std::sort(t.entries.begin(), t.entries.end(),
            [](const TreeEntry& a, const TreeEntry& b) { return a.name < b.name; });
  Tree back = parse_tree(serialize_tree(t));
  REQUIRE(back.entries.size() == 3);
  CHECK(back.entries == t.entries);
  CHECK_THROWS(parse_tree("nonsense"));
  CHECK_THROWS(parse_tree(serialize_tree(t).substr(0, 20)));
}

TEST_CASE("store::ContentStore deduplicates and frees by reference") {
  ws::test::TempDir dir;
  ContentStore cs(dir.path() / "store");
  write_file(dir.path() / "f", "hello");
  UniqueFd fd(::open((dir.path() / "f").c_str(), O_RDONLY));
  auto a = cs.put_file(fd.get(), 5, "f");
  auto b = cs.put_file(fd.get(), 5, "f");
  CHECK(a.added);
  CHECK(!b.added);
  CHECK(a.id == b.id);
  CHECK(a.id.hex() == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  CHECK(cs.read(a.id) == "hello");
  // A tree naming the blob twice holds one reference per name... and roots hold theirs.
  Tree t;
  for (const char* name : {"x", "y"}) {
    TreeEntry e;
    e.name = name;
    e.type = EntryType::File;
    e.ref = ContentRef::Object;
    e.content = a.id;
    t.entries.push_back(e);
  }
  ObjectId tree = cs.put_bytes(serialize_tree(t));
  auto lock = cs.lock();
  CHECK(cs.add_root(tree, ObjectKind::Tree, children_in(cs)) > 0);
  CHECK(cs.add_root(tree, ObjectKind::Tree, children_in(cs)) == 0); // nothing new
  cs.release_root(tree, children_in(cs));
  CHECK(cs.contains(a.id));
  CHECK(cs.release_root(tree, children_in(cs)) > 0);
  CHECK(!cs.contains(a.id));
  CHECK(!cs.contains(tree));
  CHECK(count_objects(dir.path() / "store") == 0);
}

TEST_CASE("store::SnapshotBuilder: one changed file costs one object and the trees above it") {
  State s;
  for (int d = 0; d < 20; ++d) {
    for (int f = 0; f < 50; ++f) {
      write_file(s.upper / "nm" / ("d" + std::to_string(d)) / ("f" + std::to_string(f)),
                 "content " + std::to_string(d * 100 + f) + "\n");
    }
  }
  write_file(s.upper / "src" / "a.c", "int a;\n");
  // Older than the timestamp granularity: their identity vouches for their content.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  SnapshotBuilder::Stats st;
  ObjectId first = s.snapshot(all_marks(), &st);
  CHECK(st.files_read == 1001);
  size_t objects = count_objects(s.dir.path() / "store");

  write_file(s.upper / "src" / "a.c", "int a = 1;\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  Marks one;
  one.add("src/a.c", false);
  ObjectId second = s.snapshot(one, &st);
  CHECK(st.files_read == 1);
  CHECK(second != first);
  // The new blob, src's tree, the root's: nothing else.
  CHECK(count_objects(s.dir.path() / "store") == objects + 3);

  // Nothing marked: the same root, nothing read.
  ObjectId third = s.snapshot(Marks{}, &st);
  CHECK(third == second);
  CHECK(st.files_read == 0);

  // Read everything again: the content of files that did not change is known by identity.
  ObjectId again = s.snapshot(all_marks(), &st);
  CHECK(again == second);
  CHECK(st.files_read == 0);
  CHECK(st.reused == 1001);

  // A moved directory: found by inode, not read again.
  fs::rename(s.upper / "nm" / "d3", s.upper / "moved");
  Marks moved;
  moved.add("nm/d3", true);
  moved.add("moved", true);
  s.snapshot(moved, &st);
  CHECK(st.files_read == 0);
  CHECK(st.reused == 50);
}

TEST_CASE("store::write_tree brings back content, modes, links, records") {
  State s;
  write_file(s.upper / "dir" / "f.txt", "text\n");
  ::chmod((s.upper / "dir" / "f.txt").c_str(), 0640);
  write_file(s.upper / "x.sh", "#!/bin/sh\n");
  ::chmod((s.upper / "x.sh").c_str(), 0755);
  fs::create_hard_link(s.upper / "x.sh", s.upper / "x-link.sh");
  fs::create_symlink("dir/f.txt", s.upper / "sym");
  ::mkfifo((s.upper / "fifo").c_str(), 0600);
  fs::create_directories(s.upper / "ro");
  write_file(s.upper / "ro" / "in", "inside\n");
  ::chmod((s.upper / "ro").c_str(), 0555);
  // A sparse file keeps its hole.
  {
    UniqueFd fd(::open((s.upper / "sparse").c_str(), O_CREAT | O_WRONLY, 0644));
    REQUIRE(::pwrite(fd.get(), "end", 3, 10 << 20) == 3);
  }
  PathMeta w;
  w.whiteout = true;
  s.meta.put("gone.txt", w);
  s.meta.put("deep/er/gone", w);
  PathMeta o;
  o.opaque = true;
  s.meta.put("dir", o);
  ObjectId root = s.snapshot(all_marks());

  ws::test::TempDir out;
  UniqueFd dst(::open(out.path().c_str(), O_PATH | O_DIRECTORY));
  auto records = write_tree(s.store, s.bases_fd.get(), root, dst.get());
  CHECK(read_file(out.path() / "dir" / "f.txt") == "text\n");
  CHECK((fs::status(out.path() / "dir" / "f.txt").permissions() & fs::perms::all) ==
        static_cast<fs::perms>(0640));
  CHECK(fs::equivalent(out.path() / "x.sh", out.path() / "x-link.sh"));
  CHECK(fs::read_symlink(out.path() / "sym") == "dir/f.txt");
  CHECK(fs::is_fifo(out.path() / "fifo"));
  CHECK(read_file(out.path() / "ro" / "in") == "inside\n");
  CHECK((fs::status(out.path() / "ro").permissions() & fs::perms::all) ==
        static_cast<fs::perms>(0555));
  struct stat sp {};
  REQUIRE(::stat((out.path() / "sparse").c_str(), &sp) == 0);
  CHECK(sp.st_size == (10 << 20) + 3);
  CHECK(sp.st_blocks * 512 < (1 << 20));
  REQUIRE(records.size() == 3);
  CHECK(records[0].first == "deep/er/gone");
  CHECK(records[1].first == "dir");
  CHECK(records[1].second.opaque);
  CHECK(records[2].first == "gone.txt");
  CHECK(tree_records(s.store, root) == records);
  ::chmod((s.upper / "ro").c_str(), 0755);
  ::chmod((out.path() / "ro").c_str(), 0755);
}

TEST_CASE("store::SnapshotBuilder: a file equal to its base points at bases/") {
  State s;
  write_file(s.upper / "same.txt", "unchanged\n");
  write_file(s.bases / hash_bytes("unchanged\n").hex(), "unchanged\n");
  PathMeta m;
  m.base = Identity{1, 10, 0, 0100644, hash_bytes("unchanged\n")};
  s.meta.put("same.txt", m);
  ObjectId root = s.snapshot(all_marks());
  Tree t = parse_tree(s.store.read(root));
  REQUIRE(t.entries.size() == 1);
  CHECK(t.entries[0].ref == ContentRef::Base);
  CHECK(count_objects(s.dir.path() / "store") == 1); // the tree alone
  ws::test::TempDir out;
  UniqueFd dst(::open(out.path().c_str(), O_PATH | O_DIRECTORY));
  write_tree(s.store, s.bases_fd.get(), root, dst.get());
  CHECK(read_file(out.path() / "same.txt") == "unchanged\n");
}

TEST_CASE("store::tracker file round-trips, and a cut-short one means everything") {
  ws::test::TempDir dir;
  fs::path file = dir.path() / "tracker";
  CHECK(load_tracker(file).marks.all);
  TrackerState s;
  s.base = ObjectId{};
  s.serving = false;
  s.marks.add("a\nb", false);
  s.marks.add("c/d", true);
  save_tracker(file, s);
  TrackerState back = load_tracker(file);
  CHECK(back.base == s.base);
  CHECK(!back.serving);
  CHECK(!back.marks.all);
  CHECK(back.marks.paths == s.marks.paths);
  std::string text = read_file(file);
  write_file(file, text.substr(0, text.size() - 4));
  CHECK(load_tracker(file).marks.all);
}
