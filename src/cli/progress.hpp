#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace ws {

/// A one-line progress report on stderr for an operation that may take more than a second
/// (a checkpoint, an apply of many files, loading a review):
///   ws: apply: merging 1234/20000  (3 s)
/// Drawn only when stderr is a terminal, only once the operation has run for half a second
/// (a quick one prints nothing), redrawn ten times a second by a thread of its own (so a
/// step that blocks still shows its time), cut to the terminal's width, and erased when the
/// Progress finishes or ends: what is printed next starts on a clean line. Logs stay with
/// spdlog; this is only for the person watching. step() and finish() belong to the owning
/// thread; advance() and set() may be called from any thread, and cost an atomic add.
class Progress {
public:
  /// `operation` names what runs ("apply"). WS_PROGRESS_DELAY_MS overrides the delay (tests).
  explicit Progress(std::string operation);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// A new step ("merging"), of `total` items (0: not counted; then its time shows).
  void step(std::string label, std::uint64_t total = 0);
  void advance(std::uint64_t n = 1);
  void set(std::uint64_t done);
  /// Erases the line and stops drawing (before printing results).
  void finish();
  /// True when this Progress draws at all (stderr is a terminal).
  bool shown() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace ws
