// The running executable's build-id and this build's one-line identity (build_info.hpp).
#include "src/cli/build_info.hpp"

#include <elf.h>
#include <link.h>

#include <cstring>

namespace ws {

namespace {

/// Reads NT_GNU_BUILD_ID from the PT_NOTE segments of the first object dl_iterate_phdr
/// reports: the program itself.
int find_build_id(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  for (ElfW(Half) k = 0; k < info->dlpi_phnum; ++k) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[k];
    if (ph.p_type != PT_NOTE) {
      continue;
    }
    size_t align = ph.p_align > 4 ? ph.p_align : 4;
    auto pad = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = at + ph.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note{};
      std::memcpy(&note, at, sizeof note);
      const unsigned char* name = at + sizeof note;
      const unsigned char* desc = name + pad(note.n_namesz);
      if (desc + note.n_descsz > end) {
        break;
      }
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        static const char k_hex[] = "0123456789abcdef";
        for (ElfW(Word) b = 0; b < note.n_descsz; ++b) {
          out->push_back(k_hex[desc[b] >> 4]);
          out->push_back(k_hex[desc[b] & 0xf]);
        }
        return 1;
      }
      at = desc + pad(note.n_descsz);
    }
  }
  return 1; // only the program itself, not its libraries
}

} // namespace

std::string_view build_id() {
  static const std::string id = [] {
    std::string hex;
    dl_iterate_phdr(find_build_id, &hex);
    return hex;
  }();
  return id;
}

std::string build_identity() {
  std::string out =
      std::string(build_version()) + " (commit " + std::string(build_commit()) + ", build-id ";
  out += build_id().empty() ? std::string("none") : std::string(build_id().substr(0, 12));
  return out + ")";
}

} // namespace ws
