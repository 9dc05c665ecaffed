#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::network {

/// Where a client of the proxy asked to go, by the name it asked for: a host name (lowercase,
/// no trailing dot) or an IP literal (IPv6 without brackets), and a port.
struct Target {
  std::string host;
  uint16_t port = 0;
  bool is_ip = false;
  /// "host:port" ("[v6]:port"), as the journal and the summary name it.
  std::string text() const;
};

/// Parses an authority (`host:port`, `[v6]:port`, `host` with `default_port`; no userinfo)
/// as a client wrote it in a CONNECT line, a URL or a Host header. A host name must be one
/// (letters, digits, '-', '_', dots; its last label not all digits), an IP literal must be
/// canonical (no "127.1", "0x7f.1", "2130706433": those are refused as neither); nullopt if
/// the text is neither. Names are lowercased and lose a trailing dot.
std::optional<Target> parse_authority(std::string_view text, std::optional<uint16_t> default_port);

/// Why the allowlist says no.
enum class Refusal {
  NotListed,     ///< no entry names the host
  PortNotListed, ///< an entry names the host, for other ports
  IpLiteral,     ///< an IP address that no entry names
};

/// `--network=allow:ENTRY,...`: which destinations the agent may reach through the proxy.
/// An entry is an exact host name (`api.example.com`), every name below a domain
/// (`*.example.com`: `a.example.com`, `a.b.example.com`, not `example.com` itself), or an IP
/// literal (`203.0.113.7`, `[2001:db8::1]`); with `:PORT` it allows that port, without it
/// 443 and 80. Matching is on the name the client asked for, never on where it resolves.
/// Pure: no I/O.
class Allowlist {
public:
  struct Entry {
    std::string host;      ///< the name, the domain below "*.", or the canonical IP
    bool wildcard = false; ///< "*.host"
    bool is_ip = false;
    std::optional<uint16_t> port; ///< none: 443 and 80
    std::string text() const;     ///< as the person would write it
  };
  struct Decision {
    bool allowed = false;
    Refusal why = Refusal::NotListed;
    const Entry* by = nullptr; ///< the entry that allowed it
  };

  /// The comma-separated `list` after "allow:" (may be empty: nothing is allowed). Throws
  /// ws::Error naming the bad entry, with a hint.
  static Allowlist parse(std::string_view list);

  Decision decide(const Target& target) const;
  const std::vector<Entry>& entries() const { return m_entries; }
  /// The entries, comma-separated, as `--network=allow:` takes them.
  std::string text() const;

private:
  std::vector<Entry> m_entries;
};

/// The entry that would allow `target`: "host" for 443/80, "host:port" otherwise.
std::string entry_allowing(const Target& target);

} // namespace ws::network
