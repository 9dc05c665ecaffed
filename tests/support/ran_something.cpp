// A doctest listener that makes a run fail when its filter selected no test case: ctest
// runs one case per process by name, and a name the filter cannot match would otherwise
// "pass" without running anything (doctest treats ',' in --test-case as a separator).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

namespace {

struct RanSomething : doctest::IReporter {
  explicit RanSomething(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    if (stats.numTestCasesPassingFilters == 0) {
      std::fprintf(stderr, "error: no test case matched the filter: nothing was tested\n");
      std::_Exit(1);
    }
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("ran_something", 1, RanSomething);

} // namespace
