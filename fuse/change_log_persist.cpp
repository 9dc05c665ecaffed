// git's fsmonitor record across a clean unmount (change_log_persist.hpp, docs/fsmonitor.md).
#include "fuse/change_log_persist.hpp"

#include "fuse/log.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>

namespace ws::fuse {

namespace {

constexpr char k_magic[8] = {'w', 's', 'f', 's', 'm', 'o', 'n', '1'};
constexpr char k_trailer[8] = {'w', 's', 'f', 's', 'e', 'n', 'd', '1'};
/// Past this many real-tree entries the manifest is not worth its time (and memory): the
/// first status after a mount looks at everything, as without a saved record.
constexpr size_t k_max_entries = 500'000;

std::string join(const std::string& dir, std::string_view name) {
  return dir.empty() ? std::string(name) : dir + "/" + std::string(name);
}

bool within(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

template <class T> void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_str(std::string& out, const std::string& s) {
  put<uint32_t>(out, static_cast<uint32_t>(s.size()));
  out += s;
}

/// Reads what put() wrote; any short read leaves it failed.
struct Reader {
  std::string_view data;
  bool ok = true;
  template <class T> T get() {
    T v{};
    if (!ok || data.size() < sizeof v) {
      ok = false;
      return v;
    }
    std::memcpy(&v, data.data(), sizeof v);
    data.remove_prefix(sizeof v);
    return v;
  }
  std::string get_str() {
    auto n = get<uint32_t>();
    if (!ok || data.size() < n) {
      ok = false;
      return {};
    }
    std::string s(data.substr(0, n));
    data.remove_prefix(n);
    return s;
  }
};

struct RootId {
  uint64_t dev = 0;
  uint64_t ino = 0;
};

std::optional<RootId> root_id(const std::filesystem::path& real) {
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) {
    return std::nullopt;
  }
  return RootId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

} // namespace

ChangeLogKeeper::ChangeLogKeeper(ChangeLog& changes, std::filesystem::path real_tree,
                                 std::filesystem::path file)
    : m_changes(changes), m_real(std::move(real_tree)), m_file(std::move(file)) {}

ChangeLogKeeper::~ChangeLogKeeper() {
  m_watcher.reset();
  m_changes.set_before_answer(nullptr);
  if (m_saved && m_changes.seq() != m_saved_seq) {
    std::error_code ec;
    std::filesystem::remove(m_file, ec); // noted after the save: the file does not hold it
  }
}

bool ChangeLogKeeper::scan(Manifest& out, bool watch, const std::string& from) {
  // Depth first with a stack of open directories: fds only along one path.
  struct Dir {
    std::string path;
    DIR* dir;
  };
  auto open_dir = [&](int at, const char* name, const std::string& path) -> DIR* {
    int fd = ::openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      return nullptr;
    }
    if (watch) {
      std::lock_guard lock(m_mutex);
      int wd = m_watcher->add(fd);
      if (wd < 0) {
        logger().info("fsmonitor: cannot watch '{}' ({}): the first status looks at everything",
                      path, std::strerror(errno));
        ::close(fd);
        return nullptr;
      }
      m_dirs[wd] = path;
    }
    DIR* d = ::fdopendir(fd);
    if (!d) {
      ::close(fd);
    }
    return d;
  };
  std::vector<Dir> stack;
  std::filesystem::path top_path = from.empty() ? m_real : m_real / from;
  DIR* top = open_dir(AT_FDCWD, top_path.c_str(), from);
  if (!top) {
    return errno == ENOENT && !from.empty(); // gone meanwhile: its parent's event says so
  }
  stack.push_back({from, top});
  bool ok = true;
  while (!stack.empty() && ok) {
    Dir& cur = stack.back();
    errno = 0;
    dirent* e = ::readdir(cur.dir);
    if (!e) {
      ok = errno == 0;
      ::closedir(cur.dir);
      stack.pop_back();
      continue;
    }
    std::string_view name = e->d_name;
    if (name == "." || name == ".." || (cur.path.empty() && name == ".git")) {
      continue;
    }
    struct stat st {};
    if (::fstatat(::dirfd(cur.dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) {
        continue; // gone meanwhile: a watched directory's event, or the diff, says so
      }
      ok = false;
      break;
    }
    std::string path = join(cur.path, name);
    out[path] = Entry{static_cast<uint64_t>(st.st_ino), static_cast<uint32_t>(st.st_mode),
                      static_cast<uint64_t>(st.st_size),
                      st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                      st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
    if (out.size() > k_max_entries) {
      ok = false;
      break;
    }
    if (S_ISDIR(st.st_mode)) {
      DIR* sub = open_dir(::dirfd(cur.dir), e->d_name, path);
      if (!sub) {
        ok = errno == ENOENT;
        continue;
      }
      stack.push_back({std::move(path), sub}); // `cur` is invalid from here
    }
  }
  for (Dir& d : stack) {
    ::closedir(d.dir);
  }
  return ok;
}

void ChangeLogKeeper::on_events(const LowerWatcher::Event* events, size_t count, bool overflow) {
  if (overflow) {
    m_changes.note_everything();
  }
  for (size_t i = 0; i < count; ++i) {
    const auto& e = events[i];
    std::string dir;
    {
      std::lock_guard lock(m_mutex);
      auto it = m_dirs.find(e.wd);
      if (it == m_dirs.end()) {
        continue; // removed below
      }
      if (e.mask & IN_IGNORED) {
        m_dirs.erase(it);
        continue;
      }
      dir = it->second;
    }
    bool is_dir = e.name.empty() || (e.mask & IN_ISDIR);
    std::string path = e.name.empty() ? dir : join(dir, e.name);
    if (e.name.empty() && (e.mask & IN_MOVE_SELF)) {
      continue; // its parent's event says where it went
    }
    if (is_dir && !e.name.empty() && (e.mask & IN_MOVED_FROM)) {
      // A real-tree directory renamed away: the watches below it name old paths.
      std::lock_guard lock(m_mutex);
      for (auto it = m_dirs.begin(); it != m_dirs.end();) {
        if (within(it->second, path)) {
          m_watcher->remove(it->first);
          it = m_dirs.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (is_dir && !e.name.empty() && (e.mask & (IN_CREATE | IN_MOVED_TO))) {
      // Made or moved here: watched at this path (with whatever is in it by now) before it
      // is noted, and what it holds noted too: git, told of it, reads all that, and drops
      // what it cached of each directory below.
      {
        std::lock_guard lock(m_mutex);
        for (auto it = m_dirs.begin(); it != m_dirs.end();) {
          if (within(it->second, path)) { // an earlier scan of this path: made again below
            m_watcher->remove(it->first);
            it = m_dirs.erase(it);
          } else {
            ++it;
          }
        }
      }
      Manifest found;
      if (!scan(found, true, path)) {
        m_changes.lose_cover();
      }
      for (const auto& [p, en] : found) {
        m_changes.note(p, S_ISDIR(en.mode));
      }
    }
    m_changes.note(path, is_dir);
  }
}

bool ChangeLogKeeper::load(ChangeLog::Saved& saved, Manifest& before) {
  std::string data;
  {
    std::ifstream in(m_file, std::ios::binary);
    if (!in) {
      return false;
    }
    data.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::error_code ec;
  std::filesystem::remove(m_file, ec); // from here a crash leaves nothing to trust
  if (data.size() < 2 * sizeof k_magic || std::memcmp(data.data(), k_magic, sizeof k_magic) != 0 ||
      std::memcmp(data.data() + data.size() - sizeof k_trailer, k_trailer, sizeof k_trailer) != 0) {
    return false;
  }
  Reader r{std::string_view(data).substr(sizeof k_magic, data.size() - 2 * sizeof k_magic)};
  auto root = root_id(m_real);
  RootId saved_root{r.get<uint64_t>(), r.get<uint64_t>()};
  if (!root || root->dev != saved_root.dev || root->ino != saved_root.ino) {
    return false; // another real tree
  }
  saved.instance = r.get<uint64_t>();
  saved.seq = r.get<uint64_t>();
  saved.forgotten = r.get<uint64_t>();
  auto names = r.get<uint64_t>();
  for (uint64_t i = 0; r.ok && i < names; ++i) {
    uint64_t seq = r.get<uint64_t>();
    saved.names.emplace_back(seq, r.get_str());
  }
  auto entries = r.get<uint64_t>();
  for (uint64_t i = 0; r.ok && i < entries; ++i) {
    std::string path = r.get_str();
    Entry en{r.get<uint64_t>(), r.get<uint32_t>(), r.get<uint64_t>(), r.get<int64_t>(),
             r.get<int64_t>()};
    before.emplace_hint(before.end(), std::move(path), en);
  }
  return r.ok && r.data.empty();
}

bool ChangeLogKeeper::start() {
  ChangeLog::Saved saved;
  Manifest before;
  bool kept = load(saved, before);
  if (kept) {
    m_changes.restore(std::move(saved));
  }
  m_watcher =
      std::make_unique<LowerWatcher>([this](const LowerWatcher::Event* events, size_t count,
                                            bool overflow) { on_events(events, count, overflow); });
  Manifest now;
  if (!scan(now, true)) {
    m_watcher.reset(); // the view's own watcher alone, as without a keeper
    {
      std::lock_guard lock(m_mutex);
      m_dirs.clear();
    }
    if (kept) {
      m_changes.note_everything(); // cannot vouch: every saved token answers "/"
    }
    return false;
  }
  m_changes.set_covered();
  m_changes.set_before_answer([this] { return m_watcher->sync(2000); });
  if (!kept) {
    return false;
  }
  // What the person did while nothing ran (each directory was watched before it was read,
  // so what changes from here on is an event).
  size_t noted = 0;
  auto note = [&](const std::string& path, bool dir) {
    m_changes.note(path, dir);
    ++noted;
  };
  auto a = before.begin();
  auto b = now.begin();
  while (a != before.end() || b != now.end()) {
    if (b == now.end() || (a != before.end() && a->first < b->first)) {
      note(a->first, S_ISDIR(a->second.mode)); // gone
      ++a;
    } else if (a == before.end() || b->first < a->first) {
      note(b->first, S_ISDIR(b->second.mode)); // new
      ++b;
    } else {
      const Entry &was = a->second, &is = b->second;
      if ((was.mode & S_IFMT) != (is.mode & S_IFMT)) {
        note(a->first, false); // a file where a directory was, or the other way
        note(a->first, true);
      } else if (S_ISDIR(is.mode)) {
        if (was.ino != is.ino || was.mode != is.mode) {
          note(a->first, true); // replaced; its entries are compared one by one
        }
      } else if (!(was == is)) {
        note(a->first, false);
      }
      ++a;
      ++b;
    }
  }
  logger().info("fsmonitor: record continued from the last unmount ({} real-tree entries, {} "
                "changed meanwhile)",
                now.size(), noted);
  return true;
}

void ChangeLogKeeper::save(const std::function<bool()>& sync_view) {
  auto root = root_id(m_real);
  Manifest now;
  // The manifest first, the watchers' catch-up after: an edit is either seen by a watcher
  // (on record) or made after its entry was read (a difference at the next mount).
  if (!root || !scan(now, false)) {
    logger().info("fsmonitor: the record is not kept: the real tree ('{}') cannot be read whole, "
                  "or holds more than {} entries",
                  m_real.string(), k_max_entries);
    return;
  }
  if (!sync_view() || (m_watcher && !m_watcher->sync(2000))) {
    logger().info("fsmonitor: the record is not kept: the watchers did not catch up");
    return;
  }
  std::optional<ChangeLog::Saved> saved = m_changes.save();
  if (!saved) {
    logger().info("fsmonitor: the record is not kept: real-tree directories went unwatched");
    return; // blind: it cannot vouch for what it did not see
  }
  std::string out(k_magic, sizeof k_magic);
  put<uint64_t>(out, root->dev);
  put<uint64_t>(out, root->ino);
  put<uint64_t>(out, saved->instance);
  put<uint64_t>(out, saved->seq);
  put<uint64_t>(out, saved->forgotten);
  put<uint64_t>(out, saved->names.size());
  for (const auto& [seq, name] : saved->names) {
    put<uint64_t>(out, seq);
    put_str(out, name);
  }
  put<uint64_t>(out, now.size());
  for (const auto& [path, e] : now) {
    put_str(out, path);
    put<uint64_t>(out, e.ino);
    put<uint32_t>(out, e.mode);
    put<uint64_t>(out, e.size);
    put<int64_t>(out, e.mtime);
    put<int64_t>(out, e.ctime);
  }
  out.append(k_trailer, sizeof k_trailer);
  std::filesystem::path tmp = m_file;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f.flush()) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, m_file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return;
  }
  m_saved_seq = saved->seq;
  m_saved = true;
  logger().info("fsmonitor: record saved for the next mount ({} real-tree entries)", now.size());
}

} // namespace ws::fuse
