// The ncurses side of the review: a Screen guard, painting Frames, reading keys, prompts.
#include "tui/screen.hpp"

#include "tui/keymap.hpp"
#include "tui/render.hpp"

#include <curses.h>
#include <signal.h>

#include <array>
#include <clocale>
#include <cstdlib>
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
    ::timeout(200); // poll the signal flag
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

  /// The next key, translated for key_table(); nullopt on timeout.
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

/// The session loop: the model, the screen and the prompts between them.
class Session {
public:
  Session(ReviewModel& m, const SessionHooks& h) : m_model(m), m_hooks(h) {}

  SessionResult run() {
    for (;;) {
      draw({});
      std::optional<int> k = next_key();
      if (!k) {
        return {SessionResult::Kind::Interrupted, {}, {}};
      }
      if (*k == KEY_RESIZE) {
        continue;
      }
      if (*k == k_key_ctrl_c) {
        return {SessionResult::Kind::Interrupted, {}, {}};
      }
      if (m_help) {
        m_help = false;
        continue;
      }
      std::optional<Action> a = action_for(*k);
      if (!a) {
        continue;
      }
      if (auto r = handle(m_model.apply(*a))) {
        return *r;
      }
    }
  }

private:
  void draw(const std::string& prompt) {
    int h = 0, w = 0;
    getmaxyx(stdscr, h, w);
    fit(m_model, w, h);
    m_screen.paint(render(m_model, w, h, Overlay{prompt, m_help}));
  }

  /// Blocks for a key; nullopt when a signal asks us to leave.
  std::optional<int> next_key() {
    for (;;) {
      if (g_signal != 0) {
        return std::nullopt;
      }
      if (auto k = m_screen.key()) {
        return k;
      }
    }
  }

  std::optional<bool> ask(const std::string& question) {
    for (;;) {
      draw(question);
      std::optional<int> k = next_key();
      if (!k || *k == k_key_ctrl_c) {
        return std::nullopt;
      }
      if (*k == 'y' || *k == 'Y') {
        return true;
      }
      if (*k == 'n' || *k == 'N' || *k == k_key_escape || *k == 'q' || *k == k_key_enter) {
        return false;
      }
    }
  }

  /// A line of text; nullopt when cancelled (Esc) or interrupted.
  std::optional<std::string> read_line(const std::string& prompt, std::string text) {
    ::curs_set(1);
    struct CursorOff {
      ~CursorOff() { ::curs_set(0); }
    } off;
    for (;;) {
      draw(prompt + text);
      std::optional<int> k = next_key();
      if (!k || *k == k_key_ctrl_c || *k == k_key_escape) {
        return std::nullopt;
      }
      if (*k == k_key_enter) {
        return text;
      }
      if (*k == 127) {
        while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xc0) == 0x80) {
          text.pop_back();
        }
        if (!text.empty()) {
          text.pop_back();
        }
      } else if (*k >= 0x20 && *k < 0x100 && *k != 0x7f) {
        text += static_cast<char>(*k);
      }
    }
  }

  std::optional<SessionResult> handle(Effect e) {
    switch (e) {
    case Effect::Changed:
      m_hooks.save(m_model);
      return std::nullopt;
    case Effect::AskOverride: {
      const FileEntry* f = m_model.selected_file();
      auto yes = ask("Take WITHHELD '" + f->path + "' (" + f->reason +
                     ")? It lands in your tree if you accept it. y/N");
      if (!yes) {
        return SessionResult{SessionResult::Kind::Interrupted, {}, {}};
      }
      if (*yes) {
        m_model.confirm_override();
        m_hooks.save(m_model);
      }
      return std::nullopt;
    }
    case Effect::AskSearch:
      if (auto text = read_line("/", "")) {
        m_model.search(*text);
      }
      return std::nullopt;
    case Effect::AskQuit: {
      auto yes = ask("Leave without landing anything? Your decisions are kept for the next "
                     "'ws review' of these changes. y/N");
      if (!yes || *yes) {
        return SessionResult{SessionResult::Kind::Quit, {}, {}};
      }
      return std::nullopt;
    }
    case Effect::Quit:
      return SessionResult{SessionResult::Kind::Quit, {}, {}};
    case Effect::ShowHelp:
      m_help = true;
      return std::nullopt;
    case Effect::AskFinish:
      return finish();
    default:
      return std::nullopt;
    }
  }

  std::optional<SessionResult> finish() {
    std::string prompt = m_hooks.stage_by_default
                             ? "Finish: s stage in the index (Enter)  t tree only  p patch file  "
                               "Esc back"
                             : "Finish: t write to the tree (Enter)  s also stage  p patch file  "
                               "Esc back";
    SessionResult r{SessionResult::Kind::Finish, FinishMode::Stage, {}};
    for (bool chosen = false; !chosen;) {
      draw(prompt);
      std::optional<int> k = next_key();
      if (!k || *k == k_key_ctrl_c) {
        return SessionResult{SessionResult::Kind::Interrupted, {}, {}};
      }
      chosen = true;
      if (*k == 's' || (*k == k_key_enter && m_hooks.stage_by_default)) {
        r.mode = FinishMode::Stage;
      } else if (*k == 't' || *k == k_key_enter) {
        r.mode = FinishMode::Tree;
      } else if (*k == 'p') {
        r.mode = FinishMode::PatchFile;
        auto file = read_line("Write the accepted changes to: ", m_hooks.default_patch_file);
        if (!file || file->empty()) {
          return std::nullopt;
        }
        r.patch_file = *file;
      } else if (*k == k_key_escape || *k == 'q') {
        return std::nullopt;
      } else {
        chosen = false;
      }
    }
    if (!m_hooks.fresh()) {
      auto yes = ask("The workspace changed since this review opened: nothing was landed. Reload "
                     "(decisions on unchanged hunks are kept)? y/N");
      if (yes && *yes) {
        return SessionResult{SessionResult::Kind::Reload, {}, {}};
      }
      return std::nullopt;
    }
    r.checked_fresh = true;
    return r;
  }

  ReviewModel& m_model;
  const SessionHooks& m_hooks;
  Screen m_screen;
  bool m_help = false;
};

} // namespace

SessionResult run_session(ReviewModel& model, const SessionHooks& hooks) {
  g_signal = 0;
  Session s(model, hooks);
  return s.run();
}

} // namespace ws::tui
