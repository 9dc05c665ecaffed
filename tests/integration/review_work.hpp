#pragma once

// The agent's work the `ws review` tests decide on (test_review.cpp, test_review_scale.cpp):
// the same files, so that the same keys must land the same index and tree in both.

#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <string>

namespace ws::test {

/// "line 1\n" ... "line N\n", with lines `a`, `b` and `c` replaced by "CHANGED k".
inline std::string lines(int n, int a = 0, int b = 0, int c = 0) {
  std::string out;
  for (int i = 1; i <= n; ++i) {
    bool changed = i == a || i == b || i == c;
    out += (changed ? "CHANGED " : "line ") + std::to_string(i) + "\n";
  }
  return out;
}

/// The agent's work: three hunks in notes.txt (lines 2, 15 and 28), a deletion of README.md,
/// a new file new.txt, an edit of src/main.c, and a withheld new executable tool.sh; plus
/// `packages` x 100 files under node_modules/ (withheld as one directory).
inline void agent_work(const TestRepo& repo, const MountedWorkspace& w, int packages = 0) {
  repo.write("notes.txt", lines(30));
  REQUIRE(sh("git add -A && git -c user.name=T -c user.email=t@e commit -qm notes", repo.path())
              .status == 0);
  Run r = w.in_view("printf '%s' " + q(lines(30, 2, 15, 28)) +
                    " > notes.txt"
                    " && rm README.md && echo new > new.txt && sed -i 's/return/  return/' "
                    "src/main.c && printf '#!/bin/sh\\necho hi\\n' > tool.sh && chmod +x tool.sh");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  if (packages == 0) {
    return;
  }
  r = w.in_view(
      "python3 -c " +
      q("import os\nfor p in range(" + std::to_string(packages) +
        "):\n"
        "    d = 'node_modules/pkg%d/lib' % p\n"
        "    os.makedirs(d)\n"
        "    for i in range(100):\n"
        "        open('%s/f%d.js' % (d, i), 'w').write('module.exports = %d;\\n' % i)\n"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
}

} // namespace ws::test
