// A hard link the agent makes in its view lands as what it is: a new file with the same
// content, the original unchanged unless it was edited too.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

using namespace ws::test;

TEST_CASE("hard link: ln of a real-tree file applies as a new file with its content") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("ln src/main.c copy.c").status == 0);
  Run st = w.ws("status");
  CHECK(st.out == "A copy.c\n");
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(repo.read("copy.c") == repo.read("src/main.c"));
  CHECK(git_status(repo) == "?? copy.c\n");
  CHECK(w.ws("status").out == "");
  // Every later apply works too (it once failed each time: "you deleted copy.c").
  REQUIRE(w.in_view("echo '// later' >> copy.c && echo later >> README.md").status == 0);
  Run later = w.ws("apply");
  CHECK_MESSAGE(later.status == 0, later.err);
  CHECK(repo.read("copy.c") == w.in_view("cat copy.c").out);
}

TEST_CASE("hard link: ln then edit through one name applies both as the view shows them") {
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string before = repo.read("src/util.c");
  REQUIRE(w.in_view("ln src/util.c src/util2.c && echo '// more' >> src/util2.c && "
                    "ln src/util.h src/util3.h && rm src/util.h")
              .status == 0);
  std::string both = before + "// more\n";
  CHECK(w.in_view("cat src/util.c").out == both);
  Run st = w.ws("status");
  INFO(st.out);
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(repo.read("src/util.c") == both);
  CHECK(repo.read("src/util2.c") == both);
  CHECK(repo.read("src/util3.h") == w.in_view("cat src/util3.h").out);
  CHECK(git_status(repo) == " M src/util.c\n D src/util.h\n?? src/util2.c\n?? src/util3.h\n");
}

TEST_CASE("hard link: ln of a file the agent created applies both names") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo new > new.txt && ln new.txt twin.txt").status == 0);
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(repo.read("new.txt") == "new\n");
  CHECK(repo.read("twin.txt") == "new\n");
}
