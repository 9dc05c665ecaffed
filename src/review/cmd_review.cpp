// ws review: a terminal session over the workspace's changes; lands exactly what was
// accepted (tree, index or patch file), keeps decisions across crashes.
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/logging.hpp"
#include "src/cli/pager.hpp"
#include "src/review/review_diff.hpp"
#include "src/review/review_loader.hpp"
#include "src/review/review_session.hpp"
#include "src/transfer/conflict_report.hpp"
#include "src/transfer/freed_memory.hpp"
#include "src/transfer/landing.hpp"
#include "src/workspace/workspace_edit.hpp"
#include "tui/screen.hpp"
#include "tui/session.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

namespace ws {

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes `text` to `path` through a temporary and a rename, so a crash leaves the old file
/// or the new one, never half of one.
void write_atomic(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw Error("cannot save review decisions (" + tmp.string() + "): " + std::strerror(errno));
  }
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    throw Error("cannot save review decisions (" + path.string() + "): " + std::strerror(errno));
  }
}

void write_file(const std::string& path, const std::string& text, const char* what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    throw Error(std::string("cannot write ") + what + " to '" + path + "'", "choose another file");
  }
}

int finish(const Workspace& w, const ReviewSource& src, const tui::ReviewModel& model,
           const tui::SessionResult& how, const ReviewOptions& o) {
  // What was shown is what lands: if the workspace moved since, the patch is another one.
  // The session checked just before returning (hooks.fresh); a review of 200,000 files
  // should not pay for loading everything twice more.
  if (!how.checked_fresh && load_review(w, o.paths).review.id != model.review().id) {
    throw Error("the workspace changed while you were finishing: nothing was landed",
                "run 'ws review' again; your decisions on unchanged hunks come back");
  }
  ReviewLanding l = plan_review_landing(
      w, src, model, {how.mode == tui::FinishMode::PatchFile, !o.rejected.empty()});
  if (!o.rejected.empty()) {
    write_file(o.rejected, l.rejected_patch, "the rejected changes");
  }
  if (how.mode == tui::FinishMode::PatchFile) {
    write_file(how.patch_file, l.accepted_patch, "the accepted changes");
    std::printf("wrote the accepted changes to %s (nothing landed; decisions kept)\n",
                how.patch_file.c_str());
    return 0;
  }
  if (!l.conflicts.empty()) {
    bool color = use_color("auto", STDERR_FILENO);
    for (const auto& c : l.conflicts) {
      std::fputs(conflict_report(c, color).c_str(), stderr);
    }
    throw Error(std::to_string(l.conflicts.size()) + " accepted file" +
                    (l.conflicts.size() > 1 ? "s conflict" : " conflicts") +
                    " with your edits in the real tree: nothing was landed",
                "resolve them and review again (your decisions are kept), or land them with "
                "'ws apply --conflicts=markers PATH'");
  }
  RealTreeTransaction tx(w.repo);
  for (const auto& landing : l.landings) {
    tx.stage(landing);
  }
  tx.commit();
  bool stage = how.mode == tui::FinishMode::Stage;
  if (stage) {
    stage_landings(w.repo, l.landings);
  }
  for (const auto& s : landing_report(l, model)) {
    std::printf("%s\n", s.c_str());
  }
  // Files taken whole leave the workspace; of a file taken in part, what landed becomes
  // its base: the accepted hunks are no longer changes, the rejected ones still are.
  try {
    if (!l.drop.empty()) {
      drop_changes(w, l.drop);
    }
    if (!l.rebase.empty()) {
      rebase_changes(w, l.rebase);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: warning: landed, but the workspace still holds these changes: %s\n",
                 e.what());
  }
  std::error_code ec;
  std::filesystem::remove(decisions_file(w), ec);
  std::printf("%s %zu file%s%s\n", stage ? "staged" : "applied", l.summary.size(),
              l.summary.size() == 1 ? "" : "s",
              stage ? ": review with 'git diff --cached', commit with 'git commit'" : "");
  if (!o.rejected.empty()) {
    std::printf("rejected changes written to %s\n", o.rejected.c_str());
  }
  return 0;
}

/// The terminal while the review is up, and the logs kept meanwhile (nothing may print over
/// the screen): printed once it is gone (`ws -vv review` says what loading did). end() gives
/// the terminal back before anything is printed; so does the destructor, also when an
/// exception unwinds.
class ReviewScreen {
public:
  ReviewScreen() : m_terminal(tui::open_terminal()) {}
  ~ReviewScreen() { end(); }
  ReviewScreen(const ReviewScreen&) = delete;
  ReviewScreen& operator=(const ReviewScreen&) = delete;
  tui::Terminal& terminal() { return *m_terminal; }
  void end() {
    m_terminal.reset();
    m_logs.release();
  }

private:
  HeldLogs m_logs; ///< first: held before the terminal is taken
  std::unique_ptr<tui::Terminal> m_terminal;
};

} // namespace

