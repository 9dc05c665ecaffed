// The policy's verdicts for many paths at once.
#include "src/transfer/decide_all.hpp"

#include <exception>
#include <optional>
#include <system_error>
#include <thread>

namespace ws {

std::vector<filters::Decision> decide_all(const std::vector<filters::PathFacts>& facts,
                                          const filters::PolicyConfig& config,
                                          const filters::SymlinkAliases& aliases) {
  std::vector<filters::Decision> out(facts.size());
  auto range = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      out[i] = filters::decide_reachable(facts[i], config, aliases);
    }
  };
  constexpr size_t k_one_thread = 4000; // below this, a thread costs more than it saves
  const size_t half = facts.size() / 2;
  std::exception_ptr failed;
  std::optional<std::thread> helper;
  if (facts.size() >= k_one_thread && std::thread::hardware_concurrency() > 1) {
    try {
      helper.emplace([&] {
        try {
          range(half, facts.size());
        } catch (...) {
          failed = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      // No second thread: this one does it all.
    }
  }
  try {
    range(0, helper ? half : facts.size());
  } catch (...) {
    if (helper) {
      helper->join();
    }
    throw;
  }
  if (helper) {
    helper->join();
  }
  if (failed) {
    std::rethrow_exception(failed);
  }
  return out;
}

std::vector<filters::Decision> decide_all(const std::vector<filters::PathFacts>& facts,
                                          const filters::PolicyConfig& config) {
  return decide_all(facts, config, filters::SymlinkAliases{});
}

} // namespace ws
