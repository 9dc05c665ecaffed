// The last plan of the live workspace, kept between commands (plan_cache.hpp).
#include "src/transfer/plan_cache.hpp"

#include "fuse/hash.hpp"
#include "fuse/unique_fd.hpp"
#include "src/transfer/cache_codec.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <unordered_set>

namespace ws {

namespace {

using fuse::UniqueFd;

constexpr char k_magic[8] = {'w', 's', 'p', 'l', 'a', 'n', '0', '1'};

enum Flags : uint8_t {
  k_base = 1,
  k_base_hash = 2,
  k_real_mode = 4,
  k_unseen = 8,
};

bool valid_kind(char k) {
  return k == 'A' || k == 'M' || k == 'D' || k == 'R' || k == 'T';
}

} // namespace

std::optional<CachedPlan> load_plan_cache(const std::filesystem::path& file) {
  std::optional<CacheBytes> data = read_cache_file(file, k_magic);
  if (!data) {
    return std::nullopt;
  }
  const size_t payload = data->size;
  Reader r(data->data, data->size);
  CachedPlan out;
  r.get(out.token);
  r.get(out.inputs);
  uint64_t count = r.get<uint64_t>();
  if (r.bad() || count > payload / 8) {
    return std::nullopt;
  }
  out.plan.reserve(count + 256); // room for a few new files merged in place (plan_update.hpp)
  out.plan.resize(count);
  for (PlannedChange& p : out.plan) {
    fuse::Change& c = p.change;
    char kind = r.get<char>();
    uint8_t verdict = r.get<uint8_t>();
    uint8_t flags = r.get<uint8_t>();
    if (!valid_kind(kind) || verdict > static_cast<uint8_t>(filters::Verdict::Blocked)) {
      return std::nullopt;
    }
    c.kind = static_cast<fuse::ChangeKind>(kind);
    p.decision.verdict = static_cast<filters::Verdict>(verdict);
    r.get(c.path);
    r.get(c.from);
    r.get(p.decision.reason);
    c.mode = r.get<uint32_t>();
    c.size = r.get<uint64_t>();
    c.ino = r.get<uint64_t>();
    c.mtime_ns = r.get<int64_t>();
    c.ctime_ns = r.get<int64_t>();
    c.unseen = (flags & k_unseen) != 0;
    if (flags & k_real_mode) {
      c.real_mode = r.get<uint32_t>();
    }
    if (flags & k_base) {
      fuse::Identity& b = c.base.emplace();
      b.ino = r.get<uint64_t>();
      b.size = r.get<uint64_t>();
      b.mtime_ns = r.get<int64_t>();
      b.mode = r.get<uint32_t>();
      if (flags & k_base_hash) {
        fuse::Hash128& h = b.hash.emplace();
        h.high = r.get<uint64_t>();
        h.low = r.get<uint64_t>();
      }
    }
    if (r.bad()) {
      return std::nullopt;
    }
  }
  if (!r.done()) {
    return std::nullopt;
  }
  return out;
}

void save_plan_cache(const std::filesystem::path& file, const std::string& token,
                     const std::string& inputs, const std::vector<PlannedChange>& plan) {
  Writer w(k_magic);
  w.out().reserve(64 + plan.size() * 80);
  w.put(token);
  w.put(inputs);
  w.put(static_cast<uint64_t>(plan.size()));
  for (const PlannedChange& p : plan) {
    const fuse::Change& c = p.change;
    uint8_t flags = (c.base ? k_base : 0) | (c.base && c.base->hash ? k_base_hash : 0) |
                    (c.real_mode ? k_real_mode : 0) | (c.unseen ? k_unseen : 0);
    w.put(static_cast<char>(c.kind));
    w.put(static_cast<uint8_t>(p.decision.verdict));
    w.put(flags);
    w.put(c.path);
    w.put(c.from);
    w.put(p.decision.reason);
    w.put(static_cast<uint32_t>(c.mode));
    w.put(c.size);
    w.put(c.ino);
    w.put(c.mtime_ns);
    w.put(c.ctime_ns);
    if (c.real_mode) {
      w.put(static_cast<uint32_t>(*c.real_mode));
    }
    if (c.base) {
      w.put(c.base->ino);
      w.put(c.base->size);
      w.put(c.base->mtime_ns);
      w.put(static_cast<uint32_t>(c.base->mode));
      if (c.base->hash) {
        w.put(c.base->hash->high);
        w.put(c.base->hash->low);
      }
    }
  }
  write_cache_file(file, w.out());
}

bool only_staging_leftovers(const std::vector<std::string>& changed,
                            const std::filesystem::path& real, const std::filesystem::path& upper,
                            const std::vector<PlannedChange>& plan) {
  constexpr std::string_view prefix = ".ws-apply-";
  std::unordered_set<std::string_view> tops;
  for (const std::string& name : changed) {
    std::string_view top = std::string_view(name).substr(0, name.find('/'));
    if (!top.starts_with(prefix) || top.size() == prefix.size() ||
        top.find_first_not_of("0123456789-", prefix.size()) != std::string::npos) {
      return false;
    }
    tops.insert(top);
  }
  for (std::string_view top : tops) {
    struct stat st {};
    for (const auto& root : {real, upper}) {
      if (::lstat((root / top).c_str(), &st) == 0 || errno != ENOENT) {
        return false;
      }
    }
  }
  // No change of the plan there: one pass, and a path not starting with the prefix's first
  // byte costs one comparison.
  for (const PlannedChange& p : plan) {
    for (const std::string* path : {&p.change.path, &p.change.from}) {
      if (path->empty() || (*path)[0] != '.' || !path->starts_with(prefix)) {
        continue;
      }
      if (tops.count(std::string_view(*path).substr(0, path->find('/')))) {
        return false;
      }
    }
  }
  return true;
}

void drop_plan_cache(const std::filesystem::path& file) {
  remove_cache_file(file);
}

} // namespace ws
