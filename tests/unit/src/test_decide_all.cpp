// Verdicts decided many at a time, on two threads, are each path's own verdict, in order.
#include "src/transfer/decide_all.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>
#include <vector>

using namespace ws;

TEST_CASE("decide_all gives, in order, the verdict decide gives each path") {
  const std::vector<std::string> names = {"src/main.c",         "node_modules/x/index.js",
                                          "Makefile",           "tools/.envrc",
                                          ".git/hooks/x",       "a/b/c/setup.py",
                                          "docs/readme.md",     "sitecustomize.py",
                                          ".vscode/tasks.json", "lib/x.pth"};
  filters::PolicyConfig config;
  config.withhold = {"*.secret"};
  std::vector<filters::PathFacts> facts;
  for (size_t i = 0; i < 9000; ++i) { // above the two-thread threshold
    filters::PathFacts f;
    f.type = i % 7 == 0 ? filters::ChangeType::Deleted : filters::ChangeType::Added;
    f.path = i % 13 == 0 ? "k/" + std::to_string(i) + ".secret" : names[i % names.size()];
    f.mode =
        f.type == filters::ChangeType::Deleted ? 0 : (i % 5 == 0 ? S_IFREG | 0755 : S_IFREG | 0644);
    f.binary = i % 11 == 0;
    facts.push_back(f);
  }
  std::vector<filters::Decision> all = decide_all(facts, config);
  REQUIRE(all.size() == facts.size());
  size_t differ = 0;
  for (size_t i = 0; i < facts.size(); ++i) {
    filters::Decision one = filters::decide(facts[i], config);
    differ += one.verdict != all[i].verdict || one.reason != all[i].reason;
  }
  CHECK(differ == 0);
  CHECK(decide_all({}, config).empty());
}
