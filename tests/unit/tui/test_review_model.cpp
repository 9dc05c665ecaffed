// The review model without a terminal: actions, splitting, persistence, and what lands for
// every combination of decisions.
#include "gitbridge/hunks.hpp"
#include "gitbridge/repository.hpp"
#include "tui/keymap.hpp"
#include "tui/review_model.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

using namespace ws::tui;

namespace {

/// Hunks of before -> after as the review gets them (libgit2 through gitbridge).
std::vector<Hunk> hunks_of(const std::string& before, const std::string& after) {
  static ws::gitbridge::LibGit2 libgit2; // for the whole test run
  std::vector<Hunk> out;
  auto text = ws::gitbridge::text_hunks(before, after);
  REQUIRE(text);
  for (const auto& t : *text) {
    Hunk h;
    h.old_begin = t.old_begin;
    h.new_begin = t.new_begin;
    for (const auto& l : t.lines) {
      h.lines.push_back({static_cast<Line::Kind>(l.origin), l.text});
    }
    out.push_back(std::move(h));
  }
  return out;
}

/// "line 1\n" .. "line n\n" with the lines in `changed` (1-based) replaced.
std::string numbered(int n, const std::set<int>& changed = {}) {
  std::string s;
  for (int i = 1; i <= n; ++i) {
    s += (changed.count(i) ? "CHANGED " : "line ") + std::to_string(i) + "\n";
  }
  return s;
}

FileEntry text_file(const std::string& path, const std::string& before, const std::string& after,
                    Group g = Group::Transfer) {
  FileEntry f;
  f.path = f.old_path = path;
  f.group = g;
  f.hunk_level = true;
  f.hunks = hunks_of(before, after);
  f.identity = before + "\0" + after;
  return f;
}

FileEntry whole_file(const std::string& path, char status, Group g = Group::Transfer,
                     const std::string& reason = "") {
  FileEntry f;
  f.path = f.old_path = path;
  f.status = status;
  f.group = g;
  f.reason = reason;
  f.overridable = g == Group::Withheld;
  f.notes = {"binary file changed"};
  return f;
}

Review sample() {
  Review r;
  r.workspace = "default";
  r.id = "0123456789abcdef";
  r.files.push_back(text_file("src/a.c", numbered(30), numbered(30, {2, 15, 28})));
  r.files.push_back(whole_file("run.sh", 'A', Group::Withheld, "new executable"));
  r.files.push_back(whole_file(".git/hooks/pre-commit", 'A', Group::Blocked,
                               "never transferred: inside .git/ (hooks, config)"));
  r.files.push_back(text_file("Makefile", "all:\n\ttrue\n", "all:\n\tfalse\n", Group::Flagged));
  r.files.back().reason = "runs code on your machine: Makefile";
  return r;
}

} // namespace

TEST_CASE("tui::apply_hunks every combination of three hunks lands exactly those") {
  std::string before = numbered(30), after = numbered(30, {2, 15, 28});
  std::vector<Hunk> hunks = hunks_of(before, after);
  REQUIRE(hunks.size() == 3);
  int lines[] = {2, 15, 28};
  for (int mask = 0; mask < 8; ++mask) {
    std::set<int> taken;
    for (int i = 0; i < 3; ++i) {
      hunks[static_cast<size_t>(i)].decision =
          mask & (1 << i) ? Decision::Accepted : (i % 2 ? Decision::Rejected : Decision::Undecided);
      if (mask & (1 << i)) {
        taken.insert(lines[i]);
      }
    }
    CAPTURE(mask);
    CHECK(apply_hunks(before, hunks) == numbered(30, taken));
  }
}

TEST_CASE("tui::apply_hunks insertions at the ends and a missing final newline") {
  std::string before = "a\nb\nc", after = "top\na\nb\nc\nend\n";
  std::vector<Hunk> hunks = hunks_of(before, after);
  for (auto& h : hunks) {
    h.decision = Decision::Accepted;
  }
  CHECK(apply_hunks(before, hunks) == after);
  CHECK(apply_hunks(before, hunks, Decision::Rejected) == before);
  CHECK(apply_hunks("", hunks_of("", "x\n")) == "");
}

TEST_CASE("tui::apply_hunks refuses hunks that do not fit") {
  std::vector<Hunk> hunks = hunks_of(numbered(10), numbered(10, {5}));
  hunks[0].decision = Decision::Accepted;
  CHECK_THROWS(apply_hunks(numbered(3), hunks));
}

