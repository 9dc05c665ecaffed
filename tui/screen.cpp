// The ncurses terminal of the review: a Screen guard, painting Frames, reading keys.
#include "tui/screen.hpp"

#include "tui/keymap.hpp"

#include <curses.h>
#include <signal.h>

#include <array>
#include <clocale>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>

namespace ws::tui {

namespace {

volatile sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  g_signal = sig;
}

/// Owns the terminal while the session runs: curses mode and our signal handlers. The
/// destructor restores both (tig's done_display), also when an exception unwinds.
/// Signals only set a flag; the key loop polls it and leaves through the destructor, so
/// endwin() never runs inside a signal handler.
class Screen {
public:
  Screen() {
    std::setlocale(LC_ALL, "");
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < k_signals.size(); ++i) {
      ::sigaction(k_signals[i], &sa, &m_old[i]);
    }
    if (!::initscr()) {
      restore_signals();
      throw std::runtime_error("cannot start the terminal screen (TERM=" +
                               std::string(std::getenv("TERM") ? std::getenv("TERM") : "") + ")");
    }
    ::raw(); // Ctrl-C arrives as a key: leave cleanly, decisions saved
    ::noecho();
    ::keypad(stdscr, TRUE);
    ::curs_set(0);
    m_color = ::has_colors() && std::getenv("NO_COLOR") == nullptr;
    if (m_color) {
      ::start_color();
      ::use_default_colors();
      short fg[] = {COLOR_GREEN, COLOR_RED, COLOR_YELLOW, COLOR_MAGENTA, COLOR_CYAN};
      for (short i = 0; i < 5; ++i) {
        ::init_pair(static_cast<short>(i + 1), fg[i], -1);
      }
    }
  }
  ~Screen() {
    ::endwin();
    restore_signals();
  }
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

  attr_t attr(Style s) const {
    auto c = [&](short pair, attr_t fallback) {
      return m_color ? static_cast<attr_t>(COLOR_PAIR(pair)) : fallback;
    };
    switch (s) {
    case Style::Title:
    case Style::Status:
      return A_REVERSE;
    case Style::Prompt:
      return A_BOLD | A_REVERSE;
    case Style::Selected:
      return A_REVERSE | A_BOLD;
    case Style::SelectedDim:
      return A_UNDERLINE | A_BOLD;
    case Style::Group:
      return A_BOLD;
    case Style::Flagged:
    case Style::Partial:
      return c(3, 0) | A_BOLD;
    case Style::Withheld:
      return c(4, 0) | A_BOLD;
    case Style::Blocked:
      return c(2, 0) | A_BOLD;
    case Style::Accepted:
    case Style::Added:
      return c(1, 0);
    case Style::Rejected:
    case Style::Deleted:
      return c(2, 0);
    case Style::AddedWord:
      return c(1, A_BOLD) | A_REVERSE;
    case Style::DeletedWord:
      return c(2, A_BOLD) | A_REVERSE;
    case Style::Note:
      return c(5, 0);
    case Style::HunkHeader:
      return c(5, A_BOLD);
    case Style::HunkCurrent:
      return c(5, 0) | A_REVERSE | A_BOLD;
    case Style::Dim:
      return A_DIM;
    case Style::Marker:
      // Neither text nor colour the file can produce: reverse video, in monochrome too.
      return c(4, 0) | A_REVERSE | A_BOLD;
    default:
      return A_NORMAL;
    }
  }

  void paint(const Frame& f) const {
    ::erase();
    for (size_t y = 0; y < f.rows.size(); ++y) {
      ::move(static_cast<int>(y), 0);
      for (const auto& s : f.rows[y].spans) {
        ::attrset(attr(s.style));
        // The bottom-right cell cannot be written without scrolling: ERR there is fine.
        ::addstr(s.text.c_str());
      }
    }
    ::attrset(A_NORMAL);
    ::refresh();
  }

  /// The next key, translated for key_table(); nullopt on timeout (see timeout()).
  std::optional<int> key() const {
    int ch = ::getch();
    switch (ch) {
    case ERR:
      return std::nullopt;
    case KEY_UP:
      return k_key_up;
    case KEY_DOWN:
      return k_key_down;
    case KEY_LEFT:
      return k_key_left;
    case KEY_RIGHT:
      return k_key_right;
    case KEY_PPAGE:
      return k_key_page_up;
    case KEY_NPAGE:
      return k_key_page_down;
    case KEY_HOME:
      return k_key_home;
    case KEY_END:
      return k_key_end;
    case KEY_ENTER:
    case '\n':
    case '\r':
      return k_key_enter;
    case '\t':
      return k_key_tab;
    case 27:
      return k_key_escape;
    case 3:
      return k_key_ctrl_c;
    case KEY_RESIZE:
      return k_key_resize;
    case KEY_BACKSPACE:
    case 127:
    case 8:
      return 127;
    default:
      return ch;
    }
  }

private:
  void restore_signals() noexcept {
    for (size_t i = 0; i < k_signals.size(); ++i) {
      ::sigaction(k_signals[i], &m_old[i], nullptr);
    }
  }
  static constexpr std::array<int, 3> k_signals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> m_old{};
  bool m_color = false;
};

/// The ncurses terminal: Screen behind the Terminal interface.
class CursesTerminal final : public Terminal {
public:
  std::pair<int, int> size() const override {
    int h = 0, w = 0;
    getmaxyx(stdscr, h, w);
    return {w, h};
  }
  void paint(const Frame& f) override { m_screen.paint(f); }
  std::optional<int> key(int wait_ms) override {
    ::timeout(wait_ms);
    return m_screen.key();
  }
  bool interrupted() const override { return g_signal != 0; }
  void show_cursor(bool visible) override { ::curs_set(visible ? 1 : 0); }

private:
  Screen m_screen;
};

} // namespace

std::unique_ptr<Terminal> open_terminal() {
  g_signal = 0;
  return std::make_unique<CursesTerminal>();
}

} // namespace ws::tui
