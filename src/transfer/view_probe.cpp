// What surrounds a changed path, in the view after apply and in the real tree.
#include "src/transfer/view_probe.hpp"

#include "filters/pattern.hpp"
#include "fuse/changes.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <deque>
#include <vector>

namespace ws {

using filters::SymlinkReach;
using fuse::UniqueFd;

namespace {

void push_components(std::deque<std::string>& todo, const std::string& s, bool front) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('/', start);
    if (end == std::string::npos) {
      end = s.size();
    }
    if (end > start) {
      parts.push_back(s.substr(start, end - start));
    }
    start = end + 1;
  }
  if (front) {
    todo.insert(todo.begin(), parts.begin(), parts.end());
  } else {
    todo.insert(todo.end(), parts.begin(), parts.end());
  }
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    out = fuse::join_path(out, p);
  }
  return out;
}

int severity(SymlinkReach r) {
  switch (r) {
  case SymlinkReach::Inside:
    return 0;
  case SymlinkReach::Unresolvable:
    return 1;
  case SymlinkReach::IntoGit:
    return 2;
  case SymlinkReach::Outside:
    return 3;
  }
  return 3;
}

} // namespace

ViewProbe::ViewProbe(const Workspace& w, const StateSource& s)
    : m_real(::open(w.repo.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
      m_upper(::open(s.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
  if (!m_real) {
    throw_errno("open the real tree", w.repo.string());
  }
  if (!m_upper) {
    throw_errno("open the workspace's upper layer", s.state.upper().string());
  }
}

bool ViewProbe::lstat(const std::string& path, struct stat& st, World world) const {
  for (int root : {m_upper.get(), m_real.get()}) {
    if (world == World::RealOnly && root == m_upper.get()) {
      continue;
    }
    UniqueFd fd(fuse::open_beneath(root, path, O_PATH | O_NOFOLLOW));
    if (fd && ::fstat(fd.get(), &st) == 0) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> ViewProbe::readlink(const std::string& path, World world) const {
  for (int root : {m_upper.get(), m_real.get()}) {
    if (world == World::RealOnly && root == m_upper.get()) {
      continue;
    }
    UniqueFd fd(fuse::open_beneath(root, path, O_PATH | O_NOFOLLOW));
    if (!fd) {
      continue;
    }
    char buf[4096];
    ssize_t n = ::readlinkat(fd.get(), "", buf, sizeof buf);
    if (n < 0) {
      return std::nullopt; // not a symlink here
    }
    return std::string(buf, static_cast<size_t>(n));
  }
  return std::nullopt;
}

bool ViewProbe::ancestor_holds(const std::string& path, const char* name) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    return false;
  }
  // The directory asked last for this name (sorted paths: siblings follow each other).
  std::string_view parent(path.data(), slash);
  Recent* recent = nullptr;
  for (Recent& r : m_recent) {
    if (r.name == name || r.name == nullptr) {
      recent = &r;
      break;
    }
  }
  if (recent && recent->name == name && recent->dir == parent) {
    return recent->holds;
  }
  // One lookup for the path's directory, which answers for every directory above it too;
  // a directory not asked before is looked at once, up to the first one already known.
  std::string dir = path.substr(0, slash);
  std::vector<std::string> unknown;
  bool holds = false;
  for (;;) {
    std::string key = dir + '\0' + name;
    if (auto it = m_holds.find(key); it != m_holds.end()) {
      holds = it->second;
      break;
    }
    struct stat st {};
    if (lstat(dir + "/" + name, st)) {
      holds = true;
      m_holds.emplace(std::move(key), true);
      break;
    }
    unknown.push_back(std::move(key));
    size_t up = dir.rfind('/');
    if (up == std::string::npos) {
      break; // the top: nothing above holds it
    }
    dir.resize(up);
  }
  for (auto& key : unknown) {
    m_holds.emplace(std::move(key), holds); // a directory below one that holds it, holds it
  }
  if (recent) {
    recent->name = name;
    recent->dir.assign(parent);
    recent->holds = holds;
  }
  return holds;
}

bool ViewProbe::inside_bare_repo(const std::string& path) {
  if (!ancestor_holds(path, "HEAD")) {
    return false; // cached per directory: the answer for nearly every path
  }
  std::string dir = path;
  for (size_t up = dir.rfind('/'); up != std::string::npos; up = dir.rfind('/')) {
    dir.resize(up);
    struct stat head {
    }, objects{}, refs{};
    if (lstat(dir + "/HEAD", head) && (S_ISREG(head.st_mode) || S_ISLNK(head.st_mode)) &&
        lstat(dir + "/objects", objects) && S_ISDIR(objects.st_mode) &&
        lstat(dir + "/refs", refs) && S_ISDIR(refs.st_mode)) {
      return true;
    }
  }
  return false;
}

SymlinkReach ViewProbe::resolve(const std::string& link, const std::string& target,
                                World world) const {
  constexpr int k_max_hops = 40; // as the kernel's MAXSYMLINKS
  if (!target.empty() && target.front() == '/') {
    return SymlinkReach::Outside;
  }
  std::deque<std::string> todo;
  push_components(todo, link, false);
  if (!todo.empty()) {
    todo.pop_back(); // the link itself: resolution starts in its directory
  }
  std::vector<std::string> cur(todo.begin(), todo.end());
  todo.clear();
  push_components(todo, target, false);
  int hops = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c == ".") {
      continue;
    }
    if (c == "..") {
      if (cur.empty()) {
        return SymlinkReach::Outside;
      }
      cur.pop_back();
      continue;
    }
    if (filters::is_dotgit(c)) {
      return SymlinkReach::IntoGit;
    }
    cur.push_back(c);
    struct stat st {};
    if (!lstat(joined(cur), st, world) || !S_ISLNK(st.st_mode)) {
      continue; // a directory, a file, or nothing yet: taken as written
    }
    if (++hops > k_max_hops) {
      return SymlinkReach::Unresolvable;
    }
    auto next = readlink(joined(cur), world);
    if (!next) {
      return SymlinkReach::Unresolvable;
    }
    cur.pop_back();
    if (!next->empty() && next->front() == '/') {
      return SymlinkReach::Outside;
    }
    push_components(todo, *next, true);
  }
  return SymlinkReach::Inside;
}

SymlinkReach ViewProbe::symlink_reach(const std::string& link, const std::string& target) const {
  SymlinkReach after = resolve(link, target, World::AfterApply);
  SymlinkReach real = resolve(link, target, World::RealOnly);
  return severity(after) >= severity(real) ? after : real;
}

} // namespace ws
