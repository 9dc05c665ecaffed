// POSIX behaviour the differential suite (tests/conformance/) cannot see because it runs as
// root with a root daemon: the caller's umask and O_DIRECT through a normal user's daemon, and
// device nodes, whose rules depend on who asks (docs/conformance.md).
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <string>

using namespace ws::test;

namespace {

/// Mounts `p`'s default workspace from a shell whose umask is 077: a daemon that applied its
/// own umask would then make everything 0700/0600 whatever the caller asked.
std::string mount_with_strict_umask(const Person& p) {
  REQUIRE(p.ws("new").status == 0);
  Run r = sh(p.as("sh -c " + q("umask 077 && " + p.ws_line("mount"))), p.project());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return r.out.substr(0, r.out.find('\n'));
}

} // namespace

TEST_CASE("view: the caller's umask decides the modes of what it makes, not the daemon's") {
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    std::string view = mount_with_strict_umask(p);
    Run r = p.sh_as("umask 002 && mkdir d2 && touch f2 && mkfifo p2 && mkdir -p a/b/c && "
                    "umask 000 && mkdir d0 && touch f0 && mkfifo p0 && ln -s f0 l0 && "
                    "umask 022 && mkdir d22 && touch f22 && "
                    "stat -c '%n %a' d2 f2 p2 a a/b a/b/c d0 f0 p0 l0 d22 f22",
                    view);
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == "d2 775\nf2 664\np2 664\na 775\na/b 775\na/b/c 775\n"
                   "d0 777\nf0 666\np0 666\nl0 777\nd22 755\nf22 644\n");
    // The modes are the upper layer's own, not a show: they survive a remount.
    REQUIRE(p.ws("umount").status == 0);
    Run again = p.sh_as("stat -c '%n %a' d2 f2 d0 f0", p.view());
    CHECK(again.out == "d2 775\nf2 664\nd0 777\nf0 666\n");
  }
}

TEST_CASE("view: aligned O_DIRECT writes and reads land, in files of any mode") {
  // A daemon that is not root keeps the fd that created a file its owner cannot write (git's
  // 0444 objects); that fd once kept the caller's O_DIRECT and refused every write (EINVAL).
  static const std::string k_direct =
      "import mmap, os, sys\n"
      "out = []\n"
      "for name, mode in (('new', 0o644), ('ro', 0o444), ('none', 0o000)):\n"
      "    fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_DIRECT, mode)\n"
      "    buf = mmap.mmap(-1, 8192); buf.write(bytes([65 + len(out)]) * 8192)\n"
      "    try:\n"
      "        n = os.pwritev(fd, [buf], 4096)\n"
      "        back = mmap.mmap(-1, 4096); os.preadv(fd, [back], 8192)\n"
      "        out.append('%s %d %s' % (name, n, back[:2].decode()))\n"
      "    except OSError as e:\n"
      "        out.append('%s %s' % (name, e.strerror))\n"
      "    os.close(fd)\n"
      "fd = os.open('README.md', os.O_RDWR | os.O_DIRECT)\n"
      "buf = mmap.mmap(-1, 4096); buf.write(b'#' * 4096)\n"
      "out.append('README.md %d' % os.pwritev(fd, [buf], 0))\n"
      "print('\\n'.join(out))\n";
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    REQUIRE(p.ws("new").status == 0);
    std::string view = p.view().string();
    REQUIRE(!view.empty());
    Run r = p.sh_as(py() + " -c " + q(k_direct) +
                        " && stat -c '%n %s %a' new ro none README.md && head -c 3 README.md",
                    view);
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == "new 8192 AA\nro 8192 BB\nnone 8192 CC\nREADME.md 4096\n"
                   "new 12288 644\nro 12288 444\nnone 12288 0\nREADME.md 4096 644\n###");
    Run status = p.sh_as(p.ws_line("status") + " | cut -d' ' -f1,2");
    CHECK_MESSAGE(status.out == "M README.md\nA new\nA none\nA ro\n", status.err);
  }
}

