// ws::parse_yaml and ws::parse_jsonc: the person's tool configs as data, bounded against a
// file built to exhaust the reader (self_run_configs.cpp reads them at every transfer).
#include "src/transfer/config_text.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("parse_yaml reads what pre-commit and lefthook write, every scalar a string") {
  auto doc = ws::parse_yaml("# comment\nrepos:\n- repo: local\n  hooks:\n"
                            "  - {id: a, entry: python3 tools/a.py, stages: [pre-push]}\n"
                            "pre-commit:\n  parallel: true\n  commands:\n    lint:\n"
                            "      run: >\n        sh ./tools/y.sh\n");
  REQUIRE(doc);
  CHECK((*doc)["repos"][0]["hooks"][0]["entry"] == "python3 tools/a.py");
  CHECK((*doc)["repos"][0]["hooks"][0]["stages"][0] == "pre-push");
  CHECK((*doc)["pre-commit"]["parallel"] == "true");
  CHECK((*doc)["pre-commit"]["commands"]["lint"]["run"] == "sh ./tools/y.sh\n");
  // Anchors and aliases resolve as YAML says.
  auto aliased = ws::parse_yaml("base: &b {run: sh tools/b.sh}\nother: *b\n");
  REQUIRE(aliased);
  CHECK((*aliased)["other"]["run"] == "sh tools/b.sh");
  CHECK(!ws::parse_yaml("a: [unclosed\n"));
  CHECK(!ws::parse_yaml(""));
}

TEST_CASE("parse_yaml stops a billion laughs and a deep nest early") {
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev + ", " + prev +
              ", " + prev + ", " + prev + ", " + prev + ", " + prev + ", " + prev + ", " + prev +
              ", " + prev + ", " + prev + "]\n";
  }
  CHECK(!ws::parse_yaml(laughs)); // 10^10 nodes expanded: refused at 100,000
  CHECK(!ws::parse_yaml(std::string(200, '[') + std::string(200, ']')));
}

TEST_CASE("parse_jsonc takes VS Code's comments and trailing commas, and keeps strings whole") {
  auto doc = ws::parse_jsonc("{\n  // a comment\n  \"url\": \"http://x/*y*/\", /* more */\n"
                             "  \"tasks\": [ {\"label\": \"a\",}, ],\n}\n");
  REQUIRE(doc);
  CHECK((*doc)["url"] == "http://x/*y*/");
  CHECK((*doc)["tasks"][0]["label"] == "a");
  CHECK(ws::parse_jsonc("{\"s\": \"a, }\"}")->at("s") == "a, }");
  CHECK(!ws::parse_jsonc("{\"a\": }"));
}
