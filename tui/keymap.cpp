// Keys: git add -p and tig habits (j/k, space, /, n/N, ?, q), plus the review's own.
#include "tui/keymap.hpp"

#include <algorithm>
#include <map>

namespace ws::tui {

const std::vector<KeyBinding>& key_table() {
  static const std::vector<KeyBinding> table = {
      {'j', Action::Down, "j/Down", "next file (list) / scroll down (diff)"},
      {k_key_down, Action::Down, "", ""},
      {'k', Action::Up, "k/Up", "previous file (list) / scroll up (diff)"},
      {k_key_up, Action::Up, "", ""},
      {' ', Action::PageDown, "Space/PgDn", "page down"},
      {k_key_page_down, Action::PageDown, "", ""},
      {'b', Action::PageUp, "b/PgUp", "page up"},
      {k_key_page_up, Action::PageUp, "", ""},
      {'g', Action::Top, "g/Home", "top"},
      {k_key_home, Action::Top, "", ""},
      {'G', Action::Bottom, "G/End", "bottom"},
      {k_key_end, Action::Bottom, "", ""},
      {k_key_tab, Action::ToggleFocus, "Tab", "switch between the file list and the diff"},
      {k_key_enter, Action::Open, "Enter",
       "a folded directory: list its files (or fold them again); a file: Tab"},
      {'z', Action::FoldUp, "z", "fold the expanded directory around the cursor again"},
      {k_key_right, Action::ToggleFocus, "", ""},
      {k_key_left, Action::ToggleFocus, "", ""},
      {']', Action::NextHunk, "]", "next hunk"},
      {'[', Action::PrevHunk, "[", "previous hunk"},
      {'J', Action::NextFile, "J", "next file (from the diff too)"},
      {'K', Action::PrevFile, "K", "previous file"},
      {'a', Action::Accept, "a/y", "accept: the file (list) or the hunk (diff)"},
      {'y', Action::Accept, "", ""},
      {'r', Action::Reject, "r/x", "reject: the file (list) or the hunk (diff)"},
      {'x', Action::Reject, "", ""},
      {'u', Action::Undecide, "u", "leave undecided again"},
      {'A', Action::AcceptFile, "A", "accept the whole file"},
      {'R', Action::RejectFile, "R", "reject the whole file"},
      {'s', Action::Split, "s", "split the hunk at its context lines"},
      {'o', Action::Override, "o", "take a WITHHELD file anyway (asks first)"},
      {'w', Action::ToggleWrap, "w", "long lines: wrap them, or cut them and scroll sideways"},
      {'l', Action::ScrollRight, "l/>", "scroll right (when lines are cut)"},
      {'>', Action::ScrollRight, "", ""},
      {'h', Action::ScrollLeft, "h/<", "scroll left (when lines are cut)"},
      {'<', Action::ScrollLeft, "", ""},
      {'/', Action::Search, "/", "search paths and diff lines"},
      {'n', Action::SearchNext, "n", "next match"},
      {'N', Action::SearchPrev, "N", "previous match"},
      {'?', Action::Help, "?", "this help"},
      {'F', Action::Finish, "F", "finish: stage, write to the tree, or write a patch"},
      {'q', Action::Quit, "q", "leave (decisions are kept for the next ws review)"},
  };
  return table;
}

std::optional<Action> action_for(int key) {
  static const std::map<int, Action> by_key = [] {
    std::map<int, Action> m;
    for (const auto& b : key_table()) {
      m.emplace(b.key, b.action);
    }
    return m;
  }();
  auto it = by_key.find(key);
  if (it == by_key.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<std::string> help_lines() {
  std::vector<std::string> out;
  for (const auto& b : key_table()) {
    if (*b.help == '\0') {
      continue;
    }
    std::string label = b.label;
    label.resize(std::max<size_t>(label.size(), 12), ' ');
    out.push_back("  " + label + b.help);
  }
  return out;
}

} // namespace ws::tui
