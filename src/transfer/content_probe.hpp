#pragma once

#include "src/transfer/probe_cache.hpp"

#include <string>
#include <vector>

namespace ws {

/// What the start of one file of the workspace says: binary or not, as git decides (a NUL
/// byte in the first 8000), and, for a file that fits one read, its whole content.
struct ContentProbe {
  bool binary = false;
  bool recoded = false; ///< filters::recoding_declaration of its start
  bool whole = false;   ///< `content` is the whole file
  std::string content;  ///< set only when asked to keep content and `whole`
  FileStamp stamp;      ///< the file read, as it was before it was read (ino 0: not read)
};

/// Probes the regular files at `paths` (relative to the upper layer `upper`, sorted so that
/// siblings follow each other), without following any symlink. Opening and reading each file
/// is most of what a plan costs when an agent made many, so two threads share the work. A
/// file that cannot be opened is reported as not binary and not whole (reading it later
/// fails with its error). `keep`: keep the content of files read whole.
std::vector<ContentProbe> probe_contents(int upper, const std::vector<const std::string*>& paths,
                                         bool keep);

} // namespace ws
