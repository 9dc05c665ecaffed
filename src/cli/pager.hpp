#pragma once

#include <cstdio>
#include <string>

namespace ws {

/// Where long output goes: the person's pager when stdout is a terminal (git's rules:
/// GIT_PAGER, PAGER, else `less` with LESS=FRX), stdout otherwise. Closing waits for the
/// pager; a pager quit early is not an error.
class Output {
public:
  explicit Output(bool use_pager);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  FILE* file() const { return m_file; }
  void write(const std::string& s) const { std::fwrite(s.data(), 1, s.size(), m_file); }

private:
  FILE* m_file = stdout;
  FILE* m_pipe = nullptr;
};

/// --color=auto|always|never, NO_COLOR and TERM=dumb honoured for auto.
bool use_color(const std::string& option, int fd);

} // namespace ws