TEST_CASE("tui::split divides a hunk at its context and each part lands alone") {
  std::string before = numbered(20), after = numbered(20, {8, 13});
  Review r;
  r.id = "id";
  r.files.push_back(text_file("f.txt", before, after));
  REQUIRE(r.files[0].hunks.size() == 1); // 4 lines apart: one hunk with 3 lines of context
  CHECK(r.files[0].hunks[0].header() == "@@ -5,12 +5,12 @@");
  ReviewModel m(r);
  CHECK(m.apply(Action::ToggleFocus) == Effect::None);
  CHECK(m.apply(Action::Split) == Effect::Changed);
  const auto& h = m.files()[0].hunks;
  REQUIRE(h.size() == 2);
  CHECK(h[0].header() == "@@ -5,8 +5,8 @@");
  CHECK(h[1].header() == "@@ -9,8 +9,8 @@");         // the context between belongs to both
  CHECK(m.apply(Action::Split) == Effect::Message);  // one change left in this part
  CHECK(m.apply(Action::Accept) == Effect::Changed); // first part; moves to the second
  CHECK(m.current_hunk() == 1);
  CHECK(m.apply(Action::Reject) == Effect::Changed);
  CHECK(apply_hunks(before, m.files()[0].hunks) == numbered(20, {8}));
  CHECK(file_state(m.files()[0]) == FileState::Partial);
}

TEST_CASE("tui::ReviewModel groups files and moves through them") {
  ReviewModel m(sample());
  std::vector<std::string> order;
  for (const auto& f : m.files()) {
    order.push_back(f.path);
  }
  CHECK(order ==
        std::vector<std::string>{"src/a.c", "Makefile", "run.sh", ".git/hooks/pre-commit"});
  CHECK(m.focus() == Focus::Files);
  m.apply(Action::Down);
  CHECK(m.selected() == 1);
  m.apply(Action::Bottom);
  CHECK(m.selected() == 3);
  m.apply(Action::Down);
  CHECK(m.selected() == 3);
  m.apply(Action::Top);
  CHECK(m.selected() == 0);
  m.apply(Action::NextHunk);
  CHECK(m.focus() == Focus::Diff);
  CHECK(m.current_hunk() == 1);
  m.apply(Action::PrevHunk);
  CHECK(m.current_hunk() == 0);
  CHECK(m.apply(Action::PrevHunk) == Effect::Message);
}

TEST_CASE("tui::ReviewModel accept and reject per file and per hunk") {
  ReviewModel m(sample());
  CHECK_FALSE(m.any_decision());
  CHECK(m.apply(Action::Finish) == Effect::Message); // nothing accepted
  m.apply(Action::ToggleFocus);
  CHECK(m.apply(Action::Accept) == Effect::Changed);
  CHECK(m.apply(Action::Reject) == Effect::Changed);
  CHECK(m.current_hunk() == 2);
  CHECK(file_state(m.files()[0]) == FileState::Partial);
  CHECK(m.apply(Action::Undecide) == Effect::Changed);
  CHECK(m.files()[0].hunks[2].decision == Decision::Undecided);
  CHECK(m.apply(Action::RejectFile) == Effect::Changed);
  CHECK(file_state(m.files()[0]) == FileState::Rejected);
  CHECK(m.apply(Action::AcceptFile) == Effect::Changed);
  CHECK(file_state(m.files()[0]) == FileState::Accepted);
  m.apply(Action::ToggleFocus);
  CHECK(m.apply(Action::Reject) == Effect::Changed); // whole file from the list, moves on
  CHECK(file_state(m.files()[0]) == FileState::Rejected);
  CHECK(m.selected() == 1);
  CHECK(m.apply(Action::Accept) == Effect::Changed); // flagged lands when accepted
  CHECK(file_state(m.files()[1]) == FileState::Accepted);
  CHECK(m.any_accepted());
  CHECK(m.apply(Action::Finish) == Effect::AskFinish);
  CHECK(m.apply(Action::Quit) == Effect::AskQuit);
}

