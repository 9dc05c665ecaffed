#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace ws::fuse {

/// Thrown when SQLite fails; says which database and statement.
class DbError : public std::runtime_error {
public:
  explicit DbError(const std::string& what, int code = 0)
      : std::runtime_error(what), m_code(code) {}
  /// The errno closest to SQLite's result code (ENOSPC for a full disk), else EIO.
  int as_errno() const noexcept;

private:
  int m_code;
};

/// One SQLite connection (WAL mode). Not thread-safe: the owner serialises access.
class Db {
public:
  enum class Mode { ReadWrite, ReadOnly };
  Db(const std::filesystem::path& file, Mode mode);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(const char* sql);
  sqlite3* raw() const { return m_db; }
  const std::filesystem::path& file() const { return m_file; }
  [[noreturn]] void fail(std::string_view what) const;

private:
  sqlite3* m_db = nullptr;
  std::filesystem::path m_file;
};

/// A prepared statement; bind with 1-based indexes, step() until it returns false.
class Stmt {
public:
  Stmt(Db& db, const char* sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t v);
  Stmt& bind_text(int i, std::string_view v);
  Stmt& bind_blob(int i, std::string_view v);
  Stmt& bind_null(int i);
  /// True while a row is available.
  bool step();
  /// Runs to completion and resets, ready to bind again.
  void run();
  void reset();

  int64_t int64(int col) const;
  std::string text(int col) const;
  bool is_null(int col) const;

private:
  Db& m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

/// BEGIN IMMEDIATE ... COMMIT; rolls back if destroyed before commit().
class Transaction {
public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

private:
  Db& m_db;
  bool m_done = false;
};

} // namespace ws::fuse
