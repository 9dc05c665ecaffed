#pragma once

// `ws review` in a real terminal: a private tmux server running the built binary, keys
// sent with send-keys, the screen read with capture-pane. The server dies with the object.

#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

namespace ws::test {

class ReviewTerminal {
public:
  /// `env`: extra VAR=value words before the command; `binary`: the ws that reviews (the
  /// build's if empty).
  ReviewTerminal(const MountedWorkspace& w, const TestRepo& repo, const std::string& args,
                 int cols = 80, int rows = 24, const std::string& env = "",
                 const std::string& binary = "")
      : m_socket((m_dir.path() / "tmux.sock").string()) {
    std::string cmd = "cd " + q(repo.path().string()) +
                      " && XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
                      " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " " + env + " " +
                      q(binary.empty() ? ws_binary().string() : binary) + " review " + args +
                      "; echo ws-exit=$?; sleep 600";
    // -u: the screen keeps UTF-8 whatever this process's locale says.
    Run r = sh("tmux -u -S " + q(m_socket) + " -f /dev/null new-session -d -x " +
               std::to_string(cols) + " -y " + std::to_string(rows) + " " + q(cmd));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  ~ReviewTerminal() { sh("tmux -S " + q(m_socket) + " kill-server"); }
  ReviewTerminal(const ReviewTerminal&) = delete;
  ReviewTerminal& operator=(const ReviewTerminal&) = delete;

  std::string screen() const { return sh("tmux -S " + q(m_socket) + " capture-pane -p").out; }

  /// Resizes the terminal, as a person dragging its window does.
  void resize(int cols, int rows) const {
    REQUIRE(sh("tmux -S " + q(m_socket) + " resize-window -x " + std::to_string(cols) + " -y " +
               std::to_string(rows))
                .status == 0);
  }

  /// Waits up to `limit` for `text` on the screen; fails the test with the screen if not.
  void wait_for(const std::string& text,
                std::chrono::seconds limit = std::chrono::seconds(20)) const {
    auto until = std::chrono::steady_clock::now() + limit;
    std::string s;
    while (std::chrono::steady_clock::now() < until) {
      s = screen();
      if (s.find(text) != std::string::npos) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL("'" << text << "' never appeared; the screen:\n" << s);
  }

  /// Sends keys (tmux key names), without waiting for anything.
  void send(const std::string& keys) const {
    REQUIRE(sh("tmux -S " + q(m_socket) + " send-keys " + keys).status == 0);
  }

  /// Sends keys and waits for the screen to show `then`.
  void keys(const std::string& keys, const std::string& then) const {
    send(keys);
    wait_for(then);
  }

  /// The pid of the review process (the pane's shell's child).
  std::string review_pid() const {
    std::string shell = sh("tmux -S " + q(m_socket) + " display-message -p '#{pane_pid}'").out;
    while (!shell.empty() && shell.back() == '\n') {
      shell.pop_back();
    }
    std::string pid = sh("ps -o pid= --ppid " + shell + " | head -n 1 | tr -d ' \\n'").out;
    REQUIRE_MESSAGE(!pid.empty(), "no process under the pane's shell " << shell);
    return pid;
  }

private:
  TempDir m_dir;
  std::string m_socket;
};

inline bool have_tmux() {
  return sh("command -v tmux").status == 0;
}

/// have_tmux(), saying that the test is skipped when it is not.
inline bool tmux_or_skip() {
  if (have_tmux()) {
    return true;
  }
  MESSAGE("tmux is not installed: skipped");
  return false;
}

} // namespace ws::test
