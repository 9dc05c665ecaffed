// Dropping changes and checkpoints: stub, implemented by the reset/checkpoint work.
#include "src/workspace_edit.hpp"

#include "src/error.hpp"

namespace ws {
void drop_changes(const Workspace&, const std::vector<std::string>&) {
  throw Error("not yet");
}
void drop_all_changes(const Workspace&) {
  throw Error("not yet");
}
Checkpoint create_checkpoint(const Workspace&, const std::string&) {
  throw Error("not yet");
}
std::vector<Checkpoint> list_checkpoints(const Workspace&) {
  return {};
}
Checkpoint find_checkpoint(const Workspace&, unsigned) {
  throw Error("not yet");
}
void restore_checkpoint(const Workspace&, unsigned) {
  throw Error("not yet");
}
} // namespace ws
