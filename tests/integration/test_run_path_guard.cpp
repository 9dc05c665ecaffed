// --writable and the directories of the person's PATH (docs/run.md, "What the agent can
// write").
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

void check_path_directory_refused(const std::string& user) {
  Person p(user);
  fs::path bin = p.home() / "tools" / "bin";
  fs::create_directories(bin);
  fs::create_directories(p.home() / "tools" / "cache");
  p.own(p.home());
  const std::string path = "PATH=" + bin.string() + ":/usr/bin:/bin";
  // The agent would plant `git` (or `ls`) there; the person's next `git` runs it unconfined.
  const std::string plant = "printf '#!/bin/sh\\ntouch planted-ran\\n' > " +
                            q((bin / "git").string()) + " && chmod +x " +
                            q((bin / "git").string()) + " && echo planted=yes";
  for (const fs::path& w : {bin, p.home() / "tools"}) {
    Run r = p.ws("run --network=off --writable " + q(w.string()) + " -- sh -c " + q(plant), path);
    INFO("as " << p.label() << ": --writable " << w << ": " << r.status << "\n" << r.out << r.err);
    CHECK(r.status != 0);
    CHECK(field(r.out, "planted") == "<missing>"); // nothing ran
    CHECK(r.err.find("ws: error: --writable " + w.string()) != npos);
    CHECK(r.err.find("a directory of your PATH (" + bin.string() + ")") != npos);
    CHECK(r.err.find("hint: a program the agent put there would run outside the sandbox") != npos);
    CHECK(!fs::exists(bin / "git"));
  }
  // A directory beside it is fine.
  Run ok = p.ws("run --network=off --writable " + q((p.home() / "tools" / "cache").string()) +
                    " -- true",
                path);
  INFO("beside: " << ok.out << ok.err);
  CHECK(ok.status == 0);
}

} // namespace

TEST_CASE("run path guard: --writable refuses a directory of the person's PATH and any above it") {
  as_each(check_path_directory_refused);
}
