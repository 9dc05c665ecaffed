// What changed since the last checkpoint (see change_tracker.hpp).
#include "fuse/store/change_tracker.hpp"

#include "fuse/line_escape.hpp"
#include "fuse/log.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace ws::fuse::store {

namespace {

constexpr const char* k_header = "ws-tracker 1";

TrackerState everything() {
  TrackerState s;
  s.marks.all = true;
  return s;
}

} // namespace

void Marks::add(std::string_view path, bool tree) {
  if (all) {
    return;
  }
  if (path.empty() && tree) {
    all = true;
    paths.clear();
    return;
  }
  auto it = paths.find(path);
  if (it == paths.end()) {
    paths.emplace(std::string(path), tree);
  } else {
    it->second = it->second || tree;
  }
}

void Marks::merge(const Marks& other) {
  if (other.all) {
    all = true;
    paths.clear();
    return;
  }
  for (auto& [path, tree] : other.paths) {
    add(path, tree);
  }
}

TrackerState load_tracker(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line) || line != k_header) {
    return everything();
  }
  TrackerState s;
  bool base_seen = false;
  while (std::getline(in, line)) {
    size_t sp = line.find(' ');
    std::string_view key = std::string_view(line).substr(0, sp);
    std::string_view value =
        sp == std::string::npos ? std::string_view() : std::string_view(line).substr(sp + 1);
    if (key == "base") {
      s.base = ObjectId::from_hex(value);
      base_seen = true;
    } else if (key == "state") {
      s.serving = value == "serving";
    } else if (key == "all") {
      s.marks.all = true;
    } else if (key == "walk") {
      s.marks.add(unescape_line(value), true);
    } else if (key == "mark") {
      s.marks.add(unescape_line(value), false);
    } else if (key == "end") {
      return base_seen ? s : everything();
    }
  }
  return everything(); // cut short: whatever it said is not the whole story
}

void save_tracker(const std::filesystem::path& file, const TrackerState& state) {
  std::ostringstream out;
  out << k_header << "\nbase " << (state.base ? state.base->hex() : "none") << "\nstate "
      << (state.serving ? "serving" : "stopped") << "\n";
  if (state.marks.all) {
    out << "all\n";
  } else {
    for (auto& [path, tree] : state.marks.paths) {
      out << (tree ? "walk " : "mark ") << escape_line(path) << "\n";
    }
  }
  out << "end\n";
  std::string text = out.str();
  std::filesystem::path tmp = file;
  tmp += ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
    if (!f.flush()) {
      throw SystemError(errno ? errno : EIO, "write '" + tmp.string() + "'");
    }
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    throw_errno("replace", file.string());
  }
}

void add_offline_marks(const std::filesystem::path& file, const Marks& marks) {
  TrackerState s = load_tracker(file);
  if (s.serving) {
    s.marks.all = true; // a daemon died with its marks: nothing says what it changed
    s.serving = false;
  }
  s.marks.merge(marks);
  save_tracker(file, s);
}

void ChangeTracker::add(std::string_view path, bool tree) {
  std::lock_guard lock(m_mutex);
  m_marks.add(path, tree);
}

void ChangeTracker::mark_all() {
  std::lock_guard lock(m_mutex);
  m_marks.all = true;
  m_marks.paths.clear();
}

Marks ChangeTracker::take() {
  std::lock_guard lock(m_mutex);
  Marks out = std::move(m_marks);
  m_marks = Marks{};
  m_generation.fetch_add(1, std::memory_order_acq_rel);
  return out;
}

void ChangeTracker::give_back(const Marks& marks) {
  std::lock_guard lock(m_mutex);
  m_marks.merge(marks);
}

size_t ChangeTracker::pending() const {
  std::lock_guard lock(m_mutex);
  return m_marks.size();
}

std::optional<ObjectId> ChangeTracker::start_serving() {
  TrackerState s = load_tracker(m_file);
  if (s.serving) {
    logger().info("checkpoints: the last daemon did not save what it changed; the next "
                  "checkpoint reads the whole state again");
    s.marks.all = true;
  }
  {
    std::lock_guard lock(m_mutex);
    m_marks.merge(s.marks);
  }
  TrackerState now;
  now.base = s.base;
  now.serving = true;
  now.marks.all = s.marks.all; // a crash from here on is noticed by `serving`
  save_tracker(m_file, now);
  return s.base;
}

void ChangeTracker::stop_serving(const std::optional<ObjectId>& base) noexcept {
  try {
    TrackerState s;
    s.base = base;
    s.serving = false;
    {
      std::lock_guard lock(m_mutex);
      s.marks = m_marks;
    }
    TrackerState on_disk = load_tracker(m_file);
    if (on_disk.base != base) {
      s.base = on_disk.base;
      s.marks.all = true; // the base changed behind our back (pruned)
      s.marks.paths.clear();
    }
    save_tracker(m_file, s);
  } catch (const std::exception& e) {
    logger().warn("checkpoints: cannot save what changed since the last one ({}); the next "
                  "checkpoint reads the whole state again",
                  e.what());
  }
}

} // namespace ws::fuse::store
