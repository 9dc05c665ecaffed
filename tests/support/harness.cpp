#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace ws::test {

namespace fs = std::filesystem;

namespace {
std::string read_fd_all(int fd) {
  std::string out;
  std::array<char, 65536> buf;
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0) {
    out.append(buf.data(), static_cast<size_t>(n));
  }
  return out;
}
} // namespace

Run sh(const std::string& script, const fs::path& cwd) {
  // stderr goes to a file so a chatty command cannot fill one pipe while we read the other.
  // Both close on exec: a test that runs sh() on two threads (a session on one, looking into
  // its view on the other) must not hand one call's pipe to the other's child, whose running
  // on would keep this read from ever seeing its end (a test hung so, waiting for itself).
  char errfile[] = "/tmp/ws-test-err-XXXXXX";
  int errfd = ::mkostemp(errfile, O_CLOEXEC);
  int out[2];
  if (errfd < 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    return {};
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(errfd, 2);
    ::close(out[0]);
    ::close(out[1]);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      ::_exit(126);
    }
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  Run r;
  r.out = read_fd_all(out[0]);
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  ::lseek(errfd, 0, SEEK_SET);
  r.err = read_fd_all(errfd);
  ::close(errfd);
  ::unlink(errfile);
  return r;
}

std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

fs::path ws_binary() {
  return WS_BINARY;
}

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp ? tmp : "/tmp") + "/ws-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) {
    throw std::runtime_error("mkdtemp failed");
  }
  m_path = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  sh("chmod -R u+rwX " + q(m_path.string()) + " 2>/dev/null");
  fs::remove_all(m_path, ec);
}

TestRepo::TestRepo() : m_repo(m_dir.path() / "project") {
  fs::create_directories(m_repo);
  write("README.md", "# Project\n\nA small project for tests.\n");
  write("src/main.c", "#include \"util.h\"\n#include <stdio.h>\n\nint main(void) {\n  "
                      "printf(\"%d\\n\", add(2, 3));\n  return 0;\n}\n");
  write("src/util.c", "#include \"util.h\"\n\nint add(int a, int b) { return a + b; }\n");
  write("src/util.h", "int add(int a, int b);\n");
  write("Makefile", "prog: src/main.o src/util.o\n\tcc -o $@ $^\n\nsrc/%.o: src/%.c "
                    "src/util.h\n\tcc -c -o $@ $<\n");
  write("scripts/run.sh", "#!/bin/sh\necho run\n");
  write("docs/guide/intro.txt", "intro\n");
  Run r =
      sh("chmod +x scripts/run.sh && ln -s README.md link-to-readme && git init -q -b main . && "
         "git add -A && git -c user.name=Test -c user.email=test@example.com commit -q -m init",
         m_repo);
  if (r.status != 0) {
    throw std::runtime_error("cannot make test repository: " + r.err);
  }
}

