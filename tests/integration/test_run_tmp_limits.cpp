// The private tmpfs directories of `ws run` are memory: each is capped (docs/run.md, "Limits of
// the session"), so an agent cannot fill the host's RAM through /tmp, its home or /dev/shm.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <string>

using namespace ws::test;

namespace {

/// Writes 1 MiB blocks into each DIR until the first error: DIR=<MiB written> <errno name>.
const std::string k_fill = "import errno, os, sys\n"
                           "block = b'x' * (1 << 20)\n"
                           "for d in sys.argv[1:]:\n"
                           "    n, why = 0, 'none'\n"
                           "    try:\n"
                           "        with open(os.path.join(d, 'fill'), 'wb') as f:\n"
                           "            while n < 64:\n"
                           "                f.write(block)\n"
                           "                f.flush()\n"
                           "                n += 1\n"
                           "    except OSError as e:\n"
                           "        why = errno.errorcode.get(e.errno, '?')\n"
                           "    print(d + '=' + str(n) + ' ' + why)\n";

/// The size of the file system at each DIR, in MiB: DIR.size=N.
const std::string k_sizes = "import os, sys\n"
                            "for d in sys.argv[1:]:\n"
                            "    s = os.statvfs(d)\n"
                            "    print(d + '.size=' + str(s.f_blocks * s.f_frsize >> 20))\n";

void check_tmp_cap(const std::string& user) {
  Person p(user);
  // A cap of 8 MiB per directory (ws.maxTmp in the repository's config).
  REQUIRE(p.sh_as("git config ws.maxTmp 8m").status == 0);
  Run r = p.ws("run --network=off -- " + py() + " -c " + q(k_fill) + " /tmp /dev/shm " +
               q(p.home().string()) + " /dev");
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(field(r.out, "/tmp") == "8 ENOSPC");
  CHECK(field(r.out, "/dev/shm") == "8 ENOSPC");
  CHECK(field(r.out, p.home().string()) == "8 ENOSPC");
  // bwrap's /dev itself (a tmpfs of half the RAM) takes no file.
  CHECK(field(r.out, "/dev") == "0 EROFS");
  // Without the setting: an eighth of the RAM each (at least 256 MiB), /run far less.
  REQUIRE(p.sh_as("git config --unset ws.maxTmp").status == 0);
  Run d = p.ws("run --network=off -- " + py() + " -c " + q(k_sizes) + " /tmp /dev/shm /run");
  INFO("default: " << d.out << d.err);
  long ram_mib = ::sysconf(_SC_PHYS_PAGES) / (1048576 / ::sysconf(_SC_PAGESIZE));
  long expect = std::max(ram_mib / 8, 256L);
  for (const char* dir : {"/tmp", "/dev/shm"}) {
    long size = std::atol(field(d.out, std::string(dir) + ".size").c_str());
    CHECK(size >= expect - 1);
    CHECK(size <= expect + 1);
  }
  CHECK(std::atol(field(d.out, "/run.size").c_str()) == 64);
}

} // namespace

TEST_CASE("run limits: the private tmpfs directories are capped and a fill ends in ENOSPC") {
  as_each(check_tmp_cap);
}
