// What the proxy records and how the end of a session explains it (proxy_event.hpp).
#include "src/network/proxy_event.hpp"

#include <algorithm>

namespace ws::network {

std::string ProxyEvent::target() const {
  if (host.empty()) {
    return "?";
  }
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return port == 0 ? h : h + ":" + std::to_string(port);
}

const char* journal_op(Outcome outcome) {
  switch (outcome) {
  case Outcome::Allowed:
    return "connect";
  case Outcome::Unreachable:
    return "unreachable";
  case Outcome::DirectLookup:
    return "lookup";
  default:
    return "refuse";
  }
}

std::string refusal_reason(Outcome outcome, const ProxyPolicy& policy) {
  std::string list = "--network=allow:" + policy.allow.text();
  switch (outcome) {
  case Outcome::NotListed:
    return policy.allow.entries().empty() ? "--network=allow: lists no host" : "not in " + list;
  case Outcome::PortNotListed:
    return "port not in " + list + " (a host without :PORT is 443 and 80)";
  case Outcome::IpLiteral:
    return "an IP address not in " + list;
  case Outcome::NetworkOff:
    return "the network is off (--network=off)";
  case Outcome::DirectLookup:
    return policy.off ? "the network is off (--network=off)"
                      : "looked up directly: only ws's proxy (HTTPS_PROXY) reaches out";
  default:
    return "";
  }
}

std::string allowing_flag(const std::string& host, uint16_t port, const ProxyPolicy& policy) {
  Target t;
  t.host = host;
  t.port = port == 0 ? 443 : port;
  std::string entry = entry_allowing(t);
  std::string list = policy.off ? "" : policy.allow.text();
  return "--network=allow:" + (list.empty() ? "" : list + ",") + entry;
}

void EventTally::add(const ProxyEvent& e) {
  if (e.outcome == Outcome::Allowed) {
    ++m_allowed;
    return;
  }
  std::string key = std::to_string(static_cast<int>(e.outcome)) + " " + e.target() +
                    (e.host.empty() || e.outcome == Outcome::Unreachable ? " " + e.detail : "");
  auto it = m_index.find(key);
  if (it != m_index.end()) {
    ++m_groups[it->second].count;
  } else if (m_groups.size() < k_max_groups) {
    m_index.emplace(key, m_groups.size());
    m_groups.push_back({e, 1});
  } else {
    ++m_others;
  }
}

std::vector<std::string> network_summary(const EventTally& tally, const ProxyPolicy& policy,
                                         size_t max_hosts) {
  std::vector<std::string> lines;
  std::vector<std::string> would_allow; // entries the list lacks, for the one flag at the end
  size_t shown = 0;
  for (const auto& g : tally.groups()) {
    const ProxyEvent& e = g.first;
    std::string times = g.count > 1 ? " (" + std::to_string(g.count) + "x)" : "";
    std::string flag;
    bool listable = e.outcome == Outcome::NotListed || e.outcome == Outcome::PortNotListed ||
                    e.outcome == Outcome::IpLiteral || e.outcome == Outcome::NetworkOff ||
                    (e.outcome == Outcome::DirectLookup && policy.off);
    if (listable && !e.host.empty()) {
      flag = allowing_flag(e.host, e.port, policy);
      Target t;
      t.host = e.host;
      t.port = e.port == 0 ? 443 : e.port;
      std::string entry = entry_allowing(t);
      if (std::find(would_allow.begin(), would_allow.end(), entry) == would_allow.end()) {
        would_allow.push_back(entry);
      }
    }
    if (shown++ >= max_hosts) {
      continue;
    }
    std::string line;
    switch (e.outcome) {
    case Outcome::Unreachable:
      line = "could not reach " + e.target() + times + ": " + e.detail;
      break;
    case Outcome::DirectLookup:
      line = policy.off ? "the network was off (--network=off): the agent looked up " + e.host +
                              times + "; allow it with " + flag + " (through HTTPS_PROXY)"
                        : "the agent looked up " + e.host + times +
                              " itself, not through ws's proxy: only requests through "
                              "HTTPS_PROXY/HTTP_PROXY leave (a client that ignores them "
                              "reaches nothing)";
      break;
    case Outcome::NetworkOff:
      line = "the network was off (--network=off): the agent tried " + e.target() + times +
             "; allow it with " + flag;
      break;
    case Outcome::TooMany:
    case Outcome::BadRequest:
      line = "refused " + (e.host.empty() ? std::string("a request") : e.target()) + times + ": " +
             e.detail;
      break;
    case Outcome::NonPublic:
      line = "refused " + e.target() + times + ": " + e.detail;
      break;
    default:
      line = "refused connection: " + e.target() + times + ": " + e.detail +
             (flag.empty() ? "" : "; allow it with " + flag);
      break;
    }
    lines.push_back(line);
  }
  if (shown > max_hosts || tally.others() > 0) {
    size_t more = (shown > max_hosts ? shown - max_hosts : 0) + tally.others();
    lines.push_back("... and " + std::to_string(more) + " more (ws log shows each request)");
  }
  if (would_allow.size() > 1 && would_allow.size() <= max_hosts) {
    std::string list = policy.off ? "" : policy.allow.text();
    for (const auto& e : would_allow) {
      list += (list.empty() ? "" : ",") + e;
    }
    lines.push_back("to allow all of them: --network=allow:" + list);
  }
  return lines;
}

} // namespace ws::network
