// Tree objects: serialisation (see tree.hpp). A compact binary form: a magic line, then per
// entry varints and length-prefixed bytes; optional parts behind a flags byte.
#include "fuse/store/tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace ws::fuse::store {

namespace {

constexpr std::string_view k_magic = "wstree1\n";

// Entry flags.
constexpr uint32_t k_has_meta = 1;
constexpr uint32_t k_has_subtree = 2;
constexpr uint32_t k_racy = 4;
constexpr uint32_t k_has_xattrs = 8;
// Record flags.
constexpr uint32_t k_whiteout = 1;
constexpr uint32_t k_opaque = 2;
constexpr uint32_t k_has_base = 4;
constexpr uint32_t k_has_origin = 8;
constexpr uint32_t k_has_origin_path = 16;
constexpr uint32_t k_base_hash = 32;
constexpr uint32_t k_origin_hash = 64;

class Writer {
public:
  void u(uint64_t v) {
    while (v >= 0x80) {
      m_out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    m_out.push_back(static_cast<char>(v));
  }
  void s(int64_t v) { u((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void bytes(std::string_view b) {
    u(b.size());
    m_out.append(b);
  }
  void raw(std::string_view b) { m_out.append(b); }
  void hash(const Hash128& h) {
    u(h.high);
    u(h.low);
  }
  /// The hash goes in when present; the record's flags say so.
  void identity(const Identity& id) {
    u(id.ino);
    u(id.size);
    s(id.mtime_ns);
    u(id.mode);
    if (id.hash) {
      hash(*id.hash);
    }
  }
  std::string take() { return std::move(m_out); }

private:
  std::string m_out;
};

class Reader {
public:
  explicit Reader(std::string_view in) : m_in(in) {}
  uint64_t u() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      need(1);
      auto b = static_cast<uint8_t>(m_in[m_pos++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        return v;
      }
    }
    throw std::runtime_error("corrupt tree object: varint too long");
  }
  int64_t s() {
    uint64_t v = u();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  std::string bytes() {
    uint64_t n = u();
    need(n);
    std::string out(m_in.substr(m_pos, n));
    m_pos += n;
    return out;
  }
  std::string_view raw(size_t n) {
    need(n);
    auto out = m_in.substr(m_pos, n);
    m_pos += n;
    return out;
  }
  Hash128 hash() {
    Hash128 h;
    h.high = u();
    h.low = u();
    return h;
  }
  Identity identity(bool has_hash) {
    Identity id;
    id.ino = u();
    id.size = u();
    id.mtime_ns = s();
    id.mode = static_cast<uint32_t>(u());
    if (has_hash) {
      id.hash = hash();
    }
    return id;
  }
  bool done() const { return m_pos == m_in.size(); }

private:
  void need(uint64_t n) const {
    if (n > m_in.size() - m_pos) {
      throw std::runtime_error("corrupt tree object: truncated");
    }
  }
  std::string_view m_in;
  size_t m_pos = 0;
};

} // namespace

const TreeEntry* Tree::find(std::string_view name) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), name,
                             [](const TreeEntry& e, std::string_view n) { return e.name < n; });
  return it != entries.end() && it->name == name ? &*it : nullptr;
}

std::string serialize_tree(const Tree& tree) {
  Writer w;
  w.raw(k_magic);
  w.u(tree.entries.size());
  for (const TreeEntry& e : tree.entries) {
    w.bytes(e.name);
    w.u(static_cast<uint64_t>(e.type));
    uint32_t flags = (e.meta ? k_has_meta : 0) | (e.subtree ? k_has_subtree : 0) |
                     (e.racy ? k_racy : 0) | (e.xattrs.empty() ? 0 : k_has_xattrs);
    w.u(flags);
    if (e.type != EntryType::None) {
      w.u(e.mode);
      w.u(e.uid);
      w.u(e.gid);
      w.s(e.atime_ns);
      w.s(e.mtime_ns);
      w.s(e.ctime_ns);
      w.u(e.ino);
      w.u(e.nlink);
      w.u(e.size);
    }
    switch (e.type) {
    case EntryType::File:
      w.u(static_cast<uint64_t>(e.ref));
      if (e.ref == ContentRef::Object) {
        w.raw(e.content.raw());
      }
      w.hash(e.xxh3);
      break;
    case EntryType::Symlink:
      w.bytes(e.target);
      w.hash(e.xxh3);
      break;
    case EntryType::CharDevice:
    case EntryType::BlockDevice:
      w.u(e.rdev);
      break;
    default:
      break;
    }
    if (!e.xattrs.empty()) {
      w.u(e.xattrs.size());
      for (auto& [name, value] : e.xattrs) {
        w.bytes(name);
        w.bytes(value);
      }
    }
    if (e.meta) {
      const PathMeta& m = *e.meta;
      uint32_t mf = (m.whiteout ? k_whiteout : 0) | (m.opaque ? k_opaque : 0) |
                    (m.base ? k_has_base : 0) | (m.origin ? k_has_origin : 0) |
                    (m.origin_path ? k_has_origin_path : 0) |
                    (m.base && m.base->hash ? k_base_hash : 0) |
                    (m.origin && m.origin->hash ? k_origin_hash : 0);
      w.u(mf);
      if (m.base) {
        w.identity(*m.base);
      }
      if (m.origin) {
        w.identity(*m.origin);
      }
      if (m.origin_path) {
        w.bytes(*m.origin_path);
      }
    }
    if (e.subtree) {
      w.raw(e.subtree->raw());
      w.u(e.files);
    }
  }
  return w.take();
}

Tree parse_tree(std::string_view bytes) {
  Reader r(bytes);
  if (r.raw(k_magic.size()) != k_magic) {
    throw std::runtime_error("not a tree object");
  }
  Tree tree;
  uint64_t count = r.u();
  if (count > bytes.size()) {
    throw std::runtime_error("corrupt tree object: entry count");
  }
  tree.entries.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    TreeEntry e;
    e.name = r.bytes();
    uint64_t type = r.u();
    if (type > static_cast<uint64_t>(EntryType::BlockDevice)) {
      throw std::runtime_error("corrupt tree object: entry type");
    }
    e.type = static_cast<EntryType>(type);
    uint64_t flags = r.u();
    e.racy = flags & k_racy;
    if (e.type != EntryType::None) {
      e.mode = static_cast<uint32_t>(r.u());
      e.uid = static_cast<uint32_t>(r.u());
      e.gid = static_cast<uint32_t>(r.u());
      e.atime_ns = r.s();
      e.mtime_ns = r.s();
      e.ctime_ns = r.s();
      e.ino = r.u();
      e.nlink = r.u();
      e.size = r.u();
    }
    switch (e.type) {
    case EntryType::File:
      e.ref = static_cast<ContentRef>(r.u());
      if (e.ref == ContentRef::Object) {
        e.content = ObjectId::from_raw(r.raw(32));
      }
      e.xxh3 = r.hash();
      break;
    case EntryType::Symlink:
      e.target = r.bytes();
      e.xxh3 = r.hash();
      break;
    case EntryType::CharDevice:
    case EntryType::BlockDevice:
      e.rdev = r.u();
      break;
    default:
      break;
    }
    if (flags & k_has_xattrs) {
      uint64_t n = r.u();
      for (uint64_t x = 0; x < n; ++x) {
        std::string name = r.bytes();
        e.xattrs.emplace_back(std::move(name), r.bytes());
      }
    }
    if (flags & k_has_meta) {
      uint64_t mf = r.u();
      PathMeta m;
      m.whiteout = mf & k_whiteout;
      m.opaque = mf & k_opaque;
      if (mf & k_has_base) {
        m.base = r.identity(mf & k_base_hash);
      }
      if (mf & k_has_origin) {
        m.origin = r.identity(mf & k_origin_hash);
      }
      if (mf & k_has_origin_path) {
        m.origin_path = r.bytes();
      }
      e.meta = std::move(m);
    }
    if (flags & k_has_subtree) {
      e.subtree = ObjectId::from_raw(r.raw(32));
      e.files = r.u();
    }
    tree.entries.push_back(std::move(e));
  }
  if (!r.done()) {
    throw std::runtime_error("corrupt tree object: trailing bytes");
  }
  return tree;
}

