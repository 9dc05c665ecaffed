#pragma once

namespace ws {

/// Parses the command line and runs the command; returns the exit code. Throws Error.
int run_cli(int argc, char** argv);

} // namespace ws
