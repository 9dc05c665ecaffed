#include "fuse/meta_store.hpp"

namespace ws::fuse {

std::string join_path(std::string_view dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + name.size() + 1);
  out.append(dir);
  if (!dir.empty()) {
    out.push_back('/');
  }
  out.append(name);
  return out;
}

bool path_within(std::string_view path, std::string_view dir) {
  if (dir.empty()) {
    return true;
  }
  return path.size() >= dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         (path.size() == dir.size() || path[dir.size()] == '/');
}

namespace {

constexpr const char* k_schema = R"(
CREATE TABLE IF NOT EXISTS paths(
  path BLOB PRIMARY KEY,
  whiteout INTEGER NOT NULL DEFAULT 0,
  opaque INTEGER NOT NULL DEFAULT 0,
  base_ino INTEGER, base_size INTEGER, base_mtime INTEGER, base_mode INTEGER, base_hash TEXT,
  origin_path BLOB,
  origin_ino INTEGER, origin_size INTEGER, origin_mtime INTEGER, origin_mode INTEGER, origin_hash TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
)";

void bind_identity(Stmt& st, int first, const std::optional<Identity>& id) {
  if (!id) {
    for (int i = 0; i < 5; ++i) {
      st.bind_null(first + i);
    }
    return;
  }
  st.bind(first, static_cast<int64_t>(id->ino));
  st.bind(first + 1, static_cast<int64_t>(id->size));
  st.bind(first + 2, id->mtime_ns);
  st.bind(first + 3, id->mode);
  if (id->hash) {
    st.bind_text(first + 4, id->hash->hex());
  } else {
    st.bind_null(first + 4);
  }
}

std::optional<Identity> read_identity(const Stmt& st, int first) {
  if (st.is_null(first + 3)) {
    return std::nullopt;
  }
  Identity id;
  id.ino = static_cast<uint64_t>(st.int64(first));
  id.size = static_cast<uint64_t>(st.int64(first + 1));
  id.mtime_ns = st.int64(first + 2);
  id.mode = static_cast<uint32_t>(st.int64(first + 3));
  if (!st.is_null(first + 4)) {
    id.hash = Hash128::from_hex(st.text(first + 4));
  }
  return id;
}

} // namespace

MetaStore::MetaStore(const std::filesystem::path& db_file, Db::Mode mode) : m_db(db_file, mode) {
  if (mode == Db::Mode::ReadWrite) {
    m_db.exec(k_schema);
  }
  Stmt st(
      m_db,
      "SELECT path, whiteout, opaque, base_ino, base_size, base_mtime, base_mode, base_hash,"
      " origin_path, origin_ino, origin_size, origin_mtime, origin_mode, origin_hash FROM paths");
  while (st.step()) {
    PathMeta m;
    m.whiteout = st.int64(1) != 0;
    m.opaque = st.int64(2) != 0;
    m.base = read_identity(st, 3);
    if (!st.is_null(8)) {
      m.origin_path = st.text(8);
    }
    m.origin = read_identity(st, 9);
    m_paths.emplace(st.text(0), std::move(m));
  }
}

std::optional<PathMeta> MetaStore::get(std::string_view path) const {
  std::lock_guard lock(m_mutex);
  auto it = m_paths.find(path);
  if (it == m_paths.end()) {
    return std::nullopt;
  }
  return it->second;
}

bool MetaStore::is_whiteout(std::string_view path) const {
  std::lock_guard lock(m_mutex);
  auto it = m_paths.find(path);
  return it != m_paths.end() && it->second.whiteout;
}

bool MetaStore::is_opaque(std::string_view path) const {
  std::lock_guard lock(m_mutex);
  auto it = m_paths.find(path);
  return it != m_paths.end() && it->second.opaque;
}

