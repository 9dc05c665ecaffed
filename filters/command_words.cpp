// Splitting command lines into words and finding the project files they name
// (command_words.hpp).
#include "filters/command_words.hpp"

#include <array>

namespace ws::filters {

void command_words(std::string_view line, std::vector<CommandWord>& words, int depth) {
  std::string cur;
  bool quoted_blank = false; // cur holds a blank that was quoted
  bool at_command = true;
  char quote = 0;
  auto flush = [&] {
    if (cur.empty()) {
      return;
    }
    if (quoted_blank && depth < 4) {
      command_words(cur, words, depth + 1);
    } else {
      words.push_back({cur, at_command});
    }
    at_command = false;
    cur.clear();
    quoted_blank = false;
  };
  for (char c : line) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        quoted_blank = quoted_blank || c == ' ' || c == '\t' || c == '\n';
        cur += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ' ' || c == '\t') {
      flush();
    } else if (c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`' || c == '\n') {
      flush();
      at_command = true;
    } else {
      cur += c;
    }
  }
  flush();
}

bool names_a_file(const CommandWord& w) {
  if (w.text.empty()) {
    return false;
  }
  if (w.text.find('/') != std::string::npos) {
    return true;
  }
  return !w.command && w.text.front() != '-' && w.text.find('.') != std::string::npos &&
         w.text.find_first_of("$%=*?") == std::string::npos && w.text != "." && w.text != "..";
}

namespace {

/// Variables tools set to the project's top before they run a command of its config.
constexpr std::array<std::string_view, 10> k_top_variables{"$CLAUDE_PROJECT_DIR/",
                                                           "${CLAUDE_PROJECT_DIR}/",
                                                           "${workspaceFolder}/",
                                                           "${workspaceRoot}/",
                                                           "${containerWorkspaceFolder}/",
                                                           "${localWorkspaceFolder}/",
                                                           "$PWD/",
                                                           "${PWD}/",
                                                           "$GIT_WORK_TREE/",
                                                           "${GIT_WORK_TREE}/"};

} // namespace

std::optional<std::string> project_path_of(std::string_view word, std::string_view dir,
                                           std::string_view top) {
  std::string rel;
  bool from_top = false;
  for (std::string_view var : k_top_variables) {
    if (word.substr(0, var.size()) == var) {
      word.remove_prefix(var.size());
      from_top = true;
      break;
    }
  }
  if (word.empty() || word.front() == '~' || word.find_first_of("$*?[`") != std::string::npos) {
    return std::nullopt;
  }
  if (word.front() == '/') {
    std::string_view t = top;
    while (t.size() > 1 && t.back() == '/') {
      t.remove_suffix(1);
    }
    if (t.empty() || word.substr(0, t.size()) != t || word.size() <= t.size() ||
        word[t.size()] != '/') {
      return std::nullopt;
    }
    word.remove_prefix(t.size() + 1);
    from_top = true;
  }
  // Lexically, component by component: `..` above the top leaves the project.
  std::vector<std::string_view> parts;
  auto take = [&](std::string_view s) {
    while (!s.empty()) {
      size_t slash = s.find('/');
      std::string_view part = s.substr(0, slash);
      s = slash == std::string_view::npos ? std::string_view() : s.substr(slash + 1);
      if (part.empty() || part == ".") {
        continue;
      }
      if (part == "..") {
        if (parts.empty()) {
          return false;
        }
        parts.pop_back();
        continue;
      }
      parts.push_back(part);
    }
    return true;
  };
  if ((!from_top && !take(dir)) || !take(word) || parts.empty()) {
    return std::nullopt;
  }
  for (std::string_view part : parts) {
    if (!rel.empty()) {
      rel += '/';
    }
    rel += part;
  }
  return rel;
}

} // namespace ws::filters
