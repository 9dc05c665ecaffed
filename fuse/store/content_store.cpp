// The content store (see content_store.hpp).
#include "fuse/store/content_store.hpp"

#include "fuse/log.hpp"
#include "fuse/system_error.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include <openssl/evp.h>

namespace ws::fuse::store {

namespace {

constexpr const char* k_schema = R"(
CREATE TABLE IF NOT EXISTS refs(
  id BLOB PRIMARY KEY,
  count INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  bytes INTEGER NOT NULL
) WITHOUT ROWID;
)";

constexpr size_t k_buffer = 1 << 20;

std::string proc_fd(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  return -1;
}

void write_all(int fd, const char* data, size_t size, off_t at, std::string_view path) {
  for (size_t done = 0; done < size;) {
    ssize_t w = ::pwrite(fd, data + done, size - done, at + static_cast<off_t>(done));
    if (w < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_errno("store: write", path);
    }
    done += static_cast<size_t>(w);
  }
}

} // namespace

std::string ObjectId::hex() const {
  static const char* digits = "0123456789abcdef";
  std::string out(64, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  return out;
}

std::optional<ObjectId> ObjectId::from_hex(std::string_view hex) {
  if (hex.size() != 64) {
    return std::nullopt;
  }
  ObjectId id;
  for (size_t i = 0; i < 32; ++i) {
    int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    id.bytes[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return id;
}

ObjectId ObjectId::from_raw(std::string_view raw) {
  ObjectId id;
  std::memcpy(id.bytes.data(), raw.data(), std::min(raw.size(), id.bytes.size()));
  return id;
}

Sha256::Sha256() : m_ctx(EVP_MD_CTX_new()) {
  if (!m_ctx || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(m_ctx), EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(m_ctx));
    throw std::runtime_error("SHA-256: cannot initialise OpenSSL's digest");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(m_ctx));
}

void Sha256::update(const void* data, size_t size) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(m_ctx), data, size) != 1) {
    throw std::runtime_error("SHA-256: digest update failed");
  }
}

ObjectId Sha256::digest() {
  ObjectId id;
  unsigned n = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(m_ctx), id.bytes.data(), &n) != 1 || n != 32) {
    throw std::runtime_error("SHA-256: digest failed");
  }
  return id;
}

uint64_t allocated_of(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
}

ContentStore::Lock::Lock(const std::filesystem::path& file)
    : m_fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
  if (!m_fd) {
    throw_errno("open the content store's lock", file.string());
  }
  while (::flock(m_fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) {
      throw_errno("lock the content store", file.string());
    }
  }
}

ContentStore::ContentStore(const std::filesystem::path& dir) : m_dir(dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir / "objects", ec);
  ::chmod(dir.c_str(), 0700);
  m_objects.reset(::open((dir / "objects").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!m_objects) {
    throw_errno("open the content store", (dir / "objects").string());
  }
  m_refs.emplace(dir / "refs.db", Db::Mode::ReadWrite);
  m_refs->exec(k_schema);
}

std::filesystem::path ContentStore::object_path(const ObjectId& id) const {
  std::string hex = id.hex();
  return m_dir / "objects" / hex.substr(0, 2) / hex.substr(2);
}