std::vector<std::pair<ObjectId, ObjectKind>> tree_children(const Tree& tree) {
  std::vector<std::pair<ObjectId, ObjectKind>> out;
  for (const TreeEntry& e : tree.entries) {
    if (e.type == EntryType::File && e.ref == ContentRef::Object) {
      out.emplace_back(e.content, ObjectKind::Blob);
    }
    if (e.subtree) {
      out.emplace_back(*e.subtree, ObjectKind::Tree);
    }
  }
  return out;
}

ChildrenOf children_in(const ContentStore& store) {
  return [&store](const ObjectId& id) { return tree_children(parse_tree(store.read(id))); };
}

namespace {

/// Same object and record for what a person sees (not identity, not timestamps of reads).
bool same_content(const TreeEntry& a, const TreeEntry& b) {
  return a.type == b.type && a.mode == b.mode && a.uid == b.uid && a.gid == b.gid &&
         a.mtime_ns == b.mtime_ns && a.size == b.size && a.rdev == b.rdev && a.ref == b.ref &&
         a.content == b.content && a.xxh3 == b.xxh3 && a.target == b.target &&
         a.xattrs == b.xattrs && a.meta == b.meta;
}

} // namespace

std::vector<std::string> changed_paths(const ContentStore& store,
                                       const std::optional<ObjectId>& from, const ObjectId& to) {
  std::vector<std::string> out;
  struct Job {
    std::optional<ObjectId> a, b;
    std::string dir;
  };
  std::vector<Job> todo{{from, to, ""}};
  auto load = [&](const std::optional<ObjectId>& id) {
    return id ? parse_tree(store.read(*id)) : Tree{};
  };
  while (!todo.empty()) {
    Job job = std::move(todo.back());
    todo.pop_back();
    if (job.a == job.b) {
      continue; // shared: nothing below differs
    }
    Tree ta = load(job.a), tb = load(job.b);
    auto ia = ta.entries.begin(), ib = tb.entries.begin();
    while (ia != ta.entries.end() || ib != tb.entries.end()) {
      const TreeEntry* ea = nullptr;
      const TreeEntry* eb = nullptr;
      if (ib == tb.entries.end() || (ia != ta.entries.end() && ia->name < ib->name)) {
        ea = &*ia++;
      } else if (ia == ta.entries.end() || ib->name < ia->name) {
        eb = &*ib++;
      } else {
        ea = &*ia++;
        eb = &*ib++;
      }
      const TreeEntry& any = ea ? *ea : *eb;
      std::string path = join_path(job.dir, any.name);
      bool differs = !ea || !eb || !same_content(*ea, *eb);
      bool object_a = ea && ea->type != EntryType::Directory;
      bool object_b = eb && eb->type != EntryType::Directory;
      std::optional<PathMeta> ma = ea ? ea->meta : std::nullopt;
      std::optional<PathMeta> mb = eb ? eb->meta : std::nullopt;
      // A file, a record, a type that changed; of a directory only its record (its times
      // change with its entries, which are listed themselves).
      if (differs && (object_a || object_b || ma != mb)) {
        out.push_back(path);
      }
      std::optional<ObjectId> sa = ea ? ea->subtree : std::nullopt;
      std::optional<ObjectId> sb = eb ? eb->subtree : std::nullopt;
      if (sa != sb) {
        todo.push_back({sa, sb, path});
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace ws::fuse::store
