#pragma once

// Object ids between libgit2 and text (40 hex digits), one way everywhere.

#include "gitbridge/git_handles.hpp"

#include <string>

namespace ws::gitbridge {

/// `oid` as 40 hex digits.
inline std::string oid_hex(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

/// `hex` (40 hex digits) as an id; throws GitError naming it when it is not one.
inline git_oid parse_oid(const std::string& hex) {
  git_oid oid;
  git_check(git_oid_fromstr(&oid, hex.c_str()), "read object id '" + hex + "'");
  return oid;
}

} // namespace ws::gitbridge
