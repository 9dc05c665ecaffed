#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ws::fuse {

/// What git's fsmonitor hook asks the daemon (docs/fsmonitor.md): which names of the view
/// changed since a token. Every change the view makes and every change the real-tree watcher
/// reports is noted here with a sequence number; a token names the daemon instance and a
/// number. Bounded: past `max_paths` names the oldest are forgotten, and a token older than
/// what was forgotten answers "everything may have changed". Correctness first: whenever
/// the record cannot vouch for a short list (another daemon's token, a forgotten name, a
/// real-tree directory the daemon does not watch), the answer is "everything".
/// Thread-safe; every method is O(log n) or bounded by its page.
class ChangeLog {
public:
  static constexpr size_t k_default_max_paths = 65536;

  explicit ChangeLog(size_t max_paths = k_default_max_paths);

  /// `path` (relative to the view's root) changed; `dir`: it is a directory (git gets
  /// "path/", the cone below it). The root and the repository's own `.git` are not noted.
  /// Returns the sequence number given (0 if not noted).
  uint64_t note(std::string_view path, bool dir);
  /// Anything may have changed (watcher overflow, ws reset, a checkpoint restored): every
  /// token issued so far answers "everything".
  void note_everything();
  /// The number of the last token handed out: a name noted after it need not be noted again
  /// until the next query (cheap writes).
  uint64_t issued() const;

  /// A real-tree directory at `path` that the daemon does not watch (the watch limit, or
  /// the kernel forgot the node while the directory is still there): while any is, every
  /// answer is "everything". `unblind` when it is watched again, or (`below`: with
  /// everything below it) when it went away; the last one going makes older tokens answer
  /// "everything".
  void blind(const std::string& path);
  void unblind(const std::string& path, bool below);
  bool is_blind() const;
  /// Every real-tree directory is watched by another watcher too (ChangeLogKeeper): a
  /// directory the view stops watching is not blind. `lose_cover` when that watcher could
  /// not watch a new directory: "everything" until the next mount.
  void set_covered();
  void lose_cover();

  struct Page {
    bool everything = false;        ///< answer "/": anything may have changed
    std::string token;              ///< the token to hand to git (its upto)
    uint64_t upto = 0;              ///< the query's fixed end: pass it with the next page
    uint64_t next = 0;              ///< cursor for the next page; 0 when this is the last
    std::vector<std::string> paths; ///< directories end in '/'
  };
  /// The names changed after `token` and at most at `upto` (0: now; the first page fixes it),
  /// from `cursor` on (0 at first), at most `max_bytes` of names with their NULs.
  Page since(std::string_view token, uint64_t upto, uint64_t cursor, size_t max_bytes);

  /// "ws:<instance>:<seq>"
  std::string token_for(uint64_t seq) const;
  uint64_t instance() const;
  /// The last number given: a record saved at `seq()` is out of date once it moved.
  uint64_t seq() const;

  /// What a clean exit keeps for the next daemon (change_log_persist.hpp): the instance, its
  /// numbers and every name on record, so the next daemon answers this one's tokens.
  struct Saved {
    uint64_t instance = 0;
    uint64_t seq = 0;
    uint64_t forgotten = 0;
    std::vector<std::pair<uint64_t, std::string>> names; ///< by number, ascending
  };
  /// Nothing while blind: such a record cannot vouch for what it did not see.
  std::optional<Saved> save() const;
  /// Continues a saved record (before anything is noted): its tokens answer as if this
  /// daemon had issued them.
  void restore(Saved saved);

  /// Called before the first page of every answer, besides the view's own watcher (a
  /// restored record's watcher of the whole real tree); false: answer "everything".
  void set_before_answer(std::function<bool()> sync);
  bool before_answer() const;

private:
  /// True with its number when this instance issued `token`.
  bool parse(std::string_view token, uint64_t& seq) const;
  void evict_locked();

  const size_t m_max;
  std::atomic<uint64_t> m_instance;
  std::function<bool()> m_before_answer; ///< set before the view serves
  mutable std::mutex m_mutex;
  uint64_t m_seq = 0;                                  ///< last number given
  std::atomic<uint64_t> m_issued{0};                   ///< last number handed out in a token
  uint64_t m_forgotten = 0;                            ///< a token below this answers everything
  std::map<uint64_t, std::string> m_by_seq;            ///< each name once, at its last change
  std::unordered_map<std::string, uint64_t> m_by_path; ///< name -> its key in m_by_seq
  std::set<std::string> m_blind;
  bool m_covered = false; ///< blind() is moot: every real-tree directory is watched
  bool m_lost = false;    ///< the cover was lost: everything, always
};

} // namespace ws::fuse