TEST_CASE("view: device nodes - root makes them outside ws run, none ever opens, none lands") {
  if (::geteuid() != 0) {
    return; // only root may make device nodes at all (CAP_MKNOD): nothing to check
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  Run made = w.in_view("mknod null c 1 3 && mknod -m 0666 disk b 7 0 && stat -c '%n %F %t:%T %a' "
                       "null disk");
  REQUIRE_MESSAGE(made.status == 0, made.err);
  CHECK(made.out == "null character special file 1:3 644\ndisk block special file 7:0 666\n");
  // The view is nodev: not even root opens them through it, nor anyone else.
  Run open_root = w.in_view("echo x > null 2>&1; head -c 1 disk 2>&1; true");
  CHECK(open_root.out.find("Permission denied") != std::string::npos);
  CHECK(open_root.out.find("x") == std::string::npos);
  Run open_other = w.in_view("runuser -u nobody -- head -c 1 disk 2>&1; true");
  CHECK(open_other.out.find("Permission denied") != std::string::npos);
  // Not through the upper layer either: only the workspace's owner reaches it.
  Run upper =
      sh("runuser -u nobody -- stat " + q((w.state_dir() / "upper" / "disk").string()) + " 2>&1");
  CHECK(upper.status != 0);
  CHECK(upper.out.find("Permission denied") != std::string::npos);
  // A caller in another pid namespace (every ws run session has one) is refused by the view
  // itself, CAP_MKNOD or not; inside ws run the kernel refuses first.
  Run other_ns = w.in_view("unshare --pid --fork mknod other c 1 3 2>&1");
  CHECK(other_ns.status != 0);
  CHECK(other_ns.out.find("Operation not permitted") != std::string::npos);
  Run in_run = w.ws("run -- sh -c 'mknod agent c 1 3 2>&1; mknod agentb b 7 0 2>&1; true'");
  CHECK(in_run.out.find("Operation not permitted") != std::string::npos);
  CHECK(w.in_view("ls other agent agentb 2>/dev/null; true").out == "");
  // Journaled, listed, and withheld from the real tree.
  CHECK(w.ws("log --path null").out.find("mknod     null  [char 1:3]") != std::string::npos);
  Run status = w.ws("status");
  CHECK(status.out.find("A disk  (WITHHELD: block device)") != std::string::npos);
  CHECK(status.out.find("A null  (WITHHELD: character device)") != std::string::npos);
  w.ws("apply");
  CHECK(!lexists(repo.path() / "null"));
  CHECK(!lexists(repo.path() / "disk"));
}

TEST_CASE("view: a created file's writes clear setuid as on ext4, and it maps shared") {
  // With a kernel that lets direct-I/O files be mapped (6.6+), CREATE answers FOPEN_DIRECT_IO:
  // the kernel then neither clears the setuid and setgid bits before a write nor refuses a
  // shared mapping by itself; the daemon clears the bits (FUSE_WRITE_KILL_SUIDGID) and the
  // INIT reply allows the mapping; another open's cached pages follow the direct writes.
  // Compared with the same script in a plain directory.
  static const std::string k_script =
      "import mmap, os\n"
      "out = []\n"
      "for name, mode in (('u', 0o4755), ('g', 0o2775), ('gx', 0o2764)):\n"
      "    fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)\n"
      "    os.fchmod(fd, mode)\n"
      "    os.write(fd, b'x' * 5000)\n"
      "    out.append('%s %o' % (name, os.fstat(fd).st_mode & 0o7777))\n"
      "    os.close(fd)\n"
      "fd = os.open('m', os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)\n"
      "os.write(fd, b'.' * 4096)\n"
      "m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)\n"
      "m[0:2] = b'//'; m.flush(); m.close(); os.close(fd)\n"
      "out.append('m ' + open('m', 'rb').read(3).decode())\n"
      "fd = os.open('c', os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)\n"
      "os.write(fd, b'a' * 5000)\n"
      "r = os.open('c', os.O_RDONLY)\n"
      "out.append('c ' + os.pread(r, 2, 0).decode())\n"
      "os.pwrite(fd, b'bb', 0); os.write(fd, b'c' * 100)\n"
      "out.append('c %s %d' % (os.pread(r, 2, 0).decode(), os.fstat(r).st_size))\n"
      "print('\\n'.join(out))\n";
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    REQUIRE(p.ws("new").status == 0);
    std::string view = p.view().string();
    REQUIRE(!view.empty());
    Run native = p.sh_as("d=$(mktemp -d) && cd \"$d\" && " + py() + " -c " + q(k_script) +
                         "; rc=$?; rm -rf \"$d\"; exit $rc");
    REQUIRE_MESSAGE(native.status == 0, native.err);
    Run r = p.sh_as(py() + " -c " + q(k_script), view);
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == native.out);
    CHECK(r.out.find("m //.") != std::string::npos);
    if (user.empty() && ::geteuid() == 0) {
      // A root daemon's own writes keep the bits (CAP_FSETID): another user's must not.
      Run n = sh("d=$(mktemp -d) && chmod 777 \"$d\" && cd \"$d\" && runuser -u nobody -- " + py() +
                 " -c " + q(k_script) + "; rc=$?; rm -rf \"$d\"; exit $rc");
      REQUIRE_MESSAGE(n.status == 0, n.err);
      CHECK(n.out.find("u 755\n") != std::string::npos);
      Run v = sh("mkdir -m 777 others && cd others && runuser -u nobody -- " + py() + " -c " +
                     q(k_script),
                 view);
      CHECK_MESSAGE(v.status == 0, v.err);
      CHECK(v.out == n.out);
    }
  }
}
