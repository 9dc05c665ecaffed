// The proxy's request parsing: what it passes, what it refuses, where a body ends. Pure; the
// proxy is tested for real in tests/integration/test_run_network.cpp.
#include "src/network/http_request.hpp"

#include <doctest/doctest.h>

using namespace ws::network;

namespace {

HeadParse parse(const std::string& text) {
  return parse_request_head(text);
}

/// The request `text` means, or its refusal's status.
std::variant<ProxyRequest, BadRequest> interpret(const std::string& text) {
  HeadParse p = parse(text);
  REQUIRE_MESSAGE(p.state == HeadParse::State::Complete, text, " ", p.why);
  return interpret_request(p.head);
}

int refusal(const std::string& text) {
  auto r = interpret(text);
  return std::holds_alternative<BadRequest>(r) ? std::get<BadRequest>(r).status : 0;
}

ProxyRequest request(const std::string& text) {
  auto r = interpret(text);
  REQUIRE_MESSAGE(std::holds_alternative<ProxyRequest>(r), text,
                  std::holds_alternative<BadRequest>(r) ? std::get<BadRequest>(r).why : "");
  return std::get<ProxyRequest>(r);
}

/// Feeds `body` to `b` in pieces of `step` bytes: how many bytes it took in all.
size_t feed(RequestBody& b, const std::string& body, size_t step) {
  size_t taken = 0;
  for (size_t at = 0; at < body.size() && !b.done() && !b.failed(); at += step) {
    size_t n = std::min(step, body.size() - at);
    size_t k = b.take(body.data() + at, n);
    taken += k;
    if (k < n) {
      break;
    }
  }
  return taken;
}

} // namespace

TEST_CASE("network::parse_request_head: complete, incomplete, bounded, strict") {
  HeadParse p = parse("CONNECT api.x.test:443 HTTP/1.1\r\nHost: api.x.test:443\r\n\r\nTLS");
  REQUIRE(p.state == HeadParse::State::Complete);
  CHECK(p.length ==
        std::string("CONNECT api.x.test:443 HTTP/1.1\r\nHost: api.x.test:443\r\n\r\n").size());
  CHECK(p.head.method == "CONNECT");
  CHECK(p.head.values("HOST") == std::vector<std::string>{"api.x.test:443"});
  CHECK(parse("CONNECT a.test:443 HTTP/1.1\r\nHost: a").state == HeadParse::State::Incomplete);
  CHECK(parse("GET http://a.test/ HTTP/1.1\nHost: a.test\n\n").state == HeadParse::State::Complete);
  // A head that never ends is refused once it reaches the bound (a slow or hostile client
  // holds at most that much).
  std::string huge = "GET http://a.test/ HTTP/1.1\r\nX: " + std::string(k_max_head, 'a');
  CHECK(parse(huge).state == HeadParse::State::Invalid);
  CHECK(parse(huge).status == 431);
  std::string many = "GET http://a.test/ HTTP/1.1\r\n";
  for (size_t i = 0; i <= k_max_fields; ++i) {
    many += "X" + std::to_string(i) + ": 1\r\n";
  }
  CHECK(parse(many + "\r\n").status == 431);
  for (const char* bad :
       {"GET http://a.test/ HTTP/1.1\r\n Folded: x\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\nBad Name: x\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\nName : x\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\nX: a\rb\r\n\r\n", "GET http://a.test/  HTTP/1.1\r\n\r\n",
        "GET http://a.test/ HTTP/1.1 x\r\n\r\n", "G\x01T http://a.test/ HTTP/1.1\r\n\r\n",
        "GET http://a.test/ FTP/1.0\r\n\r\n"}) {
    CHECK_MESSAGE(parse(bad).state == HeadParse::State::Invalid, bad);
  }
  const char nul[] = "GET http://a.test/ HTTP/1.1\r\nX: a\0b\r\n\r\n";
  CHECK(parse(std::string(nul, sizeof nul - 1)).state == HeadParse::State::Invalid);
  CHECK(parse("GET http://a.test/ HTTP/2.0\r\n\r\n").status == 505);
}

