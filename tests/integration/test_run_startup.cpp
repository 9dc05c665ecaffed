// What ws run starts the sandbox with: ws-init as its pid 1 when it is beside ws (static and
// small: the session does not load ws's shared libraries twice), `ws __exec` otherwise. The
// cost itself is measured in bench/run_startup, never in tests.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// Prints the size of the sandbox's pid 1 program and pid 1's command line.
const std::string k_init = "import os\n"
                           "cmd = open('/proc/1/cmdline', 'rb').read().split(b'\\0')\n"
                           "print('init=' + cmd[0].decode() + ' ' + cmd[1].decode())\n"
                           "print('size=' + str(os.stat(cmd[0]).st_size))\n";

std::string size_of(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? std::to_string(st.st_size) : "none";
}

void check_init(const std::string& user) {
  Person p(user);
  p.use_own_ws_copy();
  fs::path init = p.binary.parent_path() / "ws-init";
  REQUIRE_MESSAGE(fs::exists(init), "the build makes ws-init beside ws");
  Run r = p.ws("run --network=off -- " + py() + " -c " + q(k_init));
  INFO("as " << p.label() << ": " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "size") == size_of(init));
  CHECK(field(r.out, "init").ends_with(" __exec"));
  // Without it, ws itself is pid 1, as `ws __exec`, and the sandbox holds the same.
  fs::remove(init);
  Run alone = p.ws("run --network=off -- " + py() + " -c " + q(k_init));
  INFO("without ws-init: " << alone.status << "\n" << alone.out << alone.err);
  CHECK(alone.status == 0);
  CHECK(field(alone.out, "size") == size_of(p.binary));
  CHECK(field(alone.out, "init").ends_with(" __exec"));
}

} // namespace

TEST_CASE("run: the sandbox's pid 1 is ws-init beside ws, or ws __exec without it") {
  as_each(check_init);
}
