// The session loop: the model, the terminal and the prompts between them. Keys come from
// one queue: those typed while something loaded first, in the order typed, then the
// terminal's. Nothing here knows curses (tui/screen.cpp does).
#include "tui/session.hpp"

#include "tui/keymap.hpp"
#include "tui/render.hpp"

namespace ws::tui {

namespace {

/// How often a wait looks at its work and the keys (ms).
constexpr int k_wait_poll_ms = 50;
/// How long a key read blocks before the signal flag is looked at again (ms).
constexpr int k_key_poll_ms = 200;

SessionResult interrupted() {
  return {SessionResult::Kind::Interrupted, {}, {}, false};
}

} // namespace

std::string progress_text(const Progress& p) {
  if (p.total == 0) {
    return p.step + "...";
  }
  return p.step + ": " + with_commas(p.done) + " of " + with_commas(p.total);
}

Frame render_loading(const std::string& workspace, const Progress& progress, size_t pending,
                     int width, int height) {
  Frame fr;
  fr.width = std::max(1, width);
  fr.height = std::max(1, height);
  size_t w = static_cast<size_t>(fr.width);
  std::vector<std::pair<std::string, Style>> lines = {
      {" ws review  workspace '" + workspace + "'  loading", Style::Title},
      {"", Style::Normal},
      {"  " + progress_text(progress), Style::Normal},
      {"", Style::Normal},
      {"  The list shows once every change has its verdict; diffs are read as you open them.",
       Style::Dim},
  };
  if (pending > 0) {
    lines.push_back({"  " + std::to_string(pending) + (pending == 1 ? " key" : " keys") +
                         " waiting: applied in the order typed once the list is shown",
                     Style::Note});
  }
  for (int r = 0; r < fr.height; ++r) {
    size_t i = static_cast<size_t>(r);
    if (r == fr.height - 1 && fr.height > 1) {
      fr.rows.push_back(
          text_line(" Ctrl-C leaves; keys typed now are kept for the review", Style::Status, w));
    } else if (i < lines.size()) {
      fr.rows.push_back(text_line(lines[i].first, lines[i].second, w));
    } else {
      fr.rows.push_back(text_line("", Style::Normal, w));
    }
  }
  return fr;
}

ReviewSession::ReviewSession(Terminal& terminal, std::string workspace)
    : m_terminal(terminal), m_workspace(std::move(workspace)) {}

bool ReviewSession::wait(const std::function<Progress()>& progress,
                         const std::function<bool()>& ready,
                         const std::function<ReviewModel*()>& preview) {
  for (;;) {
    if (ready()) {
      return true;
    }
    if (m_terminal.interrupted()) {
      return false;
    }
    Progress p = progress();
    auto [w, h] = m_terminal.size();
    ReviewModel* shown = m_model ? m_model : preview ? preview() : nullptr;
    if (shown) {
      std::string kept = m_pending.empty()
                             ? ""
                             : "  (" + std::to_string(m_pending.size()) +
                                   (m_pending.size() == 1 ? " key" : " keys") + " waiting)";
      fit(*shown, w, h);
      std::string note;
      if (shown != m_model) {
        note = "  (" +
               (shown->message().empty() ? "moving works; other keys wait for the list of now"
                                         : shown->message()) +
               ")";
      }
      m_terminal.paint(render(*shown, w, h, Overlay{" " + progress_text(p) + kept + note, false}));
    } else {
      m_terminal.paint(render_loading(m_workspace, p, m_pending.size(), w, h));
    }
    // Everything typed is kept; only Ctrl-C acts now (it leaves), and on a provisional list
    // the keys that move, until one that must wait comes (then every later key waits too).
    for (auto k = m_terminal.key(k_wait_poll_ms); k; k = m_terminal.key(0)) {
      if (*k == k_key_ctrl_c) {
        return false;
      }
      if (*k == k_key_resize) {
        continue;
      }
      std::optional<Action> a = action_for(*k);
      if (shown && shown != m_model && m_pending.empty() && a &&
          (moves_at_once(*a) || (*a == Action::Open && shown->selected_fold()))) {
        fit(*shown, w, h);
        shown->apply(*a);
        break; // shown at once
      }
      m_pending.push_back(*k);
    }
  }
}

size_t ReviewSession::discard_pending() {
  size_t n = m_pending.size();
  m_pending.clear();
  return n;
}

void ReviewSession::draw(const std::string& prompt) {
  auto [w, h] = m_terminal.size();
  fit(*m_model, w, h);
  m_terminal.paint(render(*m_model, w, h, Overlay{prompt, m_help}));
}

std::optional<int> ReviewSession::next_key() {
  if (!m_pending.empty()) {
    int k = m_pending.front();
    m_pending.pop_front();
    return k;
  }
  for (;;) {
    if (m_terminal.interrupted()) {
      return std::nullopt;
    }
    if (auto k = m_terminal.key(k_key_poll_ms)) {
      return k;
    }
  }
}

SessionResult ReviewSession::run(ReviewModel& model, const SessionHooks& hooks) {
  struct Bind {
    ReviewSession& s;
    ~Bind() {
      s.m_model = nullptr;
      s.m_hooks = nullptr;
    }
  } bind{*this};
  m_model = &model;
  m_hooks = &hooks;
  for (;;) {
    draw({});
    std::optional<int> k = next_key();
    if (!k || *k == k_key_ctrl_c) {
      return interrupted();
    }
    if (*k == k_key_resize) {
      continue;
    }
    if (m_help) {
      m_help = false;
      continue;
    }
    std::optional<Action> a = action_for(*k);
    if (!a) {
      continue;
    }
    if (auto r = handle(m_model->apply(*a))) {
      return *r;
    }
  }
}

std::optional<bool> ReviewSession::ask(const std::string& question) {
  for (;;) {
    draw(question);
    std::optional<int> k = next_key();
    if (!k || *k == k_key_ctrl_c) {
      return std::nullopt;
    }
    if (*k == 'y' || *k == 'Y') {
      return true;
    }
    if (*k == 'n' || *k == 'N' || *k == k_key_escape || *k == 'q' || *k == k_key_enter) {
      return false;
    }
  }
}

std::optional<std::string> ReviewSession::read_line(const std::string& prompt, std::string text) {
  m_terminal.show_cursor(true);
  struct CursorOff {
    Terminal& t;
    ~CursorOff() { t.show_cursor(false); }
  } off{m_terminal};
  for (;;) {
    draw(prompt + text);
    std::optional<int> k = next_key();
    if (!k || *k == k_key_ctrl_c || *k == k_key_escape) {
      return std::nullopt;
    }
    if (*k == k_key_enter) {
      return text;
    }
    if (*k == 127) {
      while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xc0) == 0x80) {
        text.pop_back();
      }
      if (!text.empty()) {
        text.pop_back();
      }
    } else if (*k >= 0x20 && *k < 0x100 && *k != 0x7f) {
      text += static_cast<char>(*k);
    }
  }
}

