// Folding the review's list: which directories are one row, expanding and folding them,
// decisions on a folded directory, and how those are saved.
#include "tui/fold.hpp"
#include "tui/render.hpp"
#include "tui/review_model.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ws::tui;

namespace {

struct P {
  std::string path;
  Group group;
  std::string reason;
};

std::vector<std::string> folds_of(std::vector<P> in, std::string_view under = {}, size_t min = 2) {
  std::sort(in.begin(), in.end(), [](const P& a, const P& b) { return a.path < b.path; });
  std::vector<FoldPath> paths;
  for (const auto& p : in) {
    paths.push_back({p.path, p.group, p.reason});
  }
  std::vector<std::string> out;
  for (const auto& d : fold_directories(paths, under, min)) {
    out.push_back(d.dir + ":" + std::to_string(d.end - d.begin));
  }
  return out;
}

constexpr Group W = Group::Withheld;
constexpr Group B = Group::Blocked;
constexpr Group T = Group::Transfer;

FileEntry file(const std::string& path, Group g, const std::string& reason, char status = 'A') {
  FileEntry f;
  f.path = f.old_path = path;
  f.status = status;
  f.group = g;
  f.reason = reason;
  f.overridable = g == Group::Withheld;
  f.identity = "id-" + path;
  f.notes = {"new file"};
  return f;
}

/// Three transfer files, 250 withheld files in node_modules/ (five packages of 50), a
/// blocked .git/ of two files, and one withheld file of its own.
Review big() {
  Review r;
  r.workspace = "default";
  r.id = "review-id";
  r.files.push_back(file("README.md", T, "", 'M'));
  r.files.push_back(file("src/a.c", T, "", 'M'));
  r.files.push_back(file("src/b.c", T, "", 'D'));
  for (int p = 0; p < 5; ++p) {
    for (int i = 0; i < 50; ++i) {
      r.files.push_back(
          file("node_modules/pkg" + std::to_string(p) + "/f" + std::to_string(i) + ".js", W,
               "under node_modules/", i == 7 ? 'D' : 'A'));
    }
  }
  r.files.push_back(file(".git/hooks/pre-commit", B, "inside .git/"));
  r.files.push_back(file(".git/config", B, "inside .git/", 'M'));
  r.files.push_back(file("tool.sh", W, "new executable"));
  return r;
}

size_t fold_entry(const ReviewModel& m, const std::string& dir) {
  for (size_t e = 0; e < m.entries().size(); ++e) {
    const ListEntry& le = m.entries()[e];
    if (le.kind == ListEntry::Kind::Fold && m.folds()[le.index].dir == dir) {
      return e;
    }
  }
  FAIL("no row for " << dir);
  return 0;
}

void go_to(ReviewModel& m, size_t entry) {
  m.apply(Action::Top);
  while (m.cursor() < entry) {
    m.apply(Action::Down);
  }
}

} // namespace

TEST_CASE("tui::fold_directories folds the highest directory of one verdict and reason") {
  // A directory of one withheld reason is one row; the highest such directory wins.
  CHECK(folds_of({{"node_modules/a/x.js", W, "nm"},
                  {"node_modules/a/y.js", W, "nm"},
                  {"node_modules/b.js", W, "nm"},
                  {"src/main.c", T, ""}}) == std::vector<std::string>{"node_modules:3"});
  // One file of another reason (or verdict) below keeps the directory open; what is
  // uniform below it still folds.
  CHECK(folds_of({{"build/obj/a.o", W, "ignored"},
                  {"build/obj/b.o", W, "ignored"},
                  {"build/run.sh", W, "new executable"},
                  {"build/notes.txt", T, ""}}) == std::vector<std::string>{"build/obj:2"});
  // Transfer and flagged never fold: every file that may land keeps its own row.
  CHECK(folds_of({{"gen/a.c", T, ""}, {"gen/b.c", T, ""}}).empty());
  CHECK(folds_of({{"ci/a.yml", Group::Flagged, "ci"}, {"ci/b.yml", Group::Flagged, "ci"}}).empty());
  // Blocked folds like withheld; one file alone is never a fold.
  CHECK(folds_of({{".git/config", B, "git"}, {".git/hooks/x", B, "git"}, {"one/f", W, "r"}}) ==
        std::vector<std::string>{".git:2"});
  // A sibling whose name extends the directory's ("a-b" sorts between "a" and "a/") is
  // not inside it.
  CHECK(folds_of({{"a-b/x", T, ""}, {"a/x", W, "r"}, {"a/y", W, "r"}, {"a.txt", T, ""}}) ==
        std::vector<std::string>{"a:2"});
  // Below a directory: its subdirectories; a minimum count.
  CHECK(folds_of({{"n/p/a", W, "r"}, {"n/p/b", W, "r"}, {"n/q/a", W, "r"}, {"n/z", W, "r"}}, "n") ==
        std::vector<std::string>{"n/p:2"});
  CHECK(folds_of({{"n/p/a", W, "r"}, {"n/p/b", W, "r"}}, {}, 3).empty());
}

