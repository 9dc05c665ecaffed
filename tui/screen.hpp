#pragma once

// The terminal the review runs on: what the session needs of one (tui/session.hpp), and
// the ncurses one (tui/screen.cpp, the only file that includes curses.h).

#include "tui/render.hpp"

#include <memory>
#include <optional>
#include <utility>

namespace ws::tui {

class Terminal {
public:
  virtual ~Terminal() = default;
  /// Columns and rows.
  virtual std::pair<int, int> size() const = 0;
  virtual void paint(const Frame& frame) = 0;
  /// The next key (see tui/keymap.hpp), waiting at most `wait_ms` (0: only one already
  /// typed); nullopt when none came.
  virtual std::optional<int> key(int wait_ms) = 0;
  /// A signal (SIGINT, SIGTERM, SIGHUP) asked the review to leave.
  virtual bool interrupted() const = 0;
  virtual void show_cursor(bool visible) = 0;
};

/// The terminal in curses mode (raw: Ctrl-C arrives as a key) until the object is destroyed,
/// which restores it, also when an exception unwinds. Signals only set a flag that
/// interrupted() reports, so no curses call runs in a signal handler. Throws
/// std::runtime_error when there is no usable terminal. `NO_COLOR` turns colours off.
std::unique_ptr<Terminal> open_terminal();

} // namespace ws::tui
