#include "fuse/change_log.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <ctime>

namespace ws::fuse {

namespace {

uint64_t new_instance() {
  uint64_t id = 0;
  if (::getrandom(&id, sizeof id, 0) != sizeof id) {
    // No entropy this early is unheard of; a clock and the pid still differ between restarts.
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    id = (static_cast<uint64_t>(ts.tv_sec) << 32) ^ static_cast<uint64_t>(ts.tv_nsec) ^
         (static_cast<uint64_t>(::getpid()) << 20);
  }
  return id;
}

/// The repository's own `.git` (git's index writes would otherwise flood the record; git
/// ignores them in an answer anyway).
bool is_own_git(std::string_view path) {
  return path == ".git" || path.substr(0, 5) == ".git/";
}

bool within(std::string_view path, std::string_view dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

} // namespace

ChangeLog::ChangeLog(size_t max_paths) : m_max(max_paths), m_instance(new_instance()) {}

uint64_t ChangeLog::note(std::string_view path, bool dir) {
  if (path.empty() || is_own_git(path)) {
    return 0;
  }
  std::string key(path);
  if (dir) {
    key += '/';
  }
  std::lock_guard lock(m_mutex);
  uint64_t seq = m_seq + 1;
  auto [it, inserted] = m_by_path.try_emplace(key, seq);
  if (!inserted && it->second > m_issued.load(std::memory_order_relaxed)) {
    // Noted since the last token was handed out (a create, then its mode and times): every
    // token given so far already gets it, and one given later is not owed it.
    return it->second;
  }
  m_seq = seq;
  if (!inserted) {
    auto old = m_by_seq.find(it->second);
    m_by_seq.insert(m_by_seq.end(), {seq, std::move(old->second)});
    m_by_seq.erase(old);
    it->second = seq;
  } else {
    m_by_seq.emplace_hint(m_by_seq.end(), seq, std::move(key));
    evict_locked();
  }
  return seq;
}

void ChangeLog::evict_locked() {
  while (m_by_seq.size() > m_max) {
    auto oldest = m_by_seq.begin();
    m_forgotten = oldest->first; // a token before it would miss this name
    m_by_path.erase(oldest->second);
    m_by_seq.erase(oldest);
  }
}

void ChangeLog::note_everything() {
  std::lock_guard lock(m_mutex);
  m_forgotten = ++m_seq; // tokens up to here (all issued ones) answer everything
  m_by_seq.clear();      // nothing before that can be asked for any more
  m_by_path.clear();
}

uint64_t ChangeLog::issued() const {
  return m_issued.load(std::memory_order_acquire);
}

void ChangeLog::blind(const std::string& path) {
  if (path.empty() || is_own_git(path)) {
    return;
  }
  std::lock_guard lock(m_mutex);
  if (!m_covered) {
    m_blind.insert(path);
  }
}

void ChangeLog::set_covered() {
  std::lock_guard lock(m_mutex);
  m_covered = m_blind.empty() && !m_lost;
}

void ChangeLog::lose_cover() {
  std::lock_guard lock(m_mutex);
  m_covered = false;
  m_lost = true;
}

void ChangeLog::unblind(const std::string& path, bool below) {
  std::lock_guard lock(m_mutex);
  if (m_blind.empty()) {
    return;
  }
  size_t before = m_blind.size();
  for (auto it = m_blind.lower_bound(path); it != m_blind.end();) {
    if (*it == path || (below && within(*it, path))) {
      it = m_blind.erase(it);
    } else if (below && it->compare(0, path.size(), path) == 0) {
      ++it; // "a-b" sorts between "a" and "a/b"
    } else {
      break;
    }
  }
  if (m_blind.empty() && before > 0) {
    // Tokens handed out while blind promised nothing about those directories.
    m_forgotten = ++m_seq;
    m_by_seq.clear();
    m_by_path.clear();
  }
}

bool ChangeLog::is_blind() const {
  std::lock_guard lock(m_mutex);
  return !m_blind.empty();
}

uint64_t ChangeLog::instance() const {
  return m_instance.load(std::memory_order_acquire);
}

uint64_t ChangeLog::seq() const {
  std::lock_guard lock(m_mutex);
  return m_seq;
}

std::optional<ChangeLog::Saved> ChangeLog::save() const {
  std::lock_guard lock(m_mutex);
  if (!m_blind.empty() || m_lost) {
    return std::nullopt;
  }
  Saved s;
  s.instance = instance();
  s.seq = m_seq;
  s.forgotten = m_forgotten;
  s.names.assign(m_by_seq.begin(), m_by_seq.end());
  return s;
}

void ChangeLog::restore(Saved saved) {
  std::lock_guard lock(m_mutex);
  m_instance.store(saved.instance, std::memory_order_release);
  m_seq = saved.seq;
  m_forgotten = saved.forgotten;
  m_issued.store(saved.seq, std::memory_order_release);
  m_by_seq.clear();
  m_by_path.clear();
  for (auto& [seq, name] : saved.names) {
    if (seq <= m_forgotten || seq > m_seq || m_by_path.count(name) != 0) {
      continue; // not what save() writes: keep the record consistent anyway
    }
    m_by_path.emplace(name, seq);
    m_by_seq.emplace(seq, std::move(name));
  }
  evict_locked();
}

void ChangeLog::set_before_answer(std::function<bool()> sync) {
  m_before_answer = std::move(sync);
}

bool ChangeLog::before_answer() const {
  return !m_before_answer || m_before_answer();
}

std::string ChangeLog::token_for(uint64_t seq) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "ws:%016llx:%llu", static_cast<unsigned long long>(instance()),
                static_cast<unsigned long long>(seq));
  return buf;
}

bool ChangeLog::parse(std::string_view token, uint64_t& seq) const {
  std::string prefix = token_for(0);
  prefix.pop_back(); // "ws:<instance>:"
  if (token.size() <= prefix.size() || token.substr(0, prefix.size()) != prefix) {
    return false;
  }
  std::string_view digits = token.substr(prefix.size());
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seq);
  return ec == std::errc() && end == digits.data() + digits.size();
}

ChangeLog::Page ChangeLog::since(std::string_view token, uint64_t upto, uint64_t cursor,
                                 size_t max_bytes) {
  Page page;
  uint64_t from = 0;
  bool ours = parse(token, from);
  std::lock_guard lock(m_mutex);
  if (upto == 0 || upto > m_seq) {
    upto = m_seq;
  }
  page.upto = upto;
  page.token = token_for(upto);
  if (m_issued.load(std::memory_order_relaxed) < upto) {
    m_issued.store(upto, std::memory_order_release);
  }
  if (!ours || from > upto || from < m_forgotten || !m_blind.empty() || m_lost) {
    page.everything = true;
    return page;
  }
  size_t used = 0;
  for (auto it = m_by_seq.upper_bound(std::max(from, cursor)); it != m_by_seq.end(); ++it) {
    if (it->first > upto) {
      return page;
    }
    if (it->second.size() + 1 > max_bytes) {
      page.everything = true; // a name longer than a page: never a short list without it
      page.paths.clear();
      return page;
    }
    if (used + it->second.size() + 1 > max_bytes) {
      page.next = std::prev(it)->first;
      return page;
    }
    used += it->second.size() + 1;
    page.paths.push_back(it->second);
  }
  return page;
}

} // namespace ws::fuse