void TestRepo::write(const std::string& rel, const std::string& content) const {
  fs::path p = m_repo / rel;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

std::string TestRepo::read(const std::string& rel) const {
  std::ifstream in(m_repo / rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void TestRepo::commit_all() const {
  REQUIRE(sh("git add -A && git -c user.name=Test -c user.email=test@example.com commit -q -m more",
             m_repo)
              .status == 0);
}

bool lexists(const std::filesystem::path& p) {
  return std::filesystem::symlink_status(p).type() != std::filesystem::file_type::not_found;
}

int open_fds(int pid) {
  int n = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++n;
  }
  return n;
}

std::string TestRepo::snapshot() const {
  // find prints type, mode, size and path; sha256sum the contents of regular files. The
  // workspace's pins (refs/ws/, docs/agent-git.md) are ws's by design, not a change.
  Run r = sh("find . -path ./.git/refs/ws -prune -o -printf '%y %m %s %l %p\\n' | LC_ALL=C sort && "
             "find . -path ./.git/refs/ws -prune -o -type f -print0 | LC_ALL=C sort -z | "
             "xargs -0 sha256sum",
             m_repo);
  return r.out;
}

MountedWorkspace::MountedWorkspace(const TestRepo& repo, const std::string& name)
    : m_repo(repo), m_name(name) {
  create();
}

MountedWorkspace::MountedWorkspace(const TestRepo& repo,
                                   const std::function<void(const fs::path&)>& prepare)
    : m_repo(repo), m_name("default") {
  prepare(m_state.path());
  create();
}

void MountedWorkspace::create() {
  ::setenv("XDG_DATA_HOME", (m_state.path() / "data").c_str(), 1);
  ::setenv("XDG_RUNTIME_DIR", (m_state.path() / "run").c_str(), 1);
  fs::create_directories(m_state.path() / "run");
  ::chmod((m_state.path() / "run").c_str(), 0700);
  Run r = ws("new");
  if (r.status != 0) {
    throw std::runtime_error("ws new failed: " + r.err);
  }
  mount();
}

void MountedWorkspace::mount() {
  Run r = ws("mount");
  if (r.status != 0) {
    throw std::runtime_error("ws mount failed: " + r.err + "\n" + daemon_log());
  }
  m_view = r.out.substr(0, r.out.find('\n'));
  m_mounted = true;
}

void MountedWorkspace::unmount() {
  Run r = ws("umount");
  if (r.status != 0) {
    throw std::runtime_error("ws umount failed: " + r.err);
  }
  m_mounted = false;
}

MountedWorkspace::~MountedWorkspace() {
  if (m_mounted) {
    Run r = ws("umount");
    if (r.status != 0) {
      sh("fusermount3 -u -z " + q(m_view.string()) + " 2>/dev/null || umount -l " +
         q(m_view.string()));
      int pid = daemon_pid();
      if (pid > 0) {
        ::kill(pid, SIGTERM);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ::kill(pid, SIGKILL);
      }
      std::fprintf(stderr, "ws umount failed: %s\ndaemon log:\n%s\n", r.err.c_str(),
                   daemon_log().c_str());
    }
  }
}

fs::path MountedWorkspace::state_dir() const {
  for (auto& key : fs::directory_iterator(m_state.path() / "data" / "ws")) {
    return key.path() / m_name;
  }
  return {};
}

std::string MountedWorkspace::ws_command() const {
  // Explicit, not only setenv: several workspaces of one test each have their own state.
  return "XDG_DATA_HOME=" + q((m_state.path() / "data").string()) +
         " XDG_RUNTIME_DIR=" + q((m_state.path() / "run").string()) + " " +
         q(ws_binary().string()) + " -C " + q(m_repo.path().string()) + " -w " + q(m_name);
}

Run MountedWorkspace::ws(const std::string& args) const {
  return sh(ws_command() + " " + args, m_repo.path());
}

Run MountedWorkspace::in_view(const std::string& script) const {
  return sh(script, m_view);
}

int MountedWorkspace::daemon_pid() const {
  std::ifstream in(state_dir() / "daemon.lock");
  int pid = 0;
  in >> pid;
  return pid;
}

std::string MountedWorkspace::daemon_log() const {
  std::ifstream in(state_dir() / "daemon.log");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool fuse_usable(std::string& why) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    why = "/dev/fuse is missing or not usable by this user (as root: chmod 0666 /dev/fuse)";
    return false;
  }
  if (::geteuid() != 0 && sh("command -v fusermount3").status != 0) {
    why = "fusermount3 is not installed";
    return false;
  }
  return true;
}

} // namespace ws::test

namespace ws::test {

std::string git_status(const TestRepo& repo) {
  return sh("git -c core.quotePath=true status --porcelain --untracked-files=all --ignored",
            repo.path())
      .out;
}

std::string tree_listing(const std::filesystem::path& root) {
  return sh("find . -path ./.git -prune -o -printf '%y %m %s %l %p\\n' | LC_ALL=C sort && "
            "find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r "
            "sha256sum",
            root)
      .out;
}

std::vector<JsonChange> diff_changes(const MountedWorkspace& w, const std::string& args) {
  // Lone surrogates (\udcXX) stand for bytes that are not UTF-8; surrogateescape restores them.
  static const std::string k_parse =
      "import json,sys\n"
      "d = json.loads(sys.stdin.buffer.read().decode('utf-8'))\n"
      "o = sys.stdout.buffer\n"
      "for c in d['changes']:\n"
      "    for k in ('status', 'path', 'from', 'verdict', 'reason'):\n"
      "        o.write(c.get(k, '').encode('utf-8', 'surrogateescape') + b'\\0')\n"
      "    o.write(b'1\\0' if c['transfers'] else b'0\\0')\n";
  Run r = w.ws("diff --json " + args + " | python3 -c " + q(k_parse));
  CHECK_MESSAGE(r.status == 0, "ws diff --json " << args << ": " << r.err);
  std::vector<JsonChange> out;
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t nul = r.out.find('\0'); nul != std::string::npos;
       start = nul + 1, nul = r.out.find('\0', start)) {
    fields.push_back(r.out.substr(start, nul - start));
    if (fields.size() == 6) {
      out.push_back({fields[0], fields[1], fields[2], fields[3], fields[4], fields[5] == "1"});
      fields.clear();
    }
  }
  return out;
}

std::string verdict_of(const MountedWorkspace& w, const std::string& path,
                       const std::string& args) {
  for (const auto& c : diff_changes(w, args)) {
    if (c.path == path) {
      return c.reason.empty() ? c.verdict : c.verdict + ": " + c.reason;
    }
  }
  return "";
}

} // namespace ws::test