TEST_CASE("tui::ReviewModel lists a withheld directory as one row that expands and folds") {
  ReviewModel m(big());
  fit(m, 140, 30);
  // TRANSFER 3 files, then node_modules/ and tool.sh (WITHHELD), then .git/ (BLOCKED).
  REQUIRE(m.entries().size() == 6);
  size_t nm = fold_entry(m, "node_modules");
  const Fold& fold = m.folds()[m.entries()[nm].index];
  CHECK(fold.files() == 250);
  CHECK(fold.deleted == 5);
  CHECK(fold.status == '*');
  std::string screen = render(m, 140, 30).dump();
  CHECK(screen.find("WITHHELD (251)") != std::string::npos);
  CHECK(screen.find("node_modules/ +") != std::string::npos);
  CHECK(screen.find("250 files, 5 deleted") != std::string::npos); // never hidden in a count
  CHECK(screen.find("BLOCKED (2)") != std::string::npos);

  go_to(m, nm);
  REQUIRE(m.selected_fold() != nullptr);
  CHECK(m.selected_file() == nullptr);
  std::string summary = render(m, 140, 30).dump();
  CHECK(summary.find("245 added, 5 deleted") != std::string::npos);
  CHECK(summary.find("pkg3/  50 files") != std::string::npos);

  // Enter lists what is below: the five packages, each folded again.
  CHECK(m.apply(Action::Open) == Effect::None);
  CHECK(m.entries().size() == 11);
  CHECK(m.folds()[m.entries()[nm].index].expanded);
  size_t pkg2 = fold_entry(m, "node_modules/pkg2");
  go_to(m, pkg2);
  m.apply(Action::Open);
  CHECK(m.entries().size() == 61);
  m.apply(Action::Down);
  REQUIRE(m.selected_file() != nullptr);
  CHECK(m.selected_file()->path == "node_modules/pkg2/f0.js");
  // The reason is the directory's row's: files inside do not repeat it.
  CHECK_FALSE(m.entries()[m.cursor()].reason);
  // z folds the directory around the cursor, then the one around that.
  CHECK(m.apply(Action::FoldUp) == Effect::None);
  CHECK(m.selected_fold()->dir == "node_modules/pkg2");
  CHECK(m.entries().size() == 11);
  m.apply(Action::FoldUp);
  CHECK(m.selected_fold()->dir == "node_modules");
  CHECK(m.entries().size() == 6);
  CHECK(m.apply(Action::FoldUp) == Effect::Message);
}

