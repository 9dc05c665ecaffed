#pragma once

#include <string_view>

namespace ws {

/// The version ws is built as (CMake's project version), e.g. "0.1.0".
std::string_view build_version();
/// The git commit ws is built from ("1a2b3c4d5e6f", "-dirty" appended when tracked files
/// differed from it), or "unknown" (a build outside a git checkout, e.g. from a tarball).
/// Written at build time by cmake/build_info.cmake.
std::string_view build_commit();

} // namespace ws
