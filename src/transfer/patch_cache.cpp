// The last patch of the live workspace, kept between commands (patch_cache.hpp).
#include "src/transfer/patch_cache.hpp"

#include "src/transfer/cache_codec.hpp"

namespace ws {

namespace {
constexpr char k_magic[8] = {'w', 's', 'p', 'a', 't', 'c', 'h', '3'};
constexpr char k_text_magic[8] = {'w', 's', 'p', 't', 'e', 'x', 't', '1'};

/// Where a Text cache keeps its text (beside it, with its own delta).
std::filesystem::path text_file_of(const std::filesystem::path& file) {
  std::filesystem::path t = file;
  t += ".text";
  return t;
}
} // namespace

std::string patch_cache_key(const std::string& inputs, const std::string& what,
                            const std::vector<std::string>& paths,
                            const std::vector<std::string>& include) {
  std::string key = inputs + what;
  for (const auto* list : {&paths, &include}) {
    key += "\n" + std::to_string(list->size());
    for (const std::string& p : *list) {
      key += '\0' + p;
    }
  }
  return key;
}

std::optional<CachedPatch> load_patch_cache(const std::filesystem::path& file) {
  std::optional<CacheBytes> data = read_cache_file(file, k_magic);
  if (!data) {
    return std::nullopt;
  }
  Reader r(data->data, data->size);
  CachedPatch out;
  gitbridge::Patch& p = out.patch;
  r.get(out.token);
  r.get(out.key);
  const bool has_text = r.get<char>() != 0;
  fuse::Hash128 text_sum;
  text_sum.high = r.get<uint64_t>();
  text_sum.low = r.get<uint64_t>();
  const uint64_t text_size = r.get<uint64_t>();
  r.get(p.id);
  r.get(p.stat);
  uint64_t files = r.get<uint64_t>();
  if (r.bad() || files > data->size) {
    return std::nullopt;
  }
  p.files.resize(files);
  for (gitbridge::FileStat& f : p.files) {
    f.status = r.get<char>();
    r.get(f.old_path);
    r.get(f.path);
    f.added = r.get<uint64_t>();
    f.deleted = r.get<uint64_t>();
    f.binary = r.get<char>() != 0;
    f.text_size = r.get<uint64_t>();
  }
  uint64_t entries = r.get<uint64_t>();
  if (r.bad() || entries > data->size) {
    return std::nullopt;
  }
  p.manifest.resize(entries);
  for (gitbridge::ManifestEntry& m : p.manifest) {
    r.get(m.path);
    r.get(m.from);
    r.get(m.id);
  }
  if (r.bad() || !r.done()) {
    return std::nullopt;
  }
  if (has_text) {
    // The text written with this very cache: its digest is the one named here (two commands
    // keeping the cache at once can leave one's text beside the other's entries).
    std::shared_ptr<const CachePieces> text = read_cache_pieces(text_file_of(file), k_text_magic);
    if (!text || text->body.size != text_size || !(text->digest == text_sum)) {
      return std::nullopt;
    }
    out.text = text->body;
    out.text_bytes = std::move(text);
  }
  return out;
}

void save_patch_cache(const std::filesystem::path& file, const std::string& token,
                      const std::string& key, const gitbridge::Patch& p, PatchPart part,
                      const PatchText* pieces) {
  const bool text = part == PatchPart::Text;
  // The text first, to its own file (from the patch's string, not copied here); the entries
  // then name its digest.
  fuse::Hash128 text_sum;
  if (text && pieces) {
    text_sum =
        write_cache_pieces(text_file_of(file), k_text_magic, pieces->pieces, pieces->kept.get());
  } else if (text) {
    text_sum = write_cache_body(text_file_of(file), k_text_magic, p.text);
  }
  const size_t text_size = pieces ? pieces->pieces.size : p.text.size();
  Writer w(k_magic);
  w.out().reserve(text ? p.stat.size() + 128 * (p.files.size() + 1)
                       : 128 * (p.manifest.size() + 1));
  w.put(token);
  w.put(key);
  w.put(static_cast<char>(text ? 1 : 0));
  w.put(text_sum.high);
  w.put(text_sum.low);
  w.put(static_cast<uint64_t>(text ? text_size : 0));
  w.put(p.id);
  w.put(text ? p.stat : std::string());
  w.put(static_cast<uint64_t>(text ? p.files.size() : 0));
  for (const gitbridge::FileStat& f : text ? p.files : std::vector<gitbridge::FileStat>{}) {
    w.put(f.status);
    w.put(f.old_path);
    w.put(f.path);
    w.put(static_cast<uint64_t>(f.added));
    w.put(static_cast<uint64_t>(f.deleted));
    w.put(static_cast<char>(f.binary ? 1 : 0));
    w.put(static_cast<uint64_t>(f.text_size));
  }
  w.put(static_cast<uint64_t>(text ? 0 : p.manifest.size()));
  for (const gitbridge::ManifestEntry& m :
       text ? std::vector<gitbridge::ManifestEntry>{} : p.manifest) {
    w.put(m.path);
    w.put(m.from);
    w.put(m.id);
  }
  write_cache_file(file, w.out());
}

} // namespace ws
