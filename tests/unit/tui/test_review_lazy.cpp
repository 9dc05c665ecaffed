// A review of many files: diffs made only when shown, held in a bounded cache, decisions that
// outlive a dropped diff, and a search that goes in steps.
#include "tui/render.hpp"
#include "tui/review_model.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace ws::tui;

namespace {

/// Diffs made on request, counted: file k has two hunks, "-old k.1 +new k.1" and
/// "-old k.2 +new k.2", ten lines apart.
class CountingSource final : public DiffSource {
public:
  FileDiff diff(const FileEntry& f) override {
    ++made[f.path];
    FileDiff d;
    d.hunk_level = true;
    for (int h = 0; h < 2; ++h) {
      Hunk hunk;
      hunk.old_begin = hunk.new_begin = static_cast<uint32_t>(h * 10);
      std::string n = std::to_string(f.source) + "." + std::to_string(h + 1);
      hunk.lines = {{Line::Kind::Context, "ctx\n"},
                    {Line::Kind::Deleted, "old " + n + "\n"},
                    {Line::Kind::Added, "new " + n + "\n"}};
      d.hunks.push_back(hunk);
    }
    d.shown = "content-" + f.path + (changed.count(f.path) ? "-v2" : "");
    return d;
  }
  std::map<std::string, int> made;
  std::map<std::string, bool> changed;
};

/// `n` modified text files whose diffs are not made yet, and 5,000 withheld files in one
/// directory.
Review lazy_review(size_t n) {
  Review r;
  r.workspace = "default";
  r.id = "lazy";
  for (size_t k = 0; k < n; ++k) {
    FileEntry f;
    char name[32];
    std::snprintf(name, sizeof name, "src/f%05zu.c", k);
    f.path = f.old_path = name;
    f.source = k;
    f.identity = name;
    f.diff_loaded = false;
    f.counted = false;
    r.files.push_back(f);
  }
  for (size_t k = 0; k < 5000; ++k) {
    FileEntry f;
    f.path = f.old_path = "node_modules/p" + std::to_string(k / 100) + "/i" + std::to_string(k);
    f.status = 'A';
    f.group = Group::Withheld;
    f.reason = "under node_modules/";
    f.overridable = true;
    f.source = n + k;
    f.diff_loaded = false;
    f.counted = false;
    r.files.push_back(f);
  }
  return r;
}

} // namespace

TEST_CASE("tui::ReviewModel makes a diff when the file is shown - never all of them") {
  CountingSource source;
  ReviewModel m(lazy_review(1000), &source);
  fit(m, 100, 24);
  std::string screen = render(m, 100, 24).dump();
  // The selected file's diff, and the counts of the rows on screen: no more.
  CHECK(source.made["src/f00000.c"] == 1);
  CHECK(source.made.size() <= 24);
  CHECK(screen.find("+2 -2") != std::string::npos);
  CHECK(screen.find("+new 0.1") != std::string::npos);
  // Paging through every file keeps a bounded number of diffs in memory.
  for (int i = 0; i < 200; ++i) {
    m.apply(Action::PageDown);
    fit(m, 100, 24);
    render(m, 100, 24);
  }
  CHECK(source.made.size() == 1000);
  CHECK(m.loaded_diffs() <= 64);
  // Not one withheld file was read: they are folded.
  for (const auto& [path, n] : source.made) {
    CHECK(path.rfind("src/", 0) == 0);
  }
}

TEST_CASE("tui::ReviewModel decisions outlive the diff they were made on") {
  CountingSource source;
  ReviewModel m(lazy_review(300), &source);
  fit(m, 100, 24);
  // File 0: hunk by hunk (accept, reject). File 1: whole, from the list, never shown.
  m.apply(Action::ToggleFocus);
  m.apply(Action::Accept);
  m.apply(Action::Reject);
  m.apply(Action::ToggleFocus);
  m.apply(Action::Down);
  m.apply(Action::Reject);
  CHECK(file_state(m.files()[1]) == FileState::Rejected);
  // Walk past every file: file 1's diff is dropped, file 0's (decided per hunk) is kept.
  for (int i = 0; i < 299; ++i) {
    m.apply(Action::Down);
  }
  CHECK(m.loaded_diffs() <= 65);
  CHECK(m.files()[0].diff_loaded);
  CHECK(m.files()[0].hunks[0].decision == Decision::Accepted);
  CHECK(m.files()[0].hunks[1].decision == Decision::Rejected);
  CHECK_FALSE(m.files()[1].diff_loaded);
  CHECK(file_state(m.files()[1]) == FileState::Rejected);
  // Shown again, its hunks carry the file's decision; made twice, same content.
  m.apply(Action::Top);
  m.apply(Action::Down);
  CHECK(source.made["src/f00001.c"] == 2);
  CHECK(m.files()[1].hunks[0].decision == Decision::Rejected);
  CHECK(m.files()[1].shown == "content-src/f00001.c");
  // Content that is not what was first shown is marked: landing refuses it.
  source.changed["src/f00002.c"] = true;
  m.apply(Action::Down); // f00002 was shown (and dropped) before
  CHECK(m.files()[2].shown == "changed");
  CHECK(m.files()[2].notes.front().find("changed this file after you first saw it") !=
        std::string::npos);
  // What was saved comes back in a review whose diffs are not made yet.
  std::string saved = m.save();
  CountingSource again_source;
  ReviewModel again(lazy_review(300), &again_source);
  CHECK(again.restore(saved, true) == 3);
  CHECK(file_state(again.files()[0]) == FileState::Partial);
  CHECK(file_state(again.files()[1]) == FileState::Rejected);
  CHECK(again_source.made.count("src/f00001.c") == 0); // a whole-file decision needs no diff
}

TEST_CASE("tui::ReviewModel searches in steps - paths in folded directories - reveals a hit") {
  CountingSource source;
  ReviewModel m(lazy_review(2000), &source);
  fit(m, 100, 24);
  Effect e = m.search("new 1999.2");
  size_t steps = 0;
  while (e == Effect::Searching) {
    ++steps;
    e = m.search_step();
  }
  CHECK(steps >= 2); // 2,000 diffs to make: more than one step between keys
  CHECK(e == Effect::None);
  CHECK(m.selected_file()->path == "src/f01999.c");
  CHECK(m.focus() == Focus::Diff);
  CHECK(m.current_hunk() == 1);
  // A path inside a folded directory: the directories open down to it; no withheld file's
  // content is read for it.
  e = m.search("/i4321");
  while (e == Effect::Searching) {
    e = m.search_step();
  }
  REQUIRE(m.selected_file() != nullptr);
  CHECK(m.selected_file()->path == "node_modules/p43/i4321");
  CHECK(source.made.count("node_modules/p0/i0") == 0);
  // Stopped midway, a search leaves the cursor where it was.
  m.apply(Action::Top);
  e = m.search("no such text");
  REQUIRE(e == Effect::Searching);
  m.stop_search();
  CHECK_FALSE(m.searching());
  CHECK(m.selected() == 0);
}
