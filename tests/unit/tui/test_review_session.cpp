// The session loop on a scripted terminal: keys typed while something loads are applied
// afterwards in the order typed, Ctrl-C leaves at once, a search runs between keys.
#include "tui/keymap.hpp"
#include "tui/session.hpp"

#include <doctest/doctest.h>

#include <deque>
#include <string>

using namespace ws::tui;

namespace {

/// A terminal whose keys come from a script; each key() call is one tick of time.
class ScriptedTerminal final : public Terminal {
public:
  std::pair<int, int> size() const override { return {100, 30}; }
  void paint(const Frame& f) override { last = f.dump(); }
  std::optional<int> key(int) override {
    ++ticks;
    if (keys.empty()) {
      return std::nullopt;
    }
    int k = keys.front();
    keys.pop_front();
    return k;
  }
  /// Once the script is over, a signal: a loop waiting for more keys ends.
  bool interrupted() const override { return end_when_empty && keys.empty(); }
  void show_cursor(bool) override {}

  std::deque<int> keys;
  bool end_when_empty = false;
  std::string last;
  int ticks = 0;
};

FileEntry text(const std::string& path) {
  FileEntry f;
  f.path = f.old_path = path;
  f.identity = path;
  f.notes = {"new file"};
  f.status = 'A';
  return f;
}

Review three() {
  Review r;
  r.workspace = "default";
  r.id = "id";
  for (const char* p : {"a.txt", "b.txt", "c.txt"}) {
    r.files.push_back(text(p));
  }
  return r;
}

SessionHooks hooks(int& saves) {
  SessionHooks h;
  h.save = [&saves](const ReviewModel&) { ++saves; };
  h.fresh = [] { return std::optional<bool>(true); };
  return h;
}

} // namespace

TEST_CASE("tui::ReviewSession keys typed while loading are applied in order afterwards") {
  ScriptedTerminal t;
  ReviewSession s(t, "default");
  // The person types j, a, r while the review loads (ready after 5 ticks).
  t.keys = {'j', 'a', k_key_resize, 'r'};
  int ticks_to_load = 8;
  bool ok = s.wait(
      [] {
        return Progress{"finding the changes", 0, 0};
      },
      [&] { return t.ticks >= ticks_to_load; });
  CHECK(ok);
  CHECK(s.pending() == 3); // a resize is not a key
  CHECK(t.last.find("3 keys waiting") != std::string::npos);
  CHECK(t.last.find("finding the changes") != std::string::npos);
  // Then q: it quits after the kept keys, because they made decisions it asks first.
  t.keys = {'q', 'y'};
  t.end_when_empty = true;
  ReviewModel m(three());
  int saves = 0;
  SessionHooks h = hooks(saves);
  SessionResult r = s.run(m, h);
  CHECK(r.kind == SessionResult::Kind::Quit);
  // In order: j to b.txt, a accepts it (on to c.txt), r rejects c.txt.
  CHECK(file_state(m.files()[0]) == FileState::Undecided);
  CHECK(file_state(m.files()[1]) == FileState::Accepted);
  CHECK(file_state(m.files()[2]) == FileState::Rejected);
  CHECK(saves == 2);
}

TEST_CASE("tui::ReviewSession q typed while loading quits once loaded - Ctrl-C leaves at once") {
  {
    ScriptedTerminal t;
    ReviewSession s(t, "default");
    t.keys = {'q'};
    CHECK(s.wait([] { return Progress{}; }, [&] { return t.ticks >= 3; }));
    t.end_when_empty = true;
    ReviewModel m(three());
    int saves = 0;
    SessionHooks h = hooks(saves);
    CHECK(s.run(m, h).kind == SessionResult::Kind::Quit);
    CHECK_FALSE(m.any_decision());
  }
  ScriptedTerminal t;
  ReviewSession s(t, "default");
  t.keys = {'a', k_key_ctrl_c, 'a'};
  CHECK_FALSE(s.wait([] { return Progress{}; }, [] { return false; }));
}

TEST_CASE("tui::ReviewSession keys typed during a check before landing are kept too") {
  ScriptedTerminal t;
  ReviewSession s(t, "default");
  ReviewModel m(three());
  int saves = 0;
  SessionHooks h = hooks(saves);
  // a accepts a.txt; F, s: the check runs for a while, during which j and q are typed.
  t.keys = {'a', 'F', 's'};
  bool checked = false;
  t.end_when_empty = true;
  h.fresh = [&]() -> std::optional<bool> {
    t.keys = {'j', 'q'};
    // Done once both keys were typed (the check outlasts them).
    if (!s.wait([] { return Progress{"checking", 1, 2}; }, [&] { return t.keys.empty(); })) {
      return std::nullopt;
    }
    checked = true;
    CHECK(s.pending() == 2);
    CHECK(t.last.find("checking: 1 of 2") != std::string::npos);
    return false; // the workspace changed: the session asks to reload
  };
  // "Reload?" gets the kept j (not an answer: ignored), then q (no): the review goes on,
  // until the script ends.
  SessionResult r = s.run(m, h);
  CHECK(checked);
  CHECK(r.kind == SessionResult::Kind::Interrupted);
  CHECK(file_state(m.files()[0]) == FileState::Accepted);
}

TEST_CASE("tui::ReviewSession on a provisional list moves act at once - the first other key "
          "waits, and every key after it") {
  ScriptedTerminal t;
  ReviewSession s(t, "default");
  Review was = three();
  was.provisional = true;
  ReviewModel old(was);
  // j j: moved at once (to c.txt); a waits, so the k after it waits too.
  t.keys = {'j', 'j', 'a', 'k'};
  bool shown_at_once = false;
  CHECK(s.wait(
      [] {
        return Progress{"deciding what may land", 1, 3};
      },
      [&] {
        shown_at_once = shown_at_once || (old.selected() == 2 && s.pending() == 0);
        return t.keys.empty() && t.ticks >= 8;
      },
      [&] { return &old; }));
  CHECK(shown_at_once);
  CHECK(old.selected() == 2);
  CHECK_FALSE(old.any_decision());
  CHECK(s.pending() == 2);
  CHECK(t.last.find("as last planned") != std::string::npos);
  CHECK(t.last.find("2 keys waiting") != std::string::npos);

  // The review of now (b.txt gone, d.txt new) takes its place: on c.txt, a accepts it, k
  // goes up to a.txt.
  Review now = three();
  now.files.erase(now.files.begin() + 1);
  now.files.push_back(text("d.txt"));
  ReviewModel m(now);
  CHECK(m.follow(old));
  CHECK(m.selected_file()->path == "c.txt");
  t.keys = {};
  t.end_when_empty = true;
  int saves = 0;
  SessionHooks h = hooks(saves);
  CHECK(s.run(m, h).kind == SessionResult::Kind::Interrupted);
  CHECK(file_state(m.files()[1]) == FileState::Accepted); // c.txt
  CHECK(m.files()[1].path == "c.txt");
  CHECK(m.selected_file()->path == "c.txt"); // a moved on to d.txt, k came back
}