TEST_CASE("tui::ReviewModel a decision on a folded directory is a decision on every file in it") {
  ReviewModel m(big());
  fit(m, 100, 30);
  go_to(m, fold_entry(m, "node_modules"));
  // Withheld: nothing until taken, after a question naming the count.
  CHECK(m.apply(Action::Accept) == Effect::Message);
  CHECK(m.message().find("press o to take all 250 files") != std::string::npos);
  CHECK(m.apply(Action::Override) == Effect::AskOverride);
  CHECK(m.override_question().find("'node_modules/' (250 files: under node_modules/)") !=
        std::string::npos);
  CHECK(m.confirm_override() == Effect::Changed);
  const Fold& fold = *m.selected_fold();
  CHECK(m.fold_state(fold) == FileState::Accepted);
  for (size_t i = fold.begin; i < fold.end; ++i) {
    CHECK(file_state(m.files()[i]) == FileState::Accepted);
  }
  CHECK(m.decided_files() == 250);
  CHECK(m.decidable_files() == 253);
  // One record for the whole directory, however many files.
  std::string saved = m.save();
  CHECK(std::count(saved.begin(), saved.end(), '\n') == 2);
  CHECK(saved.find("\ndir ") != std::string::npos);

  // Rejecting it rejects each; the list moves on as after a file.
  go_to(m, fold_entry(m, "node_modules"));
  CHECK(m.apply(Action::Reject) == Effect::Changed);
  CHECK(m.fold_state(m.folds()[m.entries()[fold_entry(m, "node_modules")].index]) ==
        FileState::Rejected);
  // A file decided on its own makes the directory mixed, and saved file by file.
  go_to(m, fold_entry(m, "node_modules"));
  m.apply(Action::Open);
  m.apply(Action::Down); // pkg0/
  m.apply(Action::Open);
  m.apply(Action::Down); // pkg0/f0.js
  REQUIRE(m.selected_file() != nullptr);
  CHECK(m.apply(Action::Accept) == Effect::Changed);
  saved = m.save();

  ReviewModel again(big());
  // pkg0/ file by file (50 overrides, 50 decisions), the other four packages as one record
  // each (a count of their files).
  CHECK(again.restore(saved, true) == 100 + 200);
  size_t accepted = 0, rejected = 0;
  for (const auto& f : again.files()) {
    accepted += file_state(f) == FileState::Accepted ? 1 : 0;
    rejected += file_state(f) == FileState::Rejected ? 1 : 0;
  }
  CHECK(accepted == 1);
  CHECK(rejected == 249);
  CHECK(again.save() == saved);

  // Blocked: never, whole or not.
  go_to(m, fold_entry(m, ".git"));
  CHECK(m.apply(Action::Override) == Effect::Message);
  CHECK(m.apply(Action::Accept) == Effect::Message);
  CHECK(m.message().find("never transferred") != std::string::npos);
}

TEST_CASE("tui::ReviewModel a saved directory decision needs the same files") {
  ReviewModel m(big());
  go_to(m, fold_entry(m, "node_modules"));
  m.apply(Action::Override);
  m.confirm_override();
  std::string saved = m.save();
  Review other = big();
  other.files[10].identity = "rewritten"; // one file of the directory is another file now
  ReviewModel reload(other);
  CHECK(reload.restore(saved, false) == 0);
  CHECK_FALSE(reload.any_decision());
}

TEST_CASE("tui::ReviewModel a provisional list is moved in, never decided on - the review of now "
          "takes its place where the person was") {
  Review was = big();
  was.id.clear();
  was.provisional = true;
  ReviewModel old(was);
  old.set_page(20, 20);
  CHECK(old.apply(Action::Accept) == Effect::Message);
  CHECK(old.apply(Action::Override) == Effect::Message);
  CHECK_FALSE(old.any_decision());
  // Into node_modules/, then pkg2/ within it, opened too.
  go_to(old, fold_entry(old, "node_modules"));
  CHECK(old.apply(Action::Open) == Effect::None);
  go_to(old, fold_entry(old, "node_modules/pkg2"));
  CHECK(old.apply(Action::Open) == Effect::None);
  old.apply(Action::Down);
  old.apply(Action::Down);
  REQUIRE(old.selected_file() != nullptr);
  CHECK(old.selected_file()->path == "node_modules/pkg2/f1.js");
  size_t row_on_screen = old.entries()[old.cursor()].row - old.list_top();

  // The plan of now: src/a.c became flagged, a new file came; the rest is as it was.
  Review now = big();
  now.files[1].group = Group::Flagged;
  now.files[1].reason = "changes a build file";
  now.files.push_back(file("added-since.txt", T, ""));
  ReviewModel m(now);
  CHECK(m.follow(old));
  REQUIRE(m.selected_file() != nullptr);
  CHECK(m.selected_file()->path == "node_modules/pkg2/f1.js");
  CHECK(m.entries()[m.cursor()].row - m.list_top() == row_on_screen);
  CHECK(m.folds()[m.entries()[fold_entry(m, "node_modules")].index].expanded);
  CHECK(m.folds()[m.entries()[fold_entry(m, "node_modules/pkg2")].index].expanded);
  CHECK_FALSE(m.folds()[m.entries()[fold_entry(m, "node_modules/pkg1")].index].expanded);
  // Decisions work on it, and the title says it is the review of now.
  CHECK(m.apply(Action::Down) == Effect::None);
  CHECK(m.selected_file()->path == "node_modules/pkg2/f10.js");
  Frame was_frame = render(old, 100, 30);
  CHECK(was_frame.dump().find("as last planned") != std::string::npos);
  CHECK(was_frame.dump().find("decided") == std::string::npos);
  CHECK(render(m, 100, 30).dump().find("decided") != std::string::npos);

  // A row gone from the list of now: the cursor stays as far down the list, and the caller
  // is told (keys typed for that row must not act on another).
  Review fewer = big();
  std::erase_if(fewer.files,
                [](const FileEntry& f) { return f.path.rfind("node_modules/pkg2/", 0) == 0; });
  ReviewModel m2(fewer);
  CHECK_FALSE(m2.follow(old));
  CHECK(m2.cursor() == std::min(old.cursor(), m2.entries().size() - 1));
}

