// ws diff: stub.
#include "src/commands.hpp"
#include "src/error.hpp"

namespace ws {
int cmd_diff(const Context&, const DiffOptions&) {
  throw Error("not yet");
}
} // namespace ws
