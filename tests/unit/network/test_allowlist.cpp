// The pure parts of --network=allow: the allowlist, target names, the option, and where the
// proxy may connect. The proxy itself is tested for real in
// tests/integration/test_run_network.cpp.
#include "src/cli/error.hpp"
#include "src/network/allowlist.hpp"
#include "src/network/destination.hpp"
#include "src/network/network_option.hpp"

#include <doctest/doctest.h>

using namespace ws;
using namespace ws::network;

namespace {

Target target(const std::string& authority) {
  std::optional<Target> t = parse_authority(authority, std::nullopt);
  REQUIRE_MESSAGE(t, authority);
  return *t;
}

bool allows(const Allowlist& a, const std::string& authority) {
  return a.decide(target(authority)).allowed;
}

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("network::parse_authority takes names and canonical IP literals, nothing else") {
  CHECK(target("API.Example.COM.:443").host == "api.example.com");
  CHECK(target("api.example.com:443").port == 443);
  CHECK(target("[2001:DB8::1]:8443").host == "2001:db8::1");
  CHECK(target("[2001:DB8::1]:8443").is_ip);
  CHECK(target("203.0.113.7:80").is_ip);
  CHECK(target("203.0.113.7:80").text() == "203.0.113.7:80");
  CHECK(target("[::1]:80").text() == "[::1]:80");
  CHECK(parse_authority("example.com", uint16_t{80})->port == 80);
  // Addresses in disguise: getaddrinfo would take each for 127.0.0.1.
  for (const char* bad : {"127.1:80", "2130706433:80", "0x7f.1:80", "0x7f000001:80",
                          "017700000001:80", "127.0.0.01:80", "a.0x7f:80"}) {
    CHECK_MESSAGE(!parse_authority(bad, std::nullopt), bad);
  }
  for (const char* bad :
       {"", "example.com", "example.com:", "example.com:0", "example.com:65536", ":443",
        "exa mple.com:443", "example..com:443", "-a.com:443", "user@example.com:443", "::1:443",
        "[::1:443", "[nothost]:443", "a.com:443:1", "a.com:+443", "é.com:443"}) {
    CHECK_MESSAGE(!parse_authority(bad, std::nullopt), bad);
  }
  CHECK(!parse_authority(std::string(300, 'a') + ".com:443", std::nullopt));
}

TEST_CASE("network::Allowlist matches exact names, *.domain below it, ports 443/80 unless "
          "listed") {
  Allowlist a = Allowlist::parse("api.example.com, *.fake.test,svc.test:8443,203.0.113.7,"
                                 "[2001:db8::1]:8080");
  CHECK(allows(a, "api.example.com:443"));
  CHECK(allows(a, "API.EXAMPLE.COM.:80"));
  CHECK_FALSE(allows(a, "api.example.com:22"));
  CHECK(a.decide(target("api.example.com:22")).why == Refusal::PortNotListed);
  CHECK_FALSE(allows(a, "example.com:443"));
  CHECK_FALSE(allows(a, "xapi.example.com:443"));
  CHECK_FALSE(allows(a, "api.example.com.evil.test:443"));
  CHECK(a.decide(target("evil.test:443")).why == Refusal::NotListed);
  // *.fake.test: every name below, at any depth, never fake.test itself nor a look-alike.
  CHECK(allows(a, "a.fake.test:443"));
  CHECK(allows(a, "a.b.fake.test:443"));
  CHECK_FALSE(allows(a, "fake.test:443"));
  CHECK_FALSE(allows(a, "afake.test:443"));
  // host:port allows that port only.
  CHECK(allows(a, "svc.test:8443"));
  CHECK_FALSE(allows(a, "svc.test:443"));
  // IP literals: only as listed.
  CHECK(allows(a, "203.0.113.7:443"));
  CHECK_FALSE(allows(a, "203.0.113.8:443"));
  CHECK(a.decide(target("127.0.0.1:22")).why == Refusal::IpLiteral);
  CHECK(allows(a, "[2001:db8:0::1]:8080"));
  CHECK_FALSE(allows(a, "[2001:db8::1]:443"));
  CHECK(a.text() == "api.example.com,*.fake.test,svc.test:8443,203.0.113.7,[2001:db8::1]:8080");
  // An empty list allows nothing.
  CHECK_FALSE(allows(Allowlist::parse(""), "api.example.com:443"));
}

TEST_CASE("network::entry_allowing says what to add to the list") {
  CHECK(entry_allowing(target("api.evil.test:443")) == "api.evil.test");
  CHECK(entry_allowing(target("api.evil.test:8080")) == "api.evil.test:8080");
  CHECK(entry_allowing(target("[::1]:22")) == "[::1]:22");
}

TEST_CASE("network::parse_network_option takes on, off, host and allow:LIST") {
  CHECK(parse_network_option("on").mode == NetworkMode::On);
  CHECK(parse_network_option("").mode == NetworkMode::On);
  CHECK(parse_network_option("off").proxied());
  CHECK(parse_network_option("host").mode == NetworkMode::Host);
  NetworkChoice c = parse_network_option("allow:api.a.test,*.b.test");
  CHECK(c.mode == NetworkMode::Allow);
  CHECK(c.flag() == "--network=allow:api.a.test,*.b.test");
  CHECK(parse_network_option("allow:").allow.entries().empty());
  CHECK(error_of([] { parse_network_option("yes"); }).find("not a network mode") !=
        std::string::npos);
  CHECK(error_of([] { parse_network_option("allow:*.1.2.3.4"); }).find("'*.1.2.3.4'") !=
        std::string::npos);
  CHECK(error_of([] { parse_network_option("allow:a.test,bad host"); }).find("'bad host'") !=
        std::string::npos);
  CHECK(error_of([] { parse_network_option("allow:*"); }) != "");
}

TEST_CASE("network::non_public_kind: the host's and the LAN's addresses are not public") {
  auto kind = [](const std::string& ip) { return non_public_kind(address_of(ip, 443)); };
  CHECK(kind("127.0.0.1") == "loopback");
  CHECK(kind("127.255.1.2") == "loopback");
  CHECK(kind("0.0.0.0") == "unspecified");
  CHECK(kind("10.1.2.3") == "private");
  CHECK(kind("172.16.0.1") == "private");
  CHECK(kind("172.31.255.255") == "private");
  CHECK(kind("172.32.0.1") == "");
  CHECK(kind("192.168.1.1") == "private");
  CHECK(kind("169.254.169.254") == "link-local");
  CHECK(kind("100.64.0.1") == "shared (CGNAT)");
  CHECK(kind("224.0.0.1") == "multicast");
  CHECK(kind("255.255.255.255") == "reserved");
  CHECK(kind("93.184.216.34") == "");
  CHECK(kind("::1") == "loopback");
  CHECK(kind("::") == "unspecified");
  CHECK(kind("::ffff:127.0.0.1") == "loopback");
  CHECK(kind("::ffff:10.0.0.1") == "private");
  CHECK(kind("::ffff:93.184.216.34") == "");
  CHECK(kind("::127.0.0.1") == "loopback");
  CHECK(kind("64:ff9b::7f00:1") == "loopback");
  CHECK(kind("2002:7f00:1::") == "loopback");
  CHECK(kind("fd00::1") == "private");
  CHECK(kind("fe80::1") == "link-local");
  CHECK(kind("ff02::1") == "multicast");
  CHECK(kind("2606:4700::1111") == "");
}

TEST_CASE("network::ResolveOverride maps the person's names, nothing else") {
  ResolveOverride o = ResolveOverride::parse("api.fake.test=127.0.0.1,api.fake.test=[::1] "
                                             "Other.Test=10.0.0.2");
  auto a = o.lookup("api.fake.test", 443);
  REQUIRE(a.size() == 2);
  CHECK(a[0].text() == "127.0.0.1");
  CHECK(a[1].text() == "::1");
  CHECK(o.lookup("other.test", 80).size() == 1);
  CHECK(o.lookup("else.test", 80).empty());
  CHECK(error_of([] { ResolveOverride::parse("api.fake.test"); }).find("NAME=ADDRESS") !=
        std::string::npos);
  CHECK(error_of([] { ResolveOverride::parse("api.fake.test=localhost"); }) != "");
  CHECK(error_of([] { ResolveOverride::parse("1.2.3.4=127.0.0.1"); }) != "");
}
