// OSC 52 out of the agent's terminal output (osc_filter.hpp). The states follow the VT500
// parser's (Paul Williams' state diagram, as xterm, VTE and kitty implement it): an ESC in
// an OSC string ends the string and starts an escape sequence.
#include "src/run/osc_filter.hpp"

namespace ws {

namespace {
constexpr unsigned char k_esc = 0x1b;
constexpr unsigned char k_bel = 0x07;
constexpr unsigned char k_can = 0x18;
constexpr unsigned char k_sub = 0x1a;
constexpr unsigned char k_c1_osc = 0x9d;
constexpr unsigned char k_c1_st = 0x9c;
constexpr size_t k_max_digits = 9; // more: no terminal command, dropped as suspicious
} // namespace

void OscFilter::feed(const char* data, size_t n, std::string& out) {
  for (size_t i = 0; i < n; ++i) {
    step(static_cast<unsigned char>(data[i]), out);
  }
}

void OscFilter::step(unsigned char b, std::string& out) {
  switch (m_state) {
  case State::Ground:
    if (b == k_esc) {
      m_held.assign(1, static_cast<char>(b));
      m_state = State::Esc;
    } else if (b == k_c1_osc && m_utf8_left == 0) {
      m_held.assign(1, static_cast<char>(b));
      m_number = 0;
      m_state = State::Number;
    } else if (b == 0xc2 && m_utf8_left == 0) {
      m_held.assign(1, static_cast<char>(b));
      m_state = State::C2;
    } else {
      out.push_back(static_cast<char>(b));
      if (b >= 0x80 && b < 0xc0 && m_utf8_left > 0) {
        --m_utf8_left;
      } else {
        m_utf8_left = b >= 0xf0 && b < 0xf8   ? 3
                      : b >= 0xe0 && b < 0xf0 ? 2
                      : b >= 0xc0 && b < 0xe0 ? 1
                                              : 0;
      }
    }
    return;
  case State::Esc:
  case State::C2:
    if ((m_state == State::Esc && b == ']') || (m_state == State::C2 && b == k_c1_osc)) {
      m_held.push_back(static_cast<char>(b));
      m_number = 0;
      m_state = State::Number;
      return;
    }
    out += m_held;
    m_utf8_left = m_state == State::C2 ? 1 : 0;
    m_state = State::Ground;
    step(b, out);
    return;
  case State::Number:
    if (b >= '0' && b <= '9' && m_held.size() < 3 + k_max_digits) {
      m_held.push_back(static_cast<char>(b));
      m_number = m_number * 10 + (b - '0');
      return;
    }
    if (m_number == 52 || (b >= '0' && b <= '9')) {
      m_held.clear();
      m_state = State::Drop;
    } else {
      out += m_held;
      m_utf8_left = 0;
      m_state = State::Ground;
    }
    step(b, out);
    return;
  case State::Drop:
    if (b == k_esc) {
      m_state = State::DropEsc;
    } else if (b == k_bel || b == k_c1_st || b == k_can || b == k_sub) {
      m_utf8_left = 0;
      m_state = State::Ground;
    }
    return;
  case State::DropEsc:
    if (b == '\\') {
      m_utf8_left = 0;
      m_state = State::Ground;
      return;
    }
    m_held.assign(1, static_cast<char>(k_esc)); // the ESC ended the string, starts another
    m_state = State::Esc;
    step(b, out);
    return;
  }
}

} // namespace ws
