// ws log: every write the view served.
#include "fuse/journal.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace ws {

namespace {

/// The kernel writes a shared mapping's pages back on its own, naming no process: says how
/// the writer shown was found (fuse/mapped_writers.hpp), never more than that.
std::string writeback_note(const fuse::JournalEntry& e) {
  std::string who = std::to_string(e.pid) + " " + visible_text(e.comm);
  if (e.via == "open") {
    return "mmap writeback of a file " + who + " held open for writing";
  }
  if (e.via == "mapped") {
    return "mmap writeback of a file mapped by " + who;
  }
  if (e.via == "last-writer") {
    return "mmap writeback, the kernel names no process; " + who + " wrote the file last";
  }
  if (e.via == "last-reader") {
    return "mmap writeback, the kernel names no process; " + who + " read the file last";
  }
  return "mmap writeback, the kernel names no process";
}

void print_json(const std::vector<fuse::JournalEntry>& entries) {
  std::printf("[");
  bool first = true;
  for (const auto& e : entries) {
    std::printf("%s\n  {\"id\": %lld, \"time_ns\": %lld, \"op\": %s, \"path\": %s",
                first ? "" : ",", static_cast<long long>(e.id), static_cast<long long>(e.time_ns),
                json_string(e.op).c_str(), json_string(e.path).c_str());
    if (!e.path2.empty()) {
      std::printf(", \"path2\": %s", json_string(e.path2).c_str());
    }
    std::printf(", \"pid\": %d, \"uid\": %u, \"comm\": %s", e.pid, e.uid,
                json_string(e.comm).c_str());
    if (e.tid != 0) {
      std::printf(", \"tid\": %d, \"thread\": %s", e.tid, json_string(e.thread).c_str());
    }
    if (!e.detail.empty()) {
      std::printf(", \"detail\": %s", json_string(e.detail).c_str());
    }
    if (!e.via.empty()) {
      std::printf(", \"writeback\": %s", json_string(e.via).c_str());
    }
    if (!e.session.empty()) {
      std::printf(", \"session\": %s", json_string(e.session).c_str());
    }
    if (!e.profile.empty()) {
      std::printf(", \"profile\": %s", json_string(e.profile).c_str());
    }
    std::printf("}");
    first = false;
  }
  std::printf("%s]\n", first ? "" : "\n");
}

} // namespace

int cmd_log(const Context& ctx, const LogOptions& options) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  fuse::JournalQuery q;
  if (!options.since.empty()) {
    q.since_ns = parse_since(options.since, fuse::now_ns());
    if (!q.since_ns) {
      throw Error("cannot understand --since '" + options.since + "'",
                  "use a duration (30s, 10m, 2h, 3d), a date ('2026-11-22 10:30'), or @EPOCH");
    }
  }
  if (!options.path.empty()) {
    q.path = ctx.repo_relative(options.path);
  }
  q.limit = options.limit;
  if (!options.session.empty()) {
    q.session = options.session;
  }
  flush_journal(w); // entries still queued in a running daemon
  auto entries = fuse::read_journal(w.layout.journal_db(), q);
  if (options.json) {
    print_json(entries);
    return 0;
  }
  // The agent names its own processes (prctl(PR_SET_NAME)), xattrs and files: everything
  // but ws's own words is escaped, so no entry can act on the terminal or fake another.
  for (const auto& e : entries) {
    std::string who = std::to_string(e.pid) + " " + visible_text(e.comm);
    if (options.verbose && e.tid != 0 && (e.tid != e.pid || e.thread != e.comm)) {
      who += " [" + std::to_string(e.tid) + " " + visible_text(e.thread) + "]";
    }
    std::printf("%s  %-22s %-9s %s", format_time(e.time_ns).c_str(), who.c_str(),
                visible_text(e.op).c_str(), quote_path(e.path).c_str());
    if (!e.path2.empty()) {
      std::printf(" -> %s", quote_path(e.path2).c_str());
    }
    if (!e.detail.empty()) {
      std::printf("  [%s]",
                  visible_text(e.op == "write" ? summarize_ranges(e.detail) : e.detail).c_str());
    }
    if (!e.via.empty()) {
      std::printf("  (%s)", writeback_note(e).c_str());
    }
    if (!e.session.empty()) {
      std::printf("  (session %s%s)", visible_text(e.session).c_str(),
                  e.profile.empty() ? "" : (", profile " + visible_text(e.profile)).c_str());
    }
    std::printf("\n");
  }
  return 0;
}

} // namespace ws
