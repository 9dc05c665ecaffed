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

/// A JSON string literal. Bytes that are not valid UTF-8 become \udcXX (Python's
/// surrogateescape), so any file name round-trips.
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
