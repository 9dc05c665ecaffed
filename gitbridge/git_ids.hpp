#pragma once

// Object ids between libgit2 and text (40 hex digits), one way everywhere.

#include "gitbridge/git_handles.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

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

/// `s` is a full id as git writes it: 40 lowercase hex digits.
inline bool is_hex_id(std::string_view s) {
  return s.size() == GIT_OID_HEXSZ && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) &&
                  !std::isupper(static_cast<unsigned char>(c));
         });
}

} // namespace ws::gitbridge
