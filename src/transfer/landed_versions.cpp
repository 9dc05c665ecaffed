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

void LandedVersions::record(
    const std::vector<std::pair<std::string, const std::string*>>& landed) const {
  if (landed.empty()) {
    return;
  }
  fuse::Db db(m_layout.dir / "landed.db", fuse::Db::Mode::ReadWrite);
  db.exec(k_schema);
  db.exec("BEGIN");
  fuse::Stmt st(db, "INSERT OR REPLACE INTO landed(path, hash) VALUES(?1, ?2)");
  for (const auto& [path, content] : landed) {
    st.bind_blob(1, path).bind_text(2, fuse::hash_bytes(*content).hex());
    st.run();
    st.reset();
  }
  db.exec("COMMIT");
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
  // The real file still holds exactly what ws landed there: that is the base.
  return real_content;
}

} // namespace ws