namespace {

constexpr const char* k_ignored = "ignored by the real repository";
constexpr const char* k_venv = "under .venv/ (a Python virtual environment)";

/// src/ holds 12 ignored objects, a flagged build file, and a subdirectory of another
/// withheld reason whose paths sort between the objects'; a virtual environment whose bin/
/// holds three symlinks leaving the project.
Review objects_and_venv() {
  Review r;
  r.workspace = "default";
  r.id = "review-id";
  r.files.push_back(file("src/main.c", T, "", 'M'));
  for (int i = 0; i < 12; ++i) {
    char name = static_cast<char>('a' + i);
    r.files.push_back(file("src/" + std::string(1, name) + ".o", W, k_ignored, i == 3 ? 'D' : 'A'));
  }
  r.files.push_back(file("src/f/run.sh", W, "new executable"));
  r.files.push_back(file("src/Makefile", Group::Flagged, "changes a build file"));
  for (const char* link : {"python", "python3", "python3.11"}) {
    r.files.push_back(file(std::string(".venv/bin/") + link, W,
                           "symlink to an absolute path (/usr/bin/python3)"));
  }
  for (const char* f : {"bin/activate", "bin/pip", "lib/python3.11/site-packages/pip/a.py",
                        "lib/python3.11/site-packages/pip/b.py", "pyvenv.cfg"}) {
    r.files.push_back(file(std::string(".venv/") + f, W, k_venv));
  }
  return r;
}

size_t shown_entry(const ReviewModel& m, const std::string& shown) {
  for (size_t e = 0; e < m.entries().size(); ++e) {
    const ListEntry& le = m.entries()[e];
    if (le.kind == ListEntry::Kind::Fold && m.folds()[le.index].shown() == shown) {
      return e;
    }
  }
  FAIL("no row for " << shown);
  return 0;
}

} // namespace

TEST_CASE("tui::fold_directories folds the files directly in a directory and a tool's tree") {
  Review r = objects_and_venv();
  std::sort(r.files.begin(), r.files.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  std::vector<FoldPath> paths;
  for (const auto& f : r.files) {
    paths.push_back({f.path, f.group, f.reason, f.status});
  }
  auto dirs = fold_directories(paths, {}, 2, 10);
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0].dir == ".venv");
  CHECK_FALSE(dirs[0].direct);
  CHECK(dirs[0].files() == 8);
  CHECK(dirs[0].reason == k_venv); // the tree's, not its first path's (a symlink)
  CHECK(dirs[0].note == "symlinks leaving the project: 3");
  CHECK(dirs[1].direct);
  CHECK(dirs[1].dir == "src");
  CHECK(dirs[1].glob == "*.o");
  CHECK(dirs[1].files() == 12);
  CHECK(dirs[1].reason == k_ignored);
  CHECK(dirs[1].note.empty());
  // Fewer than the minimum stay files; without a minimum there is no direct fold.
  CHECK(fold_directories(paths, {}, 2, 13).size() == 1);
  CHECK(fold_directories(paths).size() == 1);
}

