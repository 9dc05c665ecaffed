// ws reset: stub, implemented by the reset/checkpoint work.
#include "src/commands.hpp"
#include "src/error.hpp"

namespace ws {
int cmd_reset(const Context&, const std::vector<std::string>&) {
  throw Error("ws reset: not yet");
}
} // namespace ws
