#pragma once
// Helpers shared by the ws run escape tests (test_run_escapes_*.cpp).
#include "tests/integration/run_support.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

namespace ws::test {

namespace fs = std::filesystem;

inline constexpr auto npos = std::string::npos;

inline std::string label_of(const std::string& user) {
  if (!user.empty()) {
    return user;
  }
  return ::geteuid() == 0 ? "root" : "this user";
}

/// Runs `check` once per person who runs ws (root and nobody, or this user), each in a
/// subcase of its own so that one's failure does not hide the other's.
inline void as_each(const std::function<void(const std::string&)>& check) {
  for (const auto& user : people()) {
    std::string name = "as " + label_of(user);
    SUBCASE(name.c_str()) {
      check(user);
    }
  }
}

inline std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

/// "DEV:INO" of `p` on the host, as python's os.stat reports it inside.
inline std::string ident(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    return "none";
  }
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

/// The session id in ws run's summary ("ws: session ID ended"), or "".
inline std::string session_of(const std::string& err) {
  size_t at = err.find("ws: session ");
  if (at == npos) {
    return "";
  }
  at += 12;
  size_t end = err.find(' ', at);
  return end == npos ? "" : err.substr(at, end - at);
}

/// The summary ws run prints when a session ends, whatever ended it.
inline bool has_summary(const std::string& err) {
  return err.find("ws: session ") != npos && err.find(" ended") != npos &&
         err.find("checkpoint") != npos;
}

/// A unique suffix for names shared across the host (abstract sockets, files in /run).
inline std::string unique() {
  std::random_device rd;
  return std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000);
}

/// Connects to each NAME=ADDRESS unix socket (ADDRESS "@name": abstract): NAME=OK or the errno
/// name ("timeout" after 5 s).
inline const std::string k_unix_connect =
    "import errno, socket, sys\n"
    "for spec in sys.argv[1:]:\n"
    "    name, addr = spec.split('=', 1)\n"
    "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "    s.settimeout(5)\n"
    "    try:\n"
    "        s.connect('\\0' + addr[1:] if addr.startswith('@') else addr)\n"
    "        print(name + '=OK')\n"
    "    except OSError as e:\n"
    "        print(name + '=' + errno.errorcode.get(e.errno or 0, 'timeout'))\n"
    "    s.close()\n";

/// Puts the host's core_pattern back if anything changed it.
class CorePattern {
public:
  static constexpr const char* k_path = "/proc/sys/kernel/core_pattern";
  CorePattern() : m_saved(slurp(k_path)) {}
  ~CorePattern() { restore(); }
  CorePattern(const CorePattern&) = delete;
  CorePattern& operator=(const CorePattern&) = delete;
  const std::string& saved() const { return m_saved; }
  std::string now() const { return slurp(k_path); }
  void restore() const {
    if (::geteuid() == 0 && !m_saved.empty() && now() != m_saved) {
      std::ofstream(k_path) << m_saved;
    }
  }

private:
  std::string m_saved;
};

/// Runs `fn` at the end of the scope.
struct Finally {
  std::function<void()> fn;
  ~Finally() { fn(); }
};

} // namespace ws::test
