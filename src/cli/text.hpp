#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ws {

/// A path as git shows it (core.quotePath): plain if it is printable ASCII, else in double
/// quotes with C escapes and octal bytes, so newlines and non-UTF-8 names stay readable
/// and one path stays on one line.
std::string quote_path(std::string_view path);

/// Text an agent chose (a process name, an xattr name, a line of a file, a message holding
/// any of these) made safe to print on a terminal, visibly: C0 controls and DEL as C escapes
/// (`\e`, `\r`, `\x01`), bytes that are not valid UTF-8 as `\xNN` (a lone 0x9b is CSI on
/// 8-bit terminals), and C1 controls, bidi controls (Trojan Source) and invisible
/// separators as `<U+202E>`. Printable UTF-8 and backslashes stay as they are, so text
/// escaped once (quote_path) passes unchanged. `content`: tabs and newlines stay, for file
/// content shown line by line; otherwise they are escaped too and the result is one line.
std::string visible_text(std::string_view s, bool content = false);

/// A JSON string literal. Bytes that are not valid UTF-8 become \udcXX (Python's
/// surrogateescape), so any file name round-trips; controls, DEL, and the code points
/// visible_text marks are \u escapes, so the literal is inert on a terminal too.
std::string json_string(std::string_view s);

/// "2026-11-22 10:30:05.123" in local time.
std::string format_time(int64_t ns);

/// Parses --since: "30s", "10m", "2h", "3d", "YYYY-MM-DD[ HH:MM[:SS]]" (local), or "@EPOCH".
/// Returns nanoseconds since the epoch, or nullopt.
std::optional<int64_t> parse_since(std::string_view text, int64_t now_ns);

/// Journal write ranges for people: "0-4096,8192-8200" stays as it is; more than three
/// ranges read as "15 ranges, 12.3 KiB in 0-16048" (--json keeps every range).
std::string summarize_ranges(const std::string& detail);

} // namespace ws