void MetaStore::write_row(std::string_view path, const PathMeta& meta) {
  Stmt st(m_db,
          "INSERT OR REPLACE INTO paths VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  st.bind_blob(1, path).bind(2, meta.whiteout).bind(3, meta.opaque);
  bind_identity(st, 4, meta.base);
  if (meta.origin_path) {
    st.bind_blob(9, *meta.origin_path);
  } else {
    st.bind_null(9);
  }
  bind_identity(st, 10, meta.origin);
  st.run();
}

void MetaStore::delete_row(std::string_view path) {
  Stmt st(m_db, "DELETE FROM paths WHERE path = ?1");
  st.bind_blob(1, path).run();
}

void MetaStore::put(std::string_view path, const PathMeta& meta) {
  std::lock_guard lock(m_mutex);
  if (meta.empty()) {
    if (m_paths.erase(std::string(path)) != 0) {
      delete_row(path);
    }
    return;
  }
  if (auto it = m_paths.find(path); it != m_paths.end() && it->second == meta) {
    return; // unchanged: no write (which also lets the agent delete files on a full disk)
  }
  write_row(path, meta);
  m_paths.insert_or_assign(std::string(path), meta);
}

void MetaStore::erase(std::string_view path) {
  put(path, PathMeta{});
}

std::map<std::string, PathMeta, std::less<>>::const_iterator
MetaStore::lower_bound_locked(std::string_view prefix) const {
  return m_paths.lower_bound(prefix);
}

std::vector<std::pair<std::string, PathMeta>> MetaStore::subtree(std::string_view prefix) const {
  std::lock_guard lock(m_mutex);
  std::vector<std::pair<std::string, PathMeta>> out;
  // Paths below "a" sort after "a" but may interleave with "a-b" ('-' < '/'); scan the
  // range ["a", "a0") and filter, '0' being the byte after '/'.
  std::string end = std::string(prefix) + '0';
  for (auto it = lower_bound_locked(prefix); it != m_paths.end(); ++it) {
    if (!prefix.empty() && it->first >= end) {
      break;
    }
    if (path_within(it->first, prefix)) {
      out.emplace_back(it->first, it->second);
    }
  }
  return out;
}

std::vector<std::string> MetaStore::whiteouts_in(std::string_view dir) const {
  std::vector<std::string> out;
  std::string prefix = dir.empty() ? std::string() : std::string(dir) + '/';
  std::lock_guard lock(m_mutex);
  for (auto it = m_paths.lower_bound(prefix); it != m_paths.end(); ++it) {
    std::string_view p = it->first;
    if (p.compare(0, prefix.size(), prefix) != 0) {
      break;
    }
    std::string_view rest = p.substr(prefix.size());
    if (it->second.whiteout && !rest.empty() && rest.find('/') == std::string_view::npos) {
      out.emplace_back(rest);
    }
  }
  return out;
}

void MetaStore::move_subtree(std::string_view from, std::string_view to) {
  auto moving = subtree(from);
  auto replaced = subtree(to);
  std::lock_guard lock(m_mutex);
  Transaction tx(m_db);
  for (auto& [path, meta] : replaced) {
    delete_row(path);
    m_paths.erase(path);
  }
  for (auto& [path, meta] : moving) {
    delete_row(path);
    m_paths.erase(path);
  }
  for (auto& [path, meta] : moving) {
    std::string dest = std::string(to) + path.substr(from.size());
    meta.base.reset();
    meta.whiteout = false;
    if (meta.empty()) {
      continue;
    }
    write_row(dest, meta);
    m_paths.insert_or_assign(dest, meta);
  }
  tx.commit();
}

void MetaStore::erase_below(std::string_view dir) {
  auto below = subtree(dir);
  std::lock_guard lock(m_mutex);
  Transaction tx(m_db);
  for (auto& [path, meta] : below) {
    if (path.size() != dir.size()) {
      delete_row(path);
      m_paths.erase(path);
    }
  }
  tx.commit();
}

void MetaStore::replace_subtree(std::string_view prefix,
                                const std::vector<std::pair<std::string, PathMeta>>& records) {
  auto old = subtree(prefix);
  std::lock_guard lock(m_mutex);
  {
    Transaction tx(m_db);
    if (prefix.empty()) {
      Stmt(m_db, "DELETE FROM paths").run();
    } else {
      for (auto& [path, meta] : old) {
        delete_row(path);
      }
    }
    for (auto& [path, meta] : records) {
      if (!meta.empty()) {
        write_row(path, meta);
      }
    }
    tx.commit();
  }
  // Memory follows only once the database has committed: a failed commit changes neither.
  for (auto& [path, meta] : old) {
    m_paths.erase(path);
  }
  for (auto& [path, meta] : records) {
    if (!meta.empty()) {
      m_paths.insert_or_assign(path, meta);
    }
  }
}

std::optional<std::string> MetaStore::info(std::string_view key) const {
  std::lock_guard lock(m_mutex);
  Stmt st(m_db, "SELECT value FROM info WHERE key = ?1");
  st.bind_text(1, key);
  if (st.step()) {
    return st.text(0);
  }
  return std::nullopt;
}

void MetaStore::set_info(std::string_view key, std::string_view value) {
  std::lock_guard lock(m_mutex);
  Stmt st(m_db, "INSERT OR REPLACE INTO info VALUES(?1, ?2)");
  st.bind_text(1, key).bind_blob(2, value).run();
}

} // namespace ws::fuse
