// Content identities for what a transfer lands: SHA-256 through OpenSSL's EVP interface
// (the reviewed id must not be forgeable by an agent that controls the content).
#include "gitbridge/content_id.hpp"

#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <openssl/evp.h>

namespace ws::gitbridge {

namespace {

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};

class Sha256 {
public:
  Sha256() : m_ctx(EVP_MD_CTX_new()) {
    if (!m_ctx) {
      throw std::runtime_error("SHA-256: cannot initialise OpenSSL's digest");
    }
    restart();
  }
  /// Starts a new digest (one context serves many: a manifest has one per file).
  void restart() {
    if (EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) != 1) {
      throw std::runtime_error("SHA-256: cannot initialise OpenSSL's digest");
    }
  }
  void add(std::string_view bytes) {
    if (EVP_DigestUpdate(m_ctx.get(), bytes.data(), bytes.size()) != 1) {
      throw std::runtime_error("SHA-256: digest update failed");
    }
  }
  /// A length prefix first, so field boundaries cannot be moved between fields.
  void add_field(std::string_view bytes) {
    char prefix[24];
    int n = std::snprintf(prefix, sizeof prefix, "%zu:", bytes.size());
    add(std::string_view(prefix, static_cast<size_t>(n)));
    add(bytes);
  }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(m_ctx.get(), md, &n) != 1) {
      throw std::runtime_error("SHA-256: digest final failed");
    }
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (unsigned int i = 0; i < n; ++i) {
      out.push_back(k_digits[md[i] >> 4]);
      out.push_back(k_digits[md[i] & 0xf]);
    }
    return out;
  }

private:
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> m_ctx;
};

void add_side(Sha256& h, const BlobSide& side) {
  h.add_field(std::to_string(static_cast<uint32_t>(side.mode)));
  h.add_field(side.content);
}

} // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.add(bytes);
  return h.hex();
}

std::vector<ManifestEntry> manifest(const std::vector<FilePair>& pairs) {
  std::vector<ManifestEntry> out(pairs.size());
  auto hash_range = [&](size_t begin, size_t end) {
    Sha256 h;
    for (size_t i = begin; i < end; ++i) {
      const FilePair& p = pairs[i];
      h.restart();
      h.add_field("ws-pair-v1");
      h.add_field(p.old_path);
      h.add_field(p.new_path);
      add_side(h, p.before);
      add_side(h, p.after);
      out[i] = {p.new_path, p.old_path == p.new_path ? std::string() : p.old_path, h.hex()};
    }
  };
  // An agent's 200,000 new files are 200,000 digests: two threads, each its half.
  constexpr size_t k_one_thread = 4000;
  const size_t half = pairs.size() / 2;
  std::exception_ptr failed;
  std::optional<std::thread> helper;
  if (pairs.size() >= k_one_thread && std::thread::hardware_concurrency() > 1) {
    try {
      helper.emplace([&] {
        try {
          hash_range(half, pairs.size());
        } catch (...) {
          failed = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      // No second thread: this one does it all.
    }
  }
  hash_range(0, helper ? half : pairs.size());
  if (helper) {
    helper->join();
  }
  if (failed) {
    std::rethrow_exception(failed);
  }
  return out;
}

std::string change_id(const std::vector<ManifestEntry>& entries) {
  Sha256 h;
  h.add_field("ws-change-v1");
  for (const auto& e : entries) {
    h.add_field(e.id);
  }
  return h.hex();
}

} // namespace ws::gitbridge
