#include "tests/integration/run_support.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ws::test {

namespace fs = std::filesystem;

std::string py() {
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool wait_for(const fs::path& p, int tenths) {
  for (int i = 0; i < tenths && !fs::exists(p); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return fs::exists(p);
}

std::string field(const std::string& out, const std::string& key) {
  size_t at = ("\n" + out).find("\n" + key + "=");
  if (at == std::string::npos) {
    return "<missing>";
  }
  at += key.size() + 1;
  return out.substr(at, out.find('\n', at) - at);
}

bool refused(const std::string& errname) {
  return errname == "EROFS" || errname == "EACCES" || errname == "EPERM";
}

OutsideDir::OutsideDir(const std::vector<std::string>& bases) {
  for (const auto& b : bases) {
    std::string t = b + "/ws-run-test-XXXXXX";
    if (::mkdtemp(t.data())) {
      m_path = t;
      ::chmod(t.c_str(), 0755);
      return;
    }
  }
  throw std::runtime_error("no writable directory outside /tmp");
}

OutsideDir::~OutsideDir() {
  std::error_code ec;
  sh("chmod -R u+rwX " + q(m_path.string()) + " 2>/dev/null");
  fs::remove_all(m_path, ec);
}

std::vector<std::string> outside_tmp_bases() {
  if (::geteuid() == 0) {
    return {"/home", "/srv", "/opt", "/var/lib"};
  }
  const char* home = std::getenv("HOME");
  return {home ? home : "/nonexistent"};
}

std::vector<std::string> people() {
  if (::geteuid() != 0) {
    return {""};
  }
  if (sh("id nobody && command -v setpriv && command -v fusermount3").status != 0) {
    return {""};
  }
  return {"", "nobody"};
}

Person::Person(std::string user)
    : binary(ws_binary()), m_user(std::move(user)), m_base(outside_tmp_bases()) {
  fs::create_directories(data());
  fs::create_directories(runtime());
  ::chmod(runtime().c_str(), 0700);
  fs::create_directories(project() / "src");
  fs::create_directories(scratch());
  {
    std::ofstream(project() / "README.md") << "# Project\n";
    std::ofstream(project() / "src" / "main.c") << "int main(void) { return 0; }\n";
  }
  Run r = sh("git init -q -b main . && git add -A && git -c user.name=Test -c "
             "user.email=test@example.com commit -q -m init",
             project());
  if (r.status != 0) {
    throw std::runtime_error("cannot make the project: " + r.err);
  }
  if (!m_user.empty()) {
    own(home());
    own(base() / "work");
    own(scratch());
  }
}

Person::~Person() {
  for (const auto& w : m_workspaces) {
    ws("-w " + q(w) + " umount --force 2>/dev/null");
  }
  ws("profile umount 2>/dev/null"); // the layers stay mounted after a session
}

std::string Person::label() const {
  if (!m_user.empty()) {
    return m_user;
  }
  return ::geteuid() == 0 ? "root" : "this user";
}

bool Person::is_root() const {
  return m_user.empty() && ::geteuid() == 0;
}

std::string Person::as(const std::string& cmd) const {
  if (m_user.empty()) {
    return "exec sh -c " + q("exec " + cmd);
  }
  return "exec setpriv --reuid=" + q(m_user) + " --regid=$(id -g " + q(m_user) +
         ") --clear-groups sh -c " + q("exec " + cmd);
}

std::string Person::ws_line(const std::string& args, const std::string& extra_env) const {
  return "env HOME=" + q(home().string()) + " XDG_DATA_HOME=" + q(data().string()) +
         " XDG_RUNTIME_DIR=" + q(runtime().string()) + " " + extra_env + " " + q(binary.string()) +
         " " + args;
}

Run Person::ws(const std::string& args, const std::string& extra_env) const {
  return sh(as(ws_line(args, extra_env)), project());
}

Run Person::sh_as(const std::string& script, const fs::path& cwd) const {
  // cd as the person: another user's FUSE view is closed to root, so sh()'s chdir would fail.
  std::string dir = (cwd.empty() ? project() : cwd).string();
  return sh(as("sh -c " + q("cd " + q(dir) + " || exit 125\n" + script)), "/");
}

void Person::own(const fs::path& p) const {
  if (!m_user.empty()) {
    sh("chown -R " + q(m_user) + ":$(id -g " + q(m_user) + ") " + q(p.string()));
  }
}

fs::path Person::view(const std::string& name) const {
  Run r = ws("-w " + q(name) + " mount");
  // An empty path would send sh_as() into the real project: a write meant for the view
  // would land beside it and the test would look for it in vain.
  REQUIRE_MESSAGE((r.status == 0 && !r.out.empty()), "ws mount as " << label() << ": " << r.status
                                                                    << "\n"
                                                                    << r.out << r.err);
  return r.out.substr(0, r.out.find('\n'));
}

std::string Person::view_file(const std::string& rel, const std::string& name) const {
  Run r = sh_as("cat " + q(rel) + " 2>/dev/null || printf '<absent>'", view(name));
  return r.out;
}

bool Person::view_has(const std::string& rel, const std::string& name) const {
  Run r =
      sh_as("if [ -e " + q(rel) + " ] || [ -L " + q(rel) + " ]; then echo yes; else echo no; fi",
            view(name));
  CHECK_MESSAGE((r.out == "yes\n" || r.out == "no\n"), "cannot look in the view: " << r.err);
  return r.out == "yes\n";
}

bool Person::wait_in_view(const std::string& rel, int seconds, const std::string& name) const {
  return sh_as("i=0; while [ ! -e " + q(rel) + " ] && [ $i -lt " + std::to_string(seconds * 10) +
                   " ]; do sleep 0.1; i=$((i+1)); done; test -e " + q(rel),
               view(name))
             .status == 0;
}

pid_t start_job(const std::string& script, const fs::path& cwd, const fs::path& err) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    int null = ::open("/dev/null", O_RDWR);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(e, 2);
    if (::chdir(cwd.c_str()) != 0) {
      ::_exit(126);
    }
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid); // also from here: no race with a kill of the group
  return pid;
}