TEST_CASE("tui::ReviewModel lists the files directly in a directory as one row, and a virtual "
          "environment with its symlinks as one") {
  ReviewModel m(objects_and_venv());
  fit(m, 140, 40);
  // TRANSFER src/main.c; FLAGGED src/Makefile; WITHHELD .venv/, src/*.o, src/f/run.sh.
  REQUIRE(m.entries().size() == 5);
  size_t venv = shown_entry(m, ".venv/");
  size_t objects = shown_entry(m, "src/*.o");
  CHECK(objects == venv + 1);
  const Fold& o = m.folds()[m.entries()[objects].index];
  CHECK(o.files() == 12);
  CHECK(o.deleted == 1);
  // The objects are listed together, before src/f/ whose path sorts between them.
  for (size_t i = o.begin; i < o.end; ++i) {
    CHECK(m.files()[i].path.ends_with(".o"));
  }
  CHECK(m.files()[o.end].path == "src/f/run.sh");
  std::string screen = render(m, 140, 40).dump();
  CHECK(screen.find("src/*.o +") != std::string::npos);
  CHECK(screen.find("12 files, 1 deleted") != std::string::npos);
  CHECK(screen.find(".venv/ +") != std::string::npos);
  CHECK(screen.find(std::string(k_venv) + "; sym") != std::string::npos); // cut to the pane
  CHECK(screen.find("symlink to an absolute path") == std::string::npos);
  go_to(m, venv);
  std::string venv_summary = render(m, 140, 40).dump(); // wrapped in the diff pane
  CHECK(venv_summary.find(std::string("WITHHELD: ") + k_venv) != std::string::npos);
  CHECK(venv_summary.find("; symlinks leaving the projec") != std::string::npos);

  // The summary names the pattern and the fold's own reason.
  go_to(m, objects);
  REQUIRE(m.selected_fold() != nullptr);
  std::string summary = render(m, 140, 40).dump();
  CHECK(summary.find("src/*.o  (12 files)") != std::string::npos);
  CHECK(summary.find(std::string("WITHHELD: ") + k_ignored) != std::string::npos);
  CHECK(summary.find("11 added, 1 deleted") != std::string::npos);
  CHECK(m.apply(Action::Override) == Effect::AskOverride);
  CHECK(m.override_question().find("'src/*.o' (12 files: " + std::string(k_ignored)) !=
        std::string::npos);

  // Enter lists the twelve objects; z folds them again.
  CHECK(m.apply(Action::Open) == Effect::None);
  CHECK(m.entries().size() == 5 + 12);
  m.apply(Action::Down);
  REQUIRE(m.selected_file() != nullptr);
  CHECK(m.selected_file()->path == "src/a.o");
  CHECK(m.apply(Action::FoldUp) == Effect::None);
  CHECK(m.selected_fold()->shown() == "src/*.o");
  CHECK(m.entries().size() == 5);

  // The virtual environment opens onto bin/ (its symlinks counted), lib/ and pyvenv.cfg.
  go_to(m, shown_entry(m, ".venv/"));
  m.apply(Action::Open);
  CHECK(m.entries().size() == 5 + 3);
  const Fold& bin = m.folds()[m.entries()[shown_entry(m, ".venv/bin/")].index];
  CHECK(bin.files() == 5);
  CHECK(bin.note == "symlinks leaving the project: 3");
  CHECK(m.folds()[m.entries()[shown_entry(m, ".venv/lib/")].index].files() == 2);

  // A decision on the direct fold is saved file by file and comes back.
  go_to(m, shown_entry(m, "src/*.o"));
  m.apply(Action::Override);
  CHECK(m.confirm_override() == Effect::Changed);
  CHECK(m.decided_files() == 12);
  std::string saved = m.save();
  CHECK(saved.find("\ndir ") == std::string::npos);
  ReviewModel again(objects_and_venv());
  CHECK(again.restore(saved, true) == 24);
  CHECK(again.decided_files() == 12);
}

namespace {

/// A withheld build/ of one reason: out/ holds twelve objects directly and sub/ (whose path
/// sorts between them) two more; logs/ three logs. And one file that transfers.
Review build_tree() {
  Review r;
  r.workspace = "default";
  r.id = "review-id";
  r.files.push_back(file("README.md", T, "", 'M'));
  for (const char* name :
       {"a00", "a01", "a02", "a03", "a04", "a05", "t00", "t01", "t02", "t03", "t04", "t05"}) {
    r.files.push_back(file(std::string("build/out/") + name + ".o", W, k_ignored));
  }
  r.files.push_back(file("build/out/sub/x.o", W, k_ignored));
  r.files.push_back(file("build/out/sub/y.o", W, k_ignored, 'D'));
  for (const char* name : {"1", "2", "3"}) {
    r.files.push_back(file(std::string("build/logs/") + name + ".txt", W, k_ignored));
  }
  return r;
}

} // namespace

