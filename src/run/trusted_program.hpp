#pragma once

#include <filesystem>
#include <string>

namespace ws {

/// The path of a program `ws run` executes before the sandbox exists (bwrap, slirp4netns).
/// Never looked up in PATH (a writable PATH directory would let an agent plant a fake one
/// for the next session): only /usr/bin/NAME or /bin/NAME, or `override_env`'s value (for
/// tests), and only if the file and every directory above it are owned by root and not
/// writable by group or others. Throws Error (fail closed) naming what is wrong and `package`.
std::string trusted_program(const std::string& name, const std::string& package,
                            const char* override_env = nullptr);

/// The program the sandbox's pid 1 runs: `ws-init` beside the running ws binary (small and
/// static: src/run/init_main.cpp) when it is there as a regular executable file owned by the
/// ws binary's owner, else the ws binary itself (`ws __exec`; both take the same arguments).
std::filesystem::path sandbox_init_program();

/// Why `path` is not trusted as above, or "" if it is.
std::string untrusted_because(const std::string& path);

} // namespace ws