TEST_CASE("network::interpret_request: CONNECT tunnels to its target, the Host field must agree") {
  ProxyRequest r = request("CONNECT API.x.test:443 HTTP/1.1\r\nHost: api.x.test:443\r\n\r\n");
  CHECK(r.kind == ProxyRequest::Kind::Tunnel);
  CHECK(r.target.text() == "api.x.test:443");
  CHECK(request("CONNECT [::1]:22 HTTP/1.1\r\n\r\n").target.is_ip);
  CHECK(refusal("CONNECT allowed.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n") == 400);
  CHECK(refusal("CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:8443\r\n\r\n") == 400);
  CHECK(refusal("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\r\nHost: a.test\r\n\r\n") == 400);
  CHECK(refusal("CONNECT a.test HTTP/1.1\r\n\r\n") == 400);
  CHECK(refusal("CONNECT http://a.test/ HTTP/1.1\r\n\r\n") == 400);
  CHECK(refusal("CONNECT 127.1:22 HTTP/1.1\r\n\r\n") == 400);
}

TEST_CASE("network::interpret_request: an http:// request is forwarded once, origin-form, "
          "Connection: close") {
  ProxyRequest r = request("POST http://API.x.test:8080/v1/m?q=1#frag HTTP/1.1\r\n"
                           "Host: api.x.test:8080\r\nProxy-Authorization: Basic eA==\r\n"
                           "Connection: keep-alive, X-Secret\r\nX-Secret: s\r\n"
                           "Proxy-Connection: keep-alive\r\nContent-Length: 5\r\n"
                           "Accept: */*\r\n\r\n");
  CHECK(r.kind == ProxyRequest::Kind::Forward);
  CHECK(r.target.text() == "api.x.test:8080");
  CHECK(r.forward_head == "POST /v1/m?q=1 HTTP/1.1\r\nHost: api.x.test:8080\r\n"
                          "Content-Length: 5\r\nAccept: */*\r\nConnection: close\r\n\r\n");
  CHECK(request("GET http://a.test HTTP/1.0\r\n\r\n").forward_head ==
        "GET / HTTP/1.0\r\nHost: a.test\r\nConnection: close\r\n\r\n");
  CHECK(request("GET http://a.test?x HTTP/1.1\r\nHost: A.TEST:80\r\n\r\n").forward_head ==
        "GET /?x HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
  // The Host field must name the URL's host: a server on an allowed host's address could
  // route by it to one that is not allowed.
  CHECK(refusal("GET http://allowed.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n") == 400);
  CHECK(refusal("GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test:81\r\n\r\n") == 400);
  CHECK(refusal("GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n") == 400);
  CHECK(refusal("GET https://allowed.test/ HTTP/1.1\r\n\r\n") == 400);
  CHECK(refusal("GET http://user:pw@allowed.test/ HTTP/1.1\r\n\r\n") == 400);
  CHECK(refusal("GET ftp://allowed.test/ HTTP/1.1\r\n\r\n") == 400);
  // One way to know where the body ends, or none at all.
  CHECK(refusal("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: "
                "chunked\r\n\r\n") == 400);
  CHECK(refusal("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n"
                "\r\n") == 400);
  CHECK(refusal("POST http://a.test/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == 400);
  CHECK(refusal("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == 501);
  CHECK(request("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\n").body.done() ==
        false);
}

TEST_CASE("network::RequestBody: where a body ends, whatever pieces it comes in") {
  for (size_t step : {size_t{1}, size_t{3}, size_t{1000}}) {
    CAPTURE(step);
    RequestBody none = RequestBody::none();
    CHECK(none.done());
    CHECK(none.take("GET", 3) == 0);

    RequestBody len = RequestBody::length(5);
    CHECK(feed(len, "helloGET http://evil.test/ HTTP/1.1\r\n\r\n", step) == 5);
    CHECK(len.done());

    std::string chunked =
        "5\r\nhello\r\n1a;ext=1\r\n" + std::string(26, 'x') + "\r\n0\r\nTrailer: t\r\n\r\n";
    RequestBody c = RequestBody::chunked();
    CHECK(feed(c, chunked + "GET http://evil.test/ HTTP/1.1\r\n\r\n", step) == chunked.size());
    CHECK(c.done());

    RequestBody plain_end = RequestBody::chunked();
    CHECK(feed(plain_end, "0\r\n\r\nmore", step) == 5);
    CHECK(plain_end.done());
  }
  for (const char* bad : {"x\r\n", "5\r\nhelloXY", "5\nhello\r\n", "0\r\n\n", "\r\n",
                          "10000000000000000\r\n", "5;a\nb\r\n"}) {
    RequestBody b = RequestBody::chunked();
    feed(b, bad, 1);
    CHECK_MESSAGE(b.failed(), bad);
  }
}
