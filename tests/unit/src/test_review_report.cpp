// What ws review prints after landing: a withheld directory taken whole is one line.
#include "src/review/review_session.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace ws;

TEST_CASE("review: the landing report folds a directory taken whole - counts its deletions") {
  tui::Review r;
  r.id = "id";
  auto add = [&r](const std::string& path, tui::Group g, const std::string& reason, char st) {
    tui::FileEntry f;
    f.path = f.old_path = path;
    f.group = g;
    f.reason = reason;
    f.status = st;
    r.files.push_back(f);
  };
  add("README.md", tui::Group::Transfer, "", 'M');
  for (int i = 0; i < 30; ++i) {
    add("vendor/lib/f" + std::to_string(i) + ".js", tui::Group::Withheld,
        "ignored by the real repository", i < 4 ? 'D' : 'A');
  }
  add("zz.txt", tui::Group::Transfer, "", 'A');
  tui::ReviewModel model(r);
  ReviewLanding l;
  for (size_t i = 0; i < model.files().size(); ++i) {
    l.summary.push_back(std::string(1, model.files()[i].status) + "  " + model.files()[i].path);
    l.summary_files.push_back(i);
  }
  std::vector<std::string> report = landing_report(l, model);
  REQUIRE(report.size() == 3);
  CHECK(report[0] == "M  README.md");
  CHECK(report[1] ==
        "   vendor/  30 files (4 deleted)  (ignored by the real repository, taken on your "
        "request)");
  CHECK(report[2] == "A  zz.txt");
  CHECK(landing_report(l, model, 100).size() == 32); // short reports list every file
}