bool ContentStore::contains(const ObjectId& id) const {
  std::string hex = id.hex();
  std::string rel = hex.substr(0, 2) + "/" + hex.substr(2);
  return ::faccessat(m_objects.get(), rel.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

UniqueFd ContentStore::open(const ObjectId& id) const {
  std::string hex = id.hex();
  std::string rel = hex.substr(0, 2) + "/" + hex.substr(2);
  UniqueFd fd(::openat(m_objects.get(), rel.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    throw_errno("open stored object", hex);
  }
  return fd;
}

std::string ContentStore::read(const ObjectId& id) const {
  UniqueFd fd = open(id);
  std::string out;
  std::array<char, 65536> buf;
  for (off_t off = 0;;) {
    ssize_t n = ::pread(fd.get(), buf.data(), buf.size(), off);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw_errno("read stored object", id.hex());
    }
    if (n == 0) {
      return out;
    }
    out.append(buf.data(), static_cast<size_t>(n));
    off += n;
  }
}

bool ContentStore::link_in(int tmp, const ObjectId& id) {
  std::string hex = id.hex();
  std::string sub = hex.substr(0, 2);
  if (::mkdirat(m_objects.get(), sub.c_str(), 0700) != 0 && errno != EEXIST) {
    throw_errno("store: mkdir", (m_dir / "objects" / sub).string());
  }
  UniqueFd subdir(::openat(m_objects.get(), sub.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!subdir) {
    throw_errno("store: open", (m_dir / "objects" / sub).string());
  }
  std::string name = hex.substr(2);
  if (::linkat(AT_FDCWD, proc_fd(tmp).c_str(), subdir.get(), name.c_str(), AT_SYMLINK_FOLLOW) ==
      0) {
    return true;
  }
  if (errno == EEXIST) {
    return false;
  }
  throw_errno("store: link object", object_path(id).string());
}

ContentStore::Stored ContentStore::put_file(int fd, uint64_t size, std::string_view path) {
  UniqueFd tmp(::openat(m_objects.get(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0400));
  if (!tmp) {
    throw_errno("store: make a temporary file in", (m_dir / "objects").string());
  }
  Sha256 sha;
  Hasher xxh;
  static const std::array<char, 65536> zeros{};
  auto buf = std::make_unique_for_overwrite<char[]>(k_buffer);
  auto off_size = static_cast<off_t>(size);
  off_t pos = 0;
  while (pos < off_size) {
    off_t data = ::lseek(fd, pos, SEEK_DATA);
    if (data < 0) {
      data = errno == ENXIO ? off_size : pos; // ENXIO: only a hole remains
    }
    data = std::min(data, off_size);
    for (off_t z = pos; z < data;) { // a hole reads as zeros
      size_t n = static_cast<size_t>(std::min<off_t>(data - z, zeros.size()));
      sha.update(zeros.data(), n);
      xxh.update(zeros.data(), n);
      z += static_cast<off_t>(n);
    }
    if (data >= off_size) {
      break;
    }
    off_t hole = ::lseek(fd, data, SEEK_HOLE);
    hole = hole < 0 ? off_size : std::min(hole, off_size);
    off_t off = data;
    while (off < hole) {
      ssize_t n =
          ::pread(fd, buf.get(), static_cast<size_t>(std::min<off_t>(hole - off, k_buffer)), off);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0) {
        throw_errno("store: read", path);
      }
      if (n == 0) {
        break; // the file shrank under us
      }
      sha.update(buf.get(), static_cast<size_t>(n));
      xxh.update(buf.get(), static_cast<size_t>(n));
      write_all(tmp.get(), buf.get(), static_cast<size_t>(n), off, path);
      off += n;
    }
    if (off < hole) {
      off_size = off;
      break;
    }
    pos = hole;
  }
  if (::ftruncate(tmp.get(), off_size) != 0) {
    throw_errno("store: truncate", path);
  }
  Stored out;
  out.id = sha.digest();
  out.xxh3 = xxh.digest();
  out.size = static_cast<uint64_t>(off_size);
  out.added = link_in(tmp.get(), out.id);
  return out;
}

ObjectId ContentStore::put_bytes(std::string_view bytes) {
  Sha256 sha;
  sha.update(bytes.data(), bytes.size());
  ObjectId id = sha.digest();
  if (contains(id)) {
    return id;
  }
  UniqueFd tmp(::openat(m_objects.get(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0400));
  if (!tmp) {
    throw_errno("store: make a temporary file in", (m_dir / "objects").string());
  }
  write_all(tmp.get(), bytes.data(), bytes.size(), 0, id.hex());
  link_in(tmp.get(), id);
  return id;
}

uint64_t ContentStore::add_root(const ObjectId& root, ObjectKind kind, const ChildrenOf& children) {
  uint64_t added = 0;
  Transaction tx(*m_refs);
  Stmt find(*m_refs, "SELECT count FROM refs WHERE id = ?1");
  Stmt bump(*m_refs, "UPDATE refs SET count = count + 1 WHERE id = ?1");
  Stmt insert(*m_refs, "INSERT INTO refs(id, count, kind, bytes) VALUES(?1, 1, ?2, ?3)");
  std::vector<std::pair<ObjectId, ObjectKind>> todo{{root, kind}};
  while (!todo.empty()) {
    auto [id, k] = todo.back();
    todo.pop_back();
    find.bind_blob(1, id.raw());
    bool known = find.step();
    find.reset();
    if (known) {
      bump.bind_blob(1, id.raw()).run();
      continue;
    }
    UniqueFd fd = open(id); // a missing object is a broken build: throws, commits nothing
    uint64_t bytes = allocated_of(fd.get());
    insert.bind_blob(1, id.raw()).bind(2, static_cast<int>(k)).bind(3, static_cast<int64_t>(bytes));
    insert.run();
    added += bytes;
    if (k == ObjectKind::Tree) {
      auto below = children(id);
      todo.insert(todo.end(), below.begin(), below.end());
    }
  }
  tx.commit();
  return added;
}

uint64_t ContentStore::release_root(const ObjectId& root, const ChildrenOf& children) {
  uint64_t freed = 0;
  std::vector<ObjectId> gone;
  {
    Transaction tx(*m_refs);
    Stmt find(*m_refs, "SELECT count, kind, bytes FROM refs WHERE id = ?1");
    Stmt drop(*m_refs, "UPDATE refs SET count = count - 1 WHERE id = ?1");
    Stmt erase(*m_refs, "DELETE FROM refs WHERE id = ?1");
    std::vector<ObjectId> todo{root};
    while (!todo.empty()) {
      ObjectId id = todo.back();
      todo.pop_back();
      find.bind_blob(1, id.raw());
      if (!find.step()) {
        find.reset();
        logger().warn("content store: releasing {}, which holds no reference", id.hex());
        continue;
      }
      int64_t count = find.int64(0);
      auto kind = static_cast<ObjectKind>(find.int64(1));
      uint64_t bytes = static_cast<uint64_t>(find.int64(2));
      find.reset();
      if (count > 1) {
        drop.bind_blob(1, id.raw()).run();
        continue;
      }
      erase.bind_blob(1, id.raw()).run();
      if (kind == ObjectKind::Tree) {
        for (auto& [child, k] : children(id)) {
          todo.push_back(child);
        }
      }
      gone.push_back(id);
      freed += bytes;
    }
    tx.commit();
  }
  // Only once no row names them: a crash before this point leaves files without rows,
  // which sweep() deletes; never a row without its file.
  for (const ObjectId& id : gone) {
    if (::unlink(object_path(id).c_str()) != 0 && errno != ENOENT) {
      logger().warn("content store: cannot delete {}: {}", object_path(id).string(),
                    std::strerror(errno));
    }
  }
  return freed;
}

uint64_t ContentStore::committed_bytes() {
  Stmt st(*m_refs, "SELECT total(bytes) FROM refs");
  return st.step() ? static_cast<uint64_t>(st.int64(0)) : 0;
}

size_t ContentStore::sweep() {
  size_t removed = 0;
  Stmt find(*m_refs, "SELECT 1 FROM refs WHERE id = ?1");
  std::error_code ec;
  for (const auto& sub : std::filesystem::directory_iterator(m_dir / "objects", ec)) {
    std::string prefix = sub.path().filename().string();
    std::error_code ec2;
    for (const auto& obj : std::filesystem::directory_iterator(sub.path(), ec2)) {
      auto id = ObjectId::from_hex(prefix + obj.path().filename().string());
      if (!id) {
        continue; // not ours
      }
      find.bind_blob(1, id->raw());
      bool known = find.step();
      find.reset();
      if (!known && ::unlink(obj.path().c_str()) == 0) {
        ++removed;
      }
    }
  }
  return removed;
}

} // namespace ws::fuse::store
