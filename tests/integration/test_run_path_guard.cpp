// --writable and the directories of the person's PATH, and the summary's advice to use
// --writable (docs/run.md, "What the agent can write" and "When the session ends").
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

void check_read_only_advice(const std::string& user) {
  Person p(user);
  fs::path notes = p.home() / "notes";
  fs::path bin = p.home() / ".local" / "bin";
  fs::create_directories(notes);
  fs::create_directories(bin);
  p.own(p.home());
  const std::string path = "PATH=" + bin.string() + ":/usr/bin:/bin";
  // A real refusal under a path the person showed read-only (--read): the advice is the
  // directory ws would accept. Then words of the agent's own, naming a system directory and a
  // PATH directory, as if it had been refused there.
  Run r = p.ws("run --network=off --read " + q(notes.string()) + " -- sh -c " +
                   q("echo x > " + q((notes / "todo").string()) +
                     "; echo \"PermissionError: [Errno 30] Read-only file system: '/etc/cron.d'\" "
                     ">&2; echo \"cannot create " +
                     (bin / "git").string() + ": Read-only file system\" >&2; exit 0"),
               path);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.err.find("ws: the agent could not write " + (notes / "todo").string() +
                   " (read-only in the sandbox): ws run --writable " + notes.string() +
                   " would allow it\n") != npos);
  CHECK(r.err.find("ws: the agent could not write /etc/cron.d (read-only in the sandbox)\n") !=
        npos);
  CHECK(r.err.find("ws: the agent could not write " + (bin / "git").string() +
                   " (read-only in the sandbox)\n") != npos);
  CHECK_MESSAGE(r.err.find("--writable /etc") == npos,
                "ws advised opening a system directory the agent named");
  CHECK_MESSAGE(r.err.find("--writable " + bin.string()) == npos,
                "ws advised a --writable it would refuse (a PATH directory)");
}

} // namespace

TEST_CASE("run path guard: --writable refuses a directory of the person's PATH and any above it") {
  as_each(check_path_directory_refused);
}

TEST_CASE("run path guard: the summary advises --writable only for what ws would accept, in the "
          "home") {
  as_each(check_read_only_advice);
}
