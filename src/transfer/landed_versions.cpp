#include "src/transfer/landed_versions.hpp"

#include "fuse/hash.hpp"
#include "fuse/sqlite.hpp"
#include "fuse/system_error.hpp"
#include "fuse/unique_fd.hpp"
#include "src/transfer/change_content.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace ws {

namespace {
constexpr const char* k_schema =
    "CREATE TABLE IF NOT EXISTS landed(path BLOB PRIMARY KEY, hash TEXT NOT NULL)";
}

void LandedVersions::record(const std::string& path, const std::string& content) const {
  std::string hex = fuse::hash_bytes(content).hex();
  std::filesystem::path file = m_layout.bases() / hex;
  if (::access(file.c_str(), F_OK) != 0) {
    std::filesystem::path tmp = m_layout.bases() / (hex + ".tmp");
    fuse::UniqueFd fd(::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0400));
    if (!fd ||
        ::write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
      throw_errno("save the landed version of", path);
    }
    if (::rename(tmp.c_str(), file.c_str()) != 0) {
      throw_errno("save the landed version of", path);
    }
  }
  fuse::Db db(m_layout.dir / "landed.db", fuse::Db::Mode::ReadWrite);
  db.exec(k_schema);
  fuse::Stmt st(db, "INSERT OR REPLACE INTO landed(path, hash) VALUES(?1, ?2)");
  st.bind_blob(1, path).bind_text(2, hex);
  st.run();
}

std::optional<std::string> LandedVersions::base_for(const std::string& path,
                                                    const std::string& real_content) const {
  std::filesystem::path db_file = m_layout.dir / "landed.db";
  if (::access(db_file.c_str(), F_OK) != 0) {
    return std::nullopt;
  }
  fuse::Db db(db_file, fuse::Db::Mode::ReadOnly);
  fuse::Stmt st(db, "SELECT hash FROM landed WHERE path = ?1");
  st.bind_blob(1, path);
  if (!st.step() || st.text(0) != fuse::hash_bytes(real_content).hex()) {
    return std::nullopt;
  }
  fuse::UniqueFd fd(::open((m_layout.bases() / st.text(0)).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return std::nullopt;
  }
  return read_all(fd.get(), path);
}

} // namespace ws
