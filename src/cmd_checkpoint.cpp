// ws checkpoint / checkpoints / restore: stub, implemented by the reset/checkpoint work.
#include "src/commands.hpp"
#include "src/error.hpp"

namespace ws {
int cmd_checkpoint(const Context&, const std::string&) {
  throw Error("not yet");
}
int cmd_checkpoints(const Context&, bool) {
  throw Error("not yet");
}
int cmd_restore(const Context&, unsigned) {
  throw Error("not yet");
}
} // namespace ws
