// One-sided patches in libgit2's own format (diff_print.c): header, index line with 7-digit
// abbreviated ids, one hunk of every line, git's "\ No newline at end of file".
#include "gitbridge/one_sided_patch.hpp"

#include "gitbridge/git_handles.hpp"

#include <cstdio>
#include <cstring>

namespace ws::gitbridge {

namespace {

constexpr size_t k_max_size = 1 << 20; // larger files go through libgit2 as before

/// libgit2 takes content for binary when it holds a NUL, starts with a UTF-16/32 byte-order
/// mark, or has more than one control character per 128 printable ones (git_str_is_binary).
/// Content without any NUL, BOM-like start or such control character is text for sure.
bool surely_text(const std::string& s) {
  if (s.empty() || s.size() > k_max_size) {
    return false;
  }
  auto first = static_cast<unsigned char>(s[0]);
  if (first == 0xFE || first == 0xFF) {
    return false;
  }
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20) {
      // Tab, newline, vertical tab, form feed, carriage return, backspace and escape are
      // what git counts as text among the control characters.
      if (c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != '\b' && c != 0x1b) {
        return false;
      }
    } else if (c == 0x7f) {
      return false;
    }
  }
  return true;
}

/// A name git prints as it is: printable ASCII, no space, quote or backslash.
bool plain_name(const std::string& path) {
  if (path.empty()) {
    return false;
  }
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      return false;
    }
  }
  return true;
}

std::string abbreviated_id(const std::string& content) {
  git_oid oid;
  git_check(git_odb_hash(&oid, content.data(), content.size(), GIT_OBJECT_BLOB), "hash a blob");
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, 8, &oid); // 7 digits, libgit2's default abbreviation
  return hex;
}

} // namespace

bool formats_one_sided(const FilePair& pair) {
  if (pair.before.present() == pair.after.present() || pair.old_path != pair.new_path) {
    return false;
  }
  const BlobSide& side = pair.after.present() ? pair.after : pair.before;
  return (side.mode == GitMode::File || side.mode == GitMode::Executable ||
          side.mode == GitMode::Symlink) &&
         plain_name(pair.new_path) && surely_text(side.content);
}

std::string one_sided_patch(const FilePair& pair, size_t& lines) {
  const bool added = pair.after.present();
  const BlobSide& side = added ? pair.after : pair.before;
  const std::string& path = pair.new_path;
  const std::string& text = side.content;
  lines = 0;
  for (char c : text) {
    lines += c == '\n';
  }
  const bool eofnl = text.back() == '\n';
  lines += eofnl ? 0 : 1;

  char mode[16];
  std::snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(side.mode));
  std::string id = abbreviated_id(text);
  std::string count = lines == 1 ? std::string() : "," + std::to_string(lines);
  std::string out;
  out.reserve(text.size() + lines + 2 * path.size() + 160);
  out += "diff --git a/" + path + " b/" + path + "\n";
  if (added) {
    out += std::string("new file mode ") + mode + "\nindex 0000000.." + id + "\n";
    out += "--- /dev/null\n+++ b/" + path + "\n@@ -0,0 +1" + count + " @@\n";
  } else {
    out += std::string("deleted file mode ") + mode + "\nindex " + id + "..0000000\n";
    out += "--- a/" + path + "\n+++ /dev/null\n@@ -1" + count + " +0,0 @@\n";
  }
  const char sign = added ? '+' : '-';
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    out += sign;
    if (end == std::string::npos) {
      out.append(text, start, std::string::npos);
      out += "\n\\ No newline at end of file\n";
      break;
    }
    out.append(text, start, end + 1 - start);
    start = end + 1;
  }
  return out;
}

} // namespace ws::gitbridge