int cmd_review(const Context& ctx, const ReviewOptions& options) {
  keep_freed_memory();
  if (!::isatty(STDOUT_FILENO) || !::isatty(STDIN_FILENO)) {
    throw Error("ws review needs a terminal (stdin and stdout)",
                "read the patch with 'ws diff' and land it with 'ws apply --expect ID'");
  }
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  ReviewOptions o = options;
  for (auto& p : o.paths) {
    p = ctx.repo_relative(p);
  }
  // The screen comes up first, before anything loads: keys typed from now on are read by
  // the session and kept, never echoed into the terminal or lost.
  ReviewScreen screen;
  tui::ReviewSession session(screen.terminal(), w.name);
  auto wait_for = [&](ReviewLoader& loader) {
    return session.wait([&] { return loader.progress(); }, [&] { return loader.done(); });
  };
  // While the plan of now is made, the list as last planned, when there is one: moved in at
  // once, decided on once the review of now takes its place (tui::ReviewModel::follow).
  std::unique_ptr<tui::ReviewModel> outdated;
  auto wait_with_list = [&](ReviewLoader& loader) {
    return session.wait([&] { return loader.progress(); }, [&] { return loader.done(); },
                        [&]() -> tui::ReviewModel* {
                          if (std::optional<tui::Review> list = loader.take_outdated()) {
                            outdated = std::make_unique<tui::ReviewModel>(std::move(*list));
                          }
                          return outdated.get();
                        });
  };
  std::string carried; // decisions taken into a reload
  bool first = true;
  for (;;) {
    std::optional<ReviewSource> loaded;
    {
      ReviewLoader loader(w, o.paths, first);
      first = false;
      if (!wait_with_list(loader)) {
        screen.end();
        std::fprintf(stderr, "ws review: interrupted; nothing landed\n");
        return 130;
      }
      loaded = loader.take();
    }
    ReviewSource& src = *loaded;
    if (src.review.files.empty()) {
      screen.end();
      std::printf("nothing to review: the workspace has no changes\n");
      return 0;
    }
    // Diffs are made as files are shown; the model takes the files (a review of 200,000
    // files is not copied); `src` keeps what landing needs.
    ReviewDiffs diffs(w, src);
    tui::ReviewModel model(std::move(src.review), &diffs);
    // Where the person was on the provisional list, if they went anywhere or typed a key
    // there (else the list of now starts at its top); keys that waited for a row gone from
    // the list of now would act on another row: they are dropped, and the person told.
    size_t dropped = 0;
    if (outdated) {
      const auto& folds = outdated->folds();
      bool moved = outdated->cursor() > 0 || std::any_of(folds.begin(), folds.end(),
                                                         [](const auto& f) { return f.expanded; });
      if ((moved || session.pending() > 0) && !model.follow(*outdated)) {
        dropped = session.discard_pending();
      }
      outdated.reset();
    }
    // After a crash, decisions come back only for the very same review; after a reload,
    // wherever a file or hunk is still the same.
    size_t restored = carried.empty() ? model.restore(read_text(decisions_file(w)), true)
                                      : model.restore(carried, false);
    if (restored > 0) {
      model.set_message(tui::with_commas(restored) + " decision" + (restored == 1 ? "" : "s") +
                        " restored from your last session");
    }
    if (dropped > 0) {
      model.set_message(std::to_string(dropped) + (dropped == 1 ? " key" : " keys") +
                        " typed meanwhile not applied: the row you were on is not in the list "
                        "of now" +
                        (restored > 0 ? "; " + model.message() : ""));
    }
    tui::SessionHooks hooks;
    hooks.save = [&](const tui::ReviewModel& m) { write_atomic(decisions_file(w), m.save()); };
    hooks.fresh = [&]() -> std::optional<bool> {
      // As long as loading: on its thread, the review on screen, keys kept.
      ReviewLoader check(w, o.paths, false, false);
      if (!wait_for(check)) {
        return std::nullopt;
      }
      return check.take().review.id == model.review().id;
    };
    hooks.stage_by_default = o.index;
    tui::SessionResult r = session.run(model, hooks);
    if (r.kind != tui::SessionResult::Kind::Reload) {
      screen.end();
    }
    switch (r.kind) {
    case tui::SessionResult::Kind::Reload:
      carried = model.save();
      continue;
    case tui::SessionResult::Kind::Interrupted:
      std::fprintf(stderr, "ws review: interrupted; nothing landed, your decisions are kept\n");
      return 130;
    case tui::SessionResult::Kind::Quit:
      std::printf("nothing landed%s\n",
                  model.any_decision() ? "; your decisions are kept for the next 'ws review'" : "");
      return 0;
    case tui::SessionResult::Kind::Finish:
      return finish(w, src, model, r, o);
    }
  }
}

} // namespace ws
