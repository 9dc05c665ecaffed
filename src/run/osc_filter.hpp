#pragma once

#include <cstddef>
#include <string>

namespace ws {

/// The agent's terminal output on its way to the person's terminal, minus OSC 52: the
/// sequence that sets the person's clipboard (`ESC ] 52 ; c ; BASE64 BEL`, which the person
/// would later paste into an unconfined shell) or asks the terminal for it (`...;?`, the
/// answer would hand the clipboard to the agent). Everything else passes byte for byte:
/// colours, cursor movement, the alternate screen, titles, hyperlinks (OSC 8), bracketed
/// paste. A stream filter: a sequence may be split across reads, the bytes that could
/// start one are held until the next byte decides. Introducers recognised: `ESC ]`, the C1
/// OSC as UTF-8 (U+009D, which VTE-based terminals obey) and as a lone byte (8-bit
/// terminals); the number as the terminal reads it (`052` is 52). A dropped sequence ends
/// at BEL, `ESC \`, ST (0x9c), CAN or SUB, or at an ESC that starts another sequence.
class OscFilter {
public:
  /// Appends to `out` what of `data` the person's terminal may see now.
  void feed(const char* data, size_t n, std::string& out);

private:
  enum class State { Ground, Esc, C2, Number, Drop, DropEsc };
  void step(unsigned char b, std::string& out);

  State m_state = State::Ground;
  std::string m_held; ///< an introducer and digits not yet decided
  unsigned long m_number = 0;
  int m_utf8_left = 0; ///< continuation bytes still due in Ground (a 0x9d there is text)
};

} // namespace ws
