#include "fuse/sqlite.hpp"

#include <sqlite3.h>

#include <cerrno>

namespace ws::fuse {

int DbError::as_errno() const noexcept {
  switch (m_code & 0xff) {
  case SQLITE_FULL:
    return ENOSPC;
  case SQLITE_READONLY:
    return EROFS;
  case SQLITE_PERM:
  case SQLITE_AUTH:
    return EACCES;
  case SQLITE_NOMEM:
    return ENOMEM;
  default:
    return EIO;
  }
}

Db::Db(const std::filesystem::path& file, Mode mode) : m_file(file) {
  int flags =
      mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  flags |= SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(file.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    m_db = nullptr;
    throw DbError("cannot open database '" + file.string() + "': " + msg);
  }
  sqlite3_busy_timeout(m_db, 10000);
  if (mode == Mode::ReadWrite) {
    // WAL + synchronous=NORMAL: a killed process loses nothing that was committed; only a
    // power cut may lose the last transactions, never corrupt earlier ones.
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
  }
}

Db::~Db() {
  sqlite3_close(m_db);
}

void Db::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(m_db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw DbError("database '" + m_file.string() + "': " + msg + " (in: " + sql + ")",
                  sqlite3_extended_errcode(m_db));
  }
}

void Db::fail(std::string_view what) const {
  throw DbError("database '" + m_file.string() + "': " + std::string(what) + ": " +
                    sqlite3_errmsg(m_db),
                sqlite3_extended_errcode(m_db));
}

Stmt::Stmt(Db& db, const char* sql) : m_db(db) {
  if (sqlite3_prepare_v2(db.raw(), sql, -1, &m_stmt, nullptr) != SQLITE_OK) {
    db.fail(std::string("prepare '") + sql + "'");
  }
}

Stmt::~Stmt() {
  sqlite3_finalize(m_stmt);
}

Stmt& Stmt::bind(int i, int64_t v) {
  sqlite3_bind_int64(m_stmt, i, v);
  return *this;
}
Stmt& Stmt::bind_text(int i, std::string_view v) {
  sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::bind_blob(int i, std::string_view v) {
  sqlite3_bind_blob(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::bind_null(int i) {
  sqlite3_bind_null(m_stmt, i);
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  std::string sql = sqlite3_sql(m_stmt);
  sqlite3_reset(m_stmt);
  m_db.fail("step '" + sql + "'");
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

void Stmt::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

int64_t Stmt::int64(int col) const {
  return sqlite3_column_int64(m_stmt, col);
}
bool Stmt::is_null(int col) const {
  return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}
std::string Stmt::text(int col) const {
  const void* p = sqlite3_column_blob(m_stmt, col);
  int n = sqlite3_column_bytes(m_stmt, col);
  return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

Transaction::Transaction(Db& db) : m_db(db) {
  m_db.exec("BEGIN IMMEDIATE");
}
Transaction::~Transaction() {
  if (!m_done) {
    sqlite3_exec(m_db.raw(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}
void Transaction::commit() {
  m_db.exec("COMMIT");
  m_done = true;
}

} // namespace ws::fuse
