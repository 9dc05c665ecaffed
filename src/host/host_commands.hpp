#pragma once

#include <string>

namespace ws {

/// `ws version` / `ws --version`: the version, the commit it was built from, and what this
/// machine offers at run time (libfuse and the kernel's FUSE protocol, Landlock, user
/// namespaces, bubblewrap, slirp4netns).
std::string version_text();

/// `ws doctor [--json]`: every precondition of ws on this machine, with the exact fix of
/// each that fails; exit status 1 when one fails (warnings do not count).
int cmd_doctor(bool json);

} // namespace ws