std::optional<SessionResult> ReviewSession::search(Effect e) {
  // In steps between keys: Esc stops it, Ctrl-C leaves, any other key waits its turn.
  while (e == Effect::Searching) {
    auto [done, total] = m_model->search_progress();
    draw(" searching for '" + m_model->last_search() + "': " + with_commas(done) + " of " +
         with_commas(total) + " files (Esc stops)");
    for (auto k = m_terminal.key(0); k; k = m_terminal.key(0)) {
      if (*k == k_key_ctrl_c) {
        return interrupted();
      }
      if (*k == k_key_escape) {
        m_model->stop_search();
        return std::nullopt;
      }
      if (*k != k_key_resize) {
        m_pending.push_back(*k);
      }
    }
    if (m_terminal.interrupted()) {
      return interrupted();
    }
    e = m_model->search_step();
  }
  return std::nullopt;
}

std::optional<SessionResult> ReviewSession::handle(Effect e) {
  switch (e) {
  case Effect::Changed:
    m_hooks->save(*m_model);
    return std::nullopt;
  case Effect::AskOverride: {
    auto yes = ask(m_model->override_question());
    if (!yes) {
      return interrupted();
    }
    if (*yes && m_model->confirm_override() == Effect::Changed) {
      m_hooks->save(*m_model);
    }
    return std::nullopt;
  }
  case Effect::AskSearch:
    if (auto text = read_line("/", "")) {
      return search(m_model->search(*text));
    }
    return std::nullopt;
  case Effect::Searching:
    return search(e);
  case Effect::AskQuit: {
    auto yes = ask("Leave without landing anything? Your decisions are kept for the next "
                   "'ws review' of these changes. y/N");
    if (!yes || *yes) {
      return SessionResult{SessionResult::Kind::Quit, {}, {}, false};
    }
    return std::nullopt;
  }
  case Effect::Quit:
    return SessionResult{SessionResult::Kind::Quit, {}, {}, false};
  case Effect::ShowHelp:
    m_help = true;
    return std::nullopt;
  case Effect::AskFinish:
    return finish();
  default:
    return std::nullopt;
  }
}

std::optional<SessionResult> ReviewSession::finish() {
  std::string prompt = m_hooks->stage_by_default
                           ? "Finish: s stage in the index (Enter)  t tree only  p patch file  "
                             "Esc back"
                           : "Finish: t write to the tree (Enter)  s also stage  p patch file  "
                             "Esc back";
  SessionResult r{SessionResult::Kind::Finish, FinishMode::Stage, {}, false};
  for (bool chosen = false; !chosen;) {
    draw(prompt);
    std::optional<int> k = next_key();
    if (!k || *k == k_key_ctrl_c) {
      return interrupted();
    }
    chosen = true;
    if (*k == 's' || (*k == k_key_enter && m_hooks->stage_by_default)) {
      r.mode = FinishMode::Stage;
    } else if (*k == 't' || *k == k_key_enter) {
      r.mode = FinishMode::Tree;
    } else if (*k == 'p') {
      r.mode = FinishMode::PatchFile;
      auto file = read_line("Write the accepted changes to: ", m_hooks->default_patch_file);
      if (!file || file->empty()) {
        return std::nullopt;
      }
      r.patch_file = *file;
    } else if (*k == k_key_escape || *k == 'q') {
      return std::nullopt;
    } else {
      chosen = false;
    }
  }
  std::optional<bool> fresh = m_hooks->fresh();
  if (!fresh) {
    return interrupted();
  }
  if (!*fresh) {
    auto yes = ask("The workspace changed since this review opened: nothing was landed. Reload "
                   "(decisions on unchanged hunks are kept)? y/N");
    if (yes && *yes) {
      return SessionResult{SessionResult::Kind::Reload, {}, {}, false};
    }
    return std::nullopt;
  }
  r.checked_fresh = true;
  return r;
}

} // namespace ws::tui
