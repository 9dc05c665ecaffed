#pragma once

// Small builders shared by the gitbridge unit tests.

#include "gitbridge/patch.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ws::test::blobs {

inline gitbridge::BlobSide file(std::string text) {
  return {gitbridge::GitMode::File, std::move(text)};
}
inline gitbridge::BlobSide exe(std::string text) {
  return {gitbridge::GitMode::Executable, std::move(text)};
}
inline gitbridge::BlobSide link(std::string target) {
  return {gitbridge::GitMode::Symlink, std::move(target)};
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace ws::test::blobs