TEST_CASE("tui::ReviewModel an expanded directory folds the files directly in its directories "
          "again, as the reports do") {
  ReviewModel m(build_tree());
  fit(m, 140, 40);
  REQUIRE(m.entries().size() == 2); // README.md, build/
  go_to(m, shown_entry(m, "build/"));
  CHECK(m.apply(Action::Open) == Effect::None);
  CHECK(m.entries().size() == 2 + 2); // build/logs/, build/out/
  go_to(m, shown_entry(m, "build/out/"));
  CHECK(m.apply(Action::Open) == Effect::None);
  // build/out/*.o (12 files, listed together before sub/), then build/out/sub/.
  size_t objects = shown_entry(m, "build/out/*.o");
  CHECK(shown_entry(m, "build/out/sub/") == objects + 1);
  const Fold& o = m.folds()[m.entries()[objects].index];
  CHECK(o.files() == 12);
  CHECK(o.reason == k_ignored);
  for (size_t i = o.begin; i < o.end; ++i) {
    CHECK(m.files()[i].path.find("/sub/") == std::string::npos);
  }
  std::string screen = render(m, 140, 40).dump();
  CHECK(screen.find("build/out/*.o +") != std::string::npos);
  CHECK(screen.find("build/out/t03.o") == std::string::npos);
  // It expands onto its files, in path order, and folds again.
  go_to(m, objects);
  CHECK(m.apply(Action::Open) == Effect::None);
  m.apply(Action::Down);
  REQUIRE(m.selected_file() != nullptr);
  CHECK(m.selected_file()->path == "build/out/a00.o");
  CHECK(m.apply(Action::FoldUp) == Effect::None);
  CHECK(m.selected_fold()->shown() == "build/out/*.o");

  // A search finds a file inside folds not yet expanded, and the cursor is on that file.
  ReviewModel found(build_tree());
  fit(found, 140, 40);
  CHECK(found.search("t03.o") == Effect::None);
  REQUIRE(found.selected_file() != nullptr);
  CHECK(found.selected_file()->path == "build/out/t03.o");
  CHECK(render(found, 140, 40).dump().find(">[x] A build/out/t03.o") != std::string::npos);

  // A decision on build/ taken whole, with its directories listed anew, comes back whole.
  go_to(m, shown_entry(m, "build/"));
  CHECK(m.apply(Action::Override) == Effect::AskOverride);
  CHECK(m.confirm_override() == Effect::Changed);
  CHECK(m.decided_files() == 17);
  std::string saved = m.save();
  CHECK(saved.find("\ndir ") != std::string::npos);
  ReviewModel again(build_tree());
  CHECK(again.restore(saved, true) == 17);
  CHECK(again.decided_files() == 17);
}

TEST_CASE("tui::ReviewModel the changes found before their verdicts: one row per top directory, "
          "moved in, never decided on - the review of now takes the person's place") {
  Review was = big();
  was.id.clear();
  was.provisional = true;
  was.verdicts_pending = true;
  for (auto& f : was.files) {
    f.group = Group::Found;
    f.reason.clear();
    f.notes.clear();
    f.overridable = false;
  }
  ReviewModel old(was);
  fit(old, 120, 30);
  // .git/, README.md, node_modules/, src/, tool.sh
  REQUIRE(old.entries().size() == 5);
  std::string screen = render(old, 120, 30).dump();
  for (const char* text : {"loading: the changes found", "FOUND (256)", "[ ] * node_modules/ +",
                           "250 files, 5 deleted", "src/ +"}) {
    CHECK_MESSAGE(screen.find(text) != std::string::npos, std::string(text) << " in\n" << screen);
  }
  CHECK(screen.find("decided") == std::string::npos);
  go_to(old, 1); // README.md: what it is, not a diff yet
  screen = render(old, 120, 30).dump();
  CHECK(screen.find("FOUND: deciding what may land") != std::string::npos);
  CHECK(screen.find("its diff shows once it has its verdict") != std::string::npos);
  CHECK(old.apply(Action::Accept) == Effect::Message);
  CHECK_FALSE(old.any_decision());
  go_to(old, shown_entry(old, "node_modules/"));
  CHECK(old.apply(Action::Open) == Effect::None);

  // node_modules/ is withheld now: the same row, expanded.
  ReviewModel m(big());
  CHECK(m.follow(old));
  REQUIRE(m.selected_fold() != nullptr);
  CHECK(m.selected_fold()->shown() == "node_modules/");
  CHECK(m.selected_fold()->expanded);
  // src/ does not fold now (its files transfer): the cursor on its first file, and the
  // caller told (a key meant for the directory must not act on one file).
  go_to(old, shown_entry(old, "src/"));
  ReviewModel m2(big());
  CHECK_FALSE(m2.follow(old));
  REQUIRE(m2.selected_file() != nullptr);
  CHECK(m2.selected_file()->path == "src/a.c");
}
