// ws apply: stub.
#include "src/commands.hpp"
#include "src/error.hpp"

namespace ws {
int cmd_apply(const Context&, const ApplyOptions&) {
  throw Error("not yet");
}
} // namespace ws