int wait_job(pid_t pid, int seconds) {
  int status = 0;
  for (int i = 0; i < seconds * 10; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

bool alive(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

LoopbackServer::LoopbackServer() {
  static const std::string k_server =
      "import os, socket, sys\n"
      "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8); s.settimeout(120)\n"
      "open(sys.argv[1] + '.tmp', 'w').write(str(s.getsockname()[1]))\n"
      "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
      "while True:\n"
      "    try:\n"
      "        c, _ = s.accept()\n"
      "    except OSError:\n"
      "        break\n"
      "    open(sys.argv[2], 'a').write('client\\n')\n"
      "    c.sendall(b'hello'); c.close()\n";
  fs::path portfile = m_dir.path() / "port";
  Run r = sh(py() + " -c " + q(k_server) + " " + q(portfile.string()) + " " +
             q((m_dir.path() / "clients").string()) + " >/dev/null 2>&1 </dev/null & echo $!");
  m_pid = std::atoi(r.out.c_str());
  if (wait_for(portfile, 50)) {
    port = slurp(portfile);
  }
}

LoopbackServer::~LoopbackServer() {
  if (m_pid > 0) {
    ::kill(m_pid, SIGTERM);
  }
}

int LoopbackServer::clients() const {
  std::string log = slurp(m_dir.path() / "clients");
  return static_cast<int>(std::count(log.begin(), log.end(), '\n'));
}

UnixListeners::UnixListeners(const std::vector<std::pair<std::string, std::string>>& sockets) {
  static const std::string k_listen =
      "import os, select, socket, sys, time\n"
      "log, ready = sys.argv[1], sys.argv[2]\n"
      "socks = {}\n"
      "for spec in sys.argv[3:]:\n"
      "    name, addr = spec.split('=', 1)\n"
      "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
      "    if addr.startswith('@'):\n"
      "        s.bind('\\0' + addr[1:])\n"
      "    else:\n"
      "        s.bind(addr); os.chmod(addr, 0o777)\n"
      "    s.listen(16); socks[s] = name\n"
      "open(ready + '.tmp', 'w').write('ready'); os.rename(ready + '.tmp', ready)\n"
      "deadline = time.time() + 120\n"
      "while time.time() < deadline:\n"
      "    r, _, _ = select.select(list(socks), [], [], 1)\n"
      "    for s in r:\n"
      "        c, _ = s.accept()\n"
      "        with open(log, 'a') as f: f.write(socks[s] + '\\n')\n"
      "        try:\n"
      "            c.sendall(b'hello')\n"
      "        except OSError:\n"
      "            pass\n"
      "        c.close()\n";
  std::string args;
  for (const auto& [name, addr] : sockets) {
    args += " " + q(name + "=" + addr);
  }
  fs::path ready = m_dir.path() / "ready";
  ::chmod(m_dir.path().c_str(), 0755);
  Run r = sh(py() + " -c " + q(k_listen) + " " + q((m_dir.path() / "log").string()) + " " +
             q(ready.string()) + args + " >/dev/null 2>&1 </dev/null & echo $!");
  m_pid = std::atoi(r.out.c_str());
  m_ready = wait_for(ready, 50);
}

UnixListeners::~UnixListeners() {
  if (m_pid > 0) {
    ::kill(m_pid, SIGTERM);
  }
}

std::string UnixListeners::accepted() const {
  return slurp(m_dir.path() / "log");
}

HostService::HostService(const fs::path& dir, const std::string& name, const std::string& kind,
                         const std::string& prefix) {
  static const std::string k_serve = "import os, select, socket, sys, time\n"
                                     "d, name, kind, note = sys.argv[1:5]\n"
                                     "os.chdir(d)\n"
                                     "t = socket.SOCK_STREAM if kind == 'stream' else "
                                     "socket.SOCK_DGRAM\n"
                                     "s = socket.socket(socket.AF_UNIX, t)\n"
                                     "s.bind(name)\n"
                                     "os.chmod(name, 0o777)\n"
                                     "if kind == 'stream':\n"
                                     "    s.listen(8)\n"
                                     "open(note + '.ready', 'w').close()\n"
                                     "end = time.time() + 90\n"
                                     "while time.time() < end:\n"
                                     "    r, _, _ = select.select([s], [], [], 0.3)\n"
                                     "    if r:\n"
                                     "        if kind == 'stream':\n"
                                     "            s.accept()[0].close()\n"
                                     "            open(note, 'a').write('got\\n')\n"
                                     "        else:\n"
                                     "            data = s.recv(100).decode(errors='replace')\n"
                                     "            open(note, 'a').write(data + '\\n')\n";
  fs::path note = m_notes.path() / "note";
  Run r = sh(prefix + (prefix.empty() ? "" : " ") + py() + " -c " + q(k_serve) + " " +
             q(dir.string()) + " " + q(name) + " " + kind + " " + q(note.string()) +
             " >/dev/null 2>&1 </dev/null & echo $!");
  m_pid = std::atoi(r.out.c_str());
  // A python start takes seconds on a loaded machine (ctest -j2 beside a build).
  m_ready = m_pid > 0 && wait_for(m_notes.path() / "note.ready", 300);
}

HostService::~HostService() {
  if (m_pid > 0) {
    ::kill(m_pid, SIGKILL);
  }
}

bool HostService::reached() const {
  return fs::exists(m_notes.path() / "note");
}

bool HostService::wait_reached(int tenths) const {
  return wait_for(m_notes.path() / "note", tenths);
}

std::string HostService::notes() const {
  std::ifstream in(m_notes.path() / "note");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool HostService::wait_notes(const std::string& expected, int tenths) const {
  for (int i = 0; i < tenths; ++i) {
    if (notes() == expected) {
      return true;
    }
    ::usleep(100 * 1000);
  }
  return notes() == expected;
}

void HostService::forget() const {
  fs::remove(m_notes.path() / "note");
}

ModeGuard::ModeGuard(fs::path p) : m_path(std::move(p)) {
  m_mode = mode();
}

unsigned ModeGuard::mode() const {
  struct stat st {};
  return ::stat(m_path.c_str(), &st) == 0 ? st.st_mode : 0;
}

ModeGuard::~ModeGuard() {
  if (m_mode != 0 && mode() != m_mode) {
    ::chmod(m_path.c_str(), m_mode & 07777);
  }
}

fs::path real_bwrap() {
  for (const char* p : {"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"}) {
    std::error_code ec;
    fs::path c = fs::canonical(p, ec);
    if (!ec) {
      return c;
    }
  }
  return "/usr/bin/bwrap";
}

void Person::use_own_ws_copy() {
  fs::path bin = base() / "bin";
  fs::create_directories(bin);
  fs::copy_file(ws_binary(), bin / "ws");
  // ws-init (the sandbox's pid 1) comes with it, as an install would have it.
  if (fs::path init = ws_binary().parent_path() / "ws-init"; fs::exists(init)) {
    fs::copy_file(init, bin / "ws-init");
  }
  own(bin);
  binary = bin / "ws";
}

} // namespace ws::test