TEST_CASE("tui::ReviewModel withheld needs a confirmed override and blocked never moves") {
  ReviewModel m(sample());
  m.apply(Action::Bottom);
  const FileEntry& blocked = *m.selected_file();
  CHECK(blocked.group == Group::Blocked);
  CHECK(m.apply(Action::Accept) == Effect::Message);
  CHECK(m.message().find("never transferred") != std::string::npos);
  CHECK(m.apply(Action::Override) == Effect::Message);
  CHECK(file_state(blocked) == FileState::Locked);

  m.apply(Action::Up);
  const FileEntry& withheld = *m.selected_file();
  CHECK(withheld.path == "run.sh");
  CHECK(m.apply(Action::Accept) == Effect::Message);
  CHECK(m.message().find("press o") != std::string::npos);
  CHECK(m.apply(Action::Override) == Effect::AskOverride);
  CHECK_FALSE(withheld.overridden); // nothing until confirmed
  CHECK(m.confirm_override() == Effect::Changed);
  CHECK(withheld.overridden);
  CHECK(file_state(withheld) == FileState::Accepted);
  CHECK(m.apply(Action::Override) == Effect::Message);

  Review r = sample();
  r.files[1].overridable = false; // e.g. a FIFO: withheld, git cannot hold it
  ReviewModel m2(r);
  m2.apply(Action::NextFile);
  m2.apply(Action::NextFile);
  CHECK(m2.apply(Action::Override) == Effect::Message);
  CHECK(m2.message().find("cannot be taken") != std::string::npos);
}

TEST_CASE("tui::ReviewModel search paths and lines - n and N wrap") {
  ReviewModel m(sample());
  CHECK(m.apply(Action::SearchNext) == Effect::Message);
  CHECK(m.apply(Action::Search) == Effect::AskSearch);
  CHECK(m.search("CHANGED 15") == Effect::None);
  CHECK(m.selected() == 0);
  CHECK(m.focus() == Focus::Diff);
  CHECK(m.current_hunk() == 1);
  m.search("run.sh");
  CHECK(m.selected_file()->path == "run.sh");
  CHECK(m.focus() == Focus::Files);
  m.search("CHANGED");
  CHECK(m.selected() == 0); // wrapped
  m.apply(Action::SearchNext);
  CHECK(m.current_hunk() == 1);
  m.apply(Action::SearchPrev);
  CHECK(m.current_hunk() == 0);
  CHECK(m.search("no such text") == Effect::Message);
}

TEST_CASE("tui::ReviewModel decisions survive save and restore") {
  ReviewModel m(sample());
  m.apply(Action::ToggleFocus);
  m.apply(Action::Accept);
  m.apply(Action::Reject);
  m.apply(Action::NextFile);
  m.apply(Action::NextFile);
  m.apply(Action::Override);
  m.confirm_override();
  std::string saved = m.save();

  ReviewModel again(sample());
  CHECK(again.restore(saved, true) == 4); // 2 hunks, the override, the file
  CHECK(again.save() == saved);
  CHECK(again.files()[0].hunks[0].decision == Decision::Accepted);
  CHECK(again.files()[0].hunks[1].decision == Decision::Rejected);
  CHECK(again.files()[2].overridden);

  Review changed = sample();
  changed.id = "fedcba9876543210";
  ReviewModel other(changed);
  CHECK(other.restore(saved, true) == 0); // the workspace changed: a crash restore is off
  changed.files[0] = text_file("src/a.c", numbered(30), numbered(30, {2, 16, 28}));
  ReviewModel reload(changed);
  reload.restore(saved, false); // reload: what is still the same comes back
  CHECK(reload.files()[0].hunks[0].decision == Decision::Accepted);
  CHECK(reload.files()[0].hunks[1].decision == Decision::Undecided);
  CHECK(reload.restore("garbage", false) == 0);
}

TEST_CASE("tui::ReviewModel splits come back before their decisions") {
  Review r;
  r.id = "id";
  r.files.push_back(text_file("f.txt", numbered(20), numbered(20, {8, 13})));
  ReviewModel m(r);
  m.apply(Action::ToggleFocus);
  m.apply(Action::Split);
  m.apply(Action::Reject);
  m.apply(Action::Accept);
  ReviewModel again(r);
  CHECK(again.restore(m.save(), true) == 2);
  REQUIRE(again.files()[0].hunks.size() == 2);
  CHECK(again.files()[0].hunks[0].decision == Decision::Rejected);
  CHECK(again.files()[0].hunks[1].decision == Decision::Accepted);
}

TEST_CASE("tui::key_table binds every action and the help lists it") {
  std::set<Action> bound;
  for (const auto& b : key_table()) {
    bound.insert(b.action);
    CHECK(action_for(b.key) == b.action);
  }
  CHECK(bound.size() == static_cast<size_t>(Action::FoldUp) + 1);
  CHECK(action_for('q') == Action::Quit);
  CHECK_FALSE(action_for('Z'));
  CHECK(help_lines().size() >= 20);
}
