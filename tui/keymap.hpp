#pragma once

// The one table from keys to actions; the help screen is generated from it.

#include "tui/review_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws::tui {

/// Keys as the views report them: printable keys are their character, special keys these
/// codes (the ncurses view translates its KEY_* values, so this table needs no curses.h).
enum Key : int {
  k_key_up = 0x10000,
  k_key_down,
  k_key_left,
  k_key_right,
  k_key_page_up,
  k_key_page_down,
  k_key_home,
  k_key_end,
  k_key_enter,
  k_key_tab,
  k_key_escape,
  k_key_ctrl_c,
  k_key_resize, ///< the terminal changed size (not a key the person typed)
};

struct KeyBinding {
  int key;
  Action action;
  const char* label; ///< as the help shows the key
  const char* help;  ///< empty: an alias, not listed again
};

const std::vector<KeyBinding>& key_table();
std::optional<Action> action_for(int key);

/// The help screen's lines: one per action, with its keys.
std::vector<std::string> help_lines();

} // namespace ws::tui
