#pragma once

#include <string>
#include <string_view>

namespace ws {

/// The version ws is built as (CMake's project version), e.g. "0.1.0".
std::string_view build_version();
/// The git commit ws is built from ("1a2b3c4d5e6f", "-dirty" appended when tracked files
/// differed from it), or "unknown" (a build outside a git checkout, e.g. from a tarball).
/// Written at build time by cmake/build_info.cmake.
std::string_view build_commit();

/// The running executable's GNU build-id in hex: the linker's hash of the binary, so any
/// rebuild that changes the code changes it, commit or not ("-dirty" stays "-dirty"). ""
/// when it was linked without one. Read from the loaded program's notes (build_id.cpp).
std::string_view build_id();

/// This build in one line, as `ws --version` shows it and a daemon records it:
/// "0.1.0 (commit 1a2b3c4d5e6f, build-id 9f8e7d6c5b4a)" (the build-id cut to 12 digits).
std::string build_identity();

} // namespace ws
