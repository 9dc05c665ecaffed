#pragma once

namespace ws {

/// `ws -vv run`: one debug line per step of the start-up, with the wall time since ws started
/// and the CPU time ws run has used so far (bench/run_startup's figures, taken apart).
/// Costs one clock read when -vv is off.
void startup_step(const char* what);

} // namespace ws
