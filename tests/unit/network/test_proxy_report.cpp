// What the proxy records and how the end of a session explains it; the DNS questions it
// reads. Pure; the proxy itself is tested for real in tests/integration/test_run_network.cpp.
#include "src/network/dns_query.hpp"
#include "src/network/proxy_event.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace ws::network;

namespace {

ProxyEvent event(Outcome o, const std::string& host, uint16_t port, const std::string& detail) {
  ProxyEvent e;
  e.outcome = o;
  e.host = host;
  e.port = port;
  e.method = "CONNECT";
  e.detail = detail;
  return e;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += l + "\n";
  }
  return out;
}

/// A query for `name` (type A) as a stub resolver sends it.
std::string query(const std::string& name) {
  std::string q("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00", 12);
  size_t start = 0;
  while (start <= name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) {
      dot = name.size();
    }
    q += static_cast<char>(dot - start);
    q += name.substr(start, dot - start);
    start = dot + 1;
  }
  q += std::string("\x00\x00\x01\x00\x01", 5);
  return q;
}

} // namespace

TEST_CASE("network::network_summary groups refusals by host and says which flag allows them") {
  ProxyPolicy p;
  p.allow = Allowlist::parse("api.fake-model.test");
  EventTally t;
  std::string why = refusal_reason(Outcome::NotListed, p);
  CHECK(why == "not in --network=allow:api.fake-model.test");
  for (int i = 0; i < 3; ++i) {
    t.add(event(Outcome::NotListed, "api.evil.test", 443, why));
  }
  t.add(event(Outcome::Allowed, "api.fake-model.test", 443, "via 127.0.0.1"));
  t.add(event(Outcome::PortNotListed, "api.fake-model.test", 8080,
              refusal_reason(Outcome::PortNotListed, p)));
  t.add(event(Outcome::NonPublic, "localhost", 443, "localhost resolves to 127.0.0.1 (loopback)"));
  std::string s = joined(network_summary(t, p));
  INFO(s);
  CHECK(t.allowed() == 1);
  CHECK(s.find("refused connection: api.evil.test:443 (3x): not in "
               "--network=allow:api.fake-model.test; allow it with "
               "--network=allow:api.fake-model.test,api.evil.test\n") != std::string::npos);
  CHECK(s.find("allow it with --network=allow:api.fake-model.test,api.fake-model.test:8080") !=
        std::string::npos);
  CHECK(s.find("refused localhost:443: localhost resolves to 127.0.0.1") != std::string::npos);
  CHECK(s.find("to allow all of them: --network=allow:api.fake-model.test,api.evil.test,"
               "api.fake-model.test:8080") != std::string::npos);
  CHECK(network_summary(EventTally{}, p).empty());
}

TEST_CASE("network::network_summary with the network off says so, and what would allow it") {
  ProxyPolicy p;
  p.off = true;
  EventTally t;
  t.add(
      event(Outcome::NetworkOff, "api.anthropic.com", 443, refusal_reason(Outcome::NetworkOff, p)));
  t.add(
      event(Outcome::NetworkOff, "api.anthropic.com", 443, refusal_reason(Outcome::NetworkOff, p)));
  ProxyEvent lookup = event(Outcome::DirectLookup, "chatgpt.com", 0, "");
  lookup.method = "DNS";
  t.add(lookup);
  std::string s = joined(network_summary(t, p));
  INFO(s);
  CHECK(s.find("the network was off (--network=off): the agent tried api.anthropic.com:443 (2x); "
               "allow it with --network=allow:api.anthropic.com\n") != std::string::npos);
  CHECK(s.find("the agent looked up chatgpt.com; allow it with --network=allow:chatgpt.com") !=
        std::string::npos);
}

TEST_CASE("network::EventTally stays bounded whatever the agent tries") {
  ProxyPolicy p;
  EventTally t;
  for (size_t i = 0; i < EventTally::k_max_groups + 500; ++i) {
    t.add(event(Outcome::NotListed, "h" + std::to_string(i) + ".test", 443, "x"));
  }
  CHECK(t.groups().size() == EventTally::k_max_groups);
  CHECK(t.others() == 500);
  std::vector<std::string> lines = network_summary(t, p, 8);
  CHECK(lines.size() == 9); // 8 hosts, "... and N more"; no flag a screen long
  CHECK(lines[8] == "... and " + std::to_string(EventTally::k_max_groups - 8 + 500) +
                        " more (ws log shows each request)");
}

TEST_CASE("network::parse_dns_query reads the name asked for, refuses it") {
  std::string q = query("API.Anthropic.com");
  std::optional<DnsQuestion> d = parse_dns_query(q);
  REQUIRE(d);
  CHECK(d->name == "api.anthropic.com");
  CHECK(d->type == 1);
  std::string r = dns_refused(q, *d);
  CHECK(r.size() == q.size());
  CHECK(r[0] == '\x12');
  CHECK(static_cast<uint8_t>(r[2]) == 0x81);       // QR, RD
  CHECK((static_cast<uint8_t>(r[3]) & 0x0f) == 5); // REFUSED
  CHECK(parse_dns_query(query("a\x01"
                              "b.test"))
            ->name == "a\\001b.test");
  // Not a query: a response, truncated, compressed, too long.
  std::string response = q;
  response[2] = static_cast<char>(0x81);
  CHECK(!parse_dns_query(response));
  CHECK(!parse_dns_query(q.substr(0, q.size() - 3)));
  std::string compressed = q.substr(0, 12) + std::string("\xc0\x0c\x00\x01\x00\x01", 6);
  CHECK(!parse_dns_query(compressed));
  CHECK(!parse_dns_query(query(std::string(64, 'a') + ".test")));
  CHECK(!parse_dns_query("short"));
}
