// Help and usage errors (usage.hpp).
#include "src/cli/usage.hpp"

#include "src/cli/cli_spec.hpp"
#include "src/cli/text.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace ws {

namespace {

const CLI::App* root_of(const CLI::App* app) {
  while (app->get_parent()) {
    app = app->get_parent();
  }
  return app;
}

/// "ws [-C DIR] [-w WORKSPACE]": the program and the global options that take a value.
std::string program_with_globals(const CLI::App* root) {
  std::string out = root->get_name();
  for (const OptionSpec& o : describe_cli(*root).global) {
    if (!o.short_names.empty() && !o.value.empty()) {
      out += " [-" + o.short_names.front() + " " + o.value + "]";
    }
  }
  return out;
}

/// The deepest command the parser entered, or the root.
const CLI::App* current_command(const CLI::App& app) {
  const CLI::App* at = &app;
  for (;;) {
    std::vector<CLI::App*> parsed = at->get_subcommands();
    if (parsed.empty()) {
      return at;
    }
    at = parsed.front();
  }
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// neighbours ("stauts" is one edit from "status").
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) {
    d[i][0] = i;
  }
  for (size_t j = 0; j <= b.size(); ++j) {
    d[0][j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string quoted_list(const std::vector<std::string>& items, const std::string& prefix) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) {
    out += (k == 0 ? "" : k + 1 == items.size() ? " or " : ", ") + ("'" + prefix + items[k] + "'");
  }
  return out;
}

std::vector<std::string> option_names(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->get_group().empty()) {
      continue;
    }
    for (const auto& s : opt->get_snames()) {
      out.push_back("-" + s);
    }
    for (const auto& l : opt->get_lnames()) {
      out.push_back("--" + l);
    }
  }
  return out;
}

std::vector<std::string> command_names(const CLI::App& root) {
  std::vector<std::string> out;
  for (const CLI::App* sub : root.get_subcommands({})) {
    if (!sub->get_group().empty()) {
      out.push_back(sub->get_name());
    }
  }
  return out;
}

/// The names from the root's command down to `app` ("profile", "diff"); empty for the root.
std::vector<std::string> command_path(const CLI::App* app) {
  std::vector<std::string> out;
  for (; app && app->get_parent(); app = app->get_parent()) {
    out.insert(out.begin(), app->get_name());
  }
  return out;
}

/// `app`'s description in `spec`, or null (an internal command).
const CommandSpec* find_command(const CliSpec& spec, const CLI::App* app) {
  const std::vector<CommandSpec>* level = &spec.commands;
  const CommandSpec* found = nullptr;
  for (const std::string& name : command_path(app)) {
    auto it = std::find_if(level->begin(), level->end(),
                           [&](const CommandSpec& c) { return c.name == name; });
    if (it == level->end()) {
      return nullptr;
    }
    found = &*it;
    level = &it->subcommands;
  }
  return found;
}

/// A value CLI11 could not take, from its words: "Could not convert: checkpoint = abc",
/// "--max-procs: Value x not in range 0.000000 to 1.797693e+308".
struct BadValue {
  std::string name;     ///< "--max-procs", or a positional's placeholder ("CHECKPOINT")
  std::string value;    ///< as typed
  std::string expected; ///< what would do, when known
};

/// An option's placeholder ("HOW") without the set CLI11 appends to it ("HOW:{refuse,markers}").
std::string placeholder(const CLI::Option& opt) {
  std::string type = opt.get_type_name();
  return type.substr(0, type.find(":{"));
}

/// "one of 'refuse' or 'markers'", from CLI11's set "{refuse,markers}".
std::string one_of(const std::string& set) {
  std::vector<std::string> items;
  for (size_t at = 1; at < set.size();) {
    size_t end = set.find(',', at);
    end = end == std::string::npos ? set.size() - 1 : end;
    items.push_back(set.substr(at, end - at));
    at = end + 1;
  }
  return "one of " + quoted_list(items, "");
}

/// What an option takes, for a hint: "--message MSG: What this state is", or the values an
/// option takes from a set ("one of 'refuse' or 'markers'").
std::string option_hint(const CLI::Option& opt) {
  std::string type = opt.get_type_name();
  if (size_t set = type.find(":{"); set != std::string::npos && type.back() == '}') {
    return one_of(type.substr(set + 1));
  }
  std::string about = opt.get_description();
  return opt.get_name() + " " + type + (about.empty() ? "" : ": " + about);
}

std::optional<BadValue> bad_value(const CLI::App& command, const CLI::ParseError& e) {
  std::string what = e.what();
  BadValue bad;
  const std::string convert = "Could not convert: ", value = ": Value ", range = " not in range ",
                    member = " not in {";
  if (dynamic_cast<const CLI::ConversionError*>(&e) && what.rfind(convert, 0) == 0 &&
      what.find(" = ") != std::string::npos) {
    size_t eq = what.find(" = ");
    bad.name = what.substr(convert.size(), eq - convert.size());
    bad.value = what.substr(eq + 3);
  } else if (dynamic_cast<const CLI::ValidationError*>(&e) &&
             what.find(value) != std::string::npos && what.find(range) != std::string::npos) {
    size_t at = what.find(value), to = what.find(range);
    bad.name = what.substr(0, at);
    bad.value = what.substr(at + value.size(), to - at - value.size());
    // CLI::PositiveNumber's range starts at the smallest double
    bad.expected = what.compare(to + range.size(), 9, "0.000000 ") == 0
                       ? "a number greater than 0"
                       : "a number in range " + what.substr(to + range.size());
  } else if (dynamic_cast<const CLI::ValidationError*>(&e) &&
             what.find(": ") != std::string::npos && what.rfind(member) != std::string::npos &&
             what.rfind(member) > what.find(": ")) {
    // CLI::IsMember: "--conflicts: bogus not in {refuse,markers}"
    size_t colon = what.find(": "), in = what.rfind(member);
    bad.name = what.substr(0, colon);
    bad.value = what.substr(colon + 2, in - colon - 2);
    bad.expected = one_of(what.substr(in + member.size() - 1));
  } else {
    return std::nullopt;
  }
  if (const CLI::Option* opt = command.get_option_no_throw(bad.name)) {
    if (opt->get_lnames().empty() && opt->get_snames().empty()) { // a positional
      for (char& c : bad.name) {
        c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
      }
    }
    if (bad.expected.empty() && opt->get_type_name() == "N") {
      bad.expected = "a number";
    }
  }
  return bad;
}

/// The option of `command` given without its value ("--message: 1 required MSG missing"), or
/// null for another error.
const CLI::Option* missing_value(const CLI::App& command, const CLI::ParseError& e) {
  std::string what = e.what();
  size_t colon = what.find(": ");
  if (!dynamic_cast<const CLI::ArgumentMismatch*>(&e) || colon == std::string::npos ||
      what.find(" required ", colon) == std::string::npos ||
      what.compare(what.size() - 8, 8, " missing") != 0) {
    return nullptr;
  }
  for (const CLI::App* at = &command; at; at = at->get_parent()) { // -C and -w: the root's
    if (const CLI::Option* opt = at->get_option_no_throw(what.substr(0, colon))) {
      return opt;
    }
  }
  return nullptr;
}

} // namespace

std::string HelpFormatter::make_usage(const CLI::App* app, std::string name) const {
  const CLI::App* root = root_of(app);
  if (app == root) {
    return "Usage: " + program_with_globals(root) + " COMMAND [OPTIONS] [ARGS...]\n";
  }
  CliSpec spec = describe_cli(*root);
  if (const CommandSpec* c = find_command(spec, app)) {
    std::string prefix = program_with_globals(root);
    for (const std::string& outer : command_path(app->get_parent())) {
      prefix += " " + outer;
    }
    return "Usage: " + c->synopsis(prefix) + "\n";
  }
  return CLI::Formatter::make_usage(app, name);
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  std::string footer = CLI::Formatter::make_footer(app);
  const CLI::App* root = root_of(app);
  if (app == root) {
    return footer + "'" + root->get_name() + " COMMAND --help' (or 'man " + root->get_name() +
           "-COMMAND') tells more about each command; '" + root->get_name() +
           " doctor' checks this machine.\n";
  }
  std::string globals;
  for (const OptionSpec& o : describe_cli(*root).global) {
    if (o.long_names.size() == 1 &&
        (o.long_names.front() == "help" || o.long_names.front() == "version")) {
      continue;
    }
    std::string names;
    for (const auto& s : o.short_names) {
      names += (names.empty() ? "-" : "/-") + s;
    }
    for (const auto& l : o.long_names) {
      names += (names.empty() ? "--" : "/--") + l;
    }
    globals += (globals.empty() ? "" : ", ") + names + (o.value.empty() ? "" : " " + o.value);
  }
  return footer + (footer.empty() ? "" : "\n") +
         "Global options, before or after the command: " + globals + " (see '" + root->get_name() +
         " --help').\n";
}

std::vector<std::string> closest(const std::string& word,
                                 const std::vector<std::string>& candidates) {
  auto bare = [](const std::string& s) {
    return s.substr(s.find_first_not_of('-') == std::string::npos ? 0 : s.find_first_not_of('-'));
  };
  std::string w = bare(word);
  if (w.size() < 2) {
    return {}; // one letter is one edit from every other: no guess is better than another
  }
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    std::string b = bare(c);
    size_t d = edit_distance(w, b);
    bool close = d <= std::max<size_t>(1, std::min(w.size(), b.size()) / 3);
    bool prefix = w.size() >= 2 && b.rfind(w, 0) == 0;
    if ((close || prefix) && d > 0) {
      scored.emplace_back(prefix ? 0 : d, c);
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (std::find(out.begin(), out.end(), s.second) == out.end() && out.size() < 4) {
      out.push_back(s.second);
    }
  }
  return out;
}

int report_usage_error(CLI::App& app, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::CallForHelp*>(&e) || dynamic_cast<const CLI::CallForAllHelp*>(&e) ||
      dynamic_cast<const CLI::CallForVersion*>(&e)) {
    return app.exit(e);
  }
  const CLI::App* command = current_command(app);
  std::string program = app.get_name();
  std::string where = program;
  for (const std::string& name : command_path(command)) {
    where += " " + name;
  }
  std::string what = e.what();
  std::string hint;
  bool unknown_command = false;
  const std::string required = " is required";
  std::vector<std::string> commands = command_names(*command);
  auto first_word = [&]() -> std::optional<std::string> {
    for (const std::string& a : app.remaining(true)) {
      if (a.empty() || a[0] != '-') {
        return a;
      }
    }
    return std::nullopt;
  };
  if (command != &app && !commands.empty() && command->get_subcommands().empty() &&
      (dynamic_cast<const CLI::RequiredError*>(&e) || dynamic_cast<const CLI::ExtrasError*>(&e)) &&
      !first_word()) {
    // `ws profile` alone: a command of commands needs one of them
    std::string list;
    for (size_t k = 0; k < commands.size(); ++k) {
      list += (k == 0 ? "" : k + 1 == commands.size() ? " or " : ", ") + commands[k];
    }
    what = "'" + where + "' needs a command: " + list;
  } else if (command != &app && !commands.empty() && command->get_subcommands().empty() &&
             (dynamic_cast<const CLI::RequiredError*>(&e) ||
              dynamic_cast<const CLI::ExtrasError*>(&e))) {
    unknown_command = true;
    std::string word = *first_word();
    what = "'" + word + "' is not a '" + where + "' command";
    auto near = closest(word, commands);
    hint = near.empty() ? "'" + where + " --help' lists its commands"
                        : "did you mean " + quoted_list(near, where + " ") + "?";
  } else if (dynamic_cast<const CLI::RequiredError*>(&e) && what.size() > required.size() &&
             what.compare(what.size() - required.size(), required.size(), required) == 0 &&
             what.find(' ') == what.size() - required.size()) {
    // CLI11 names the positional by its variable ("name is required")
    std::string name = what.substr(0, what.size() - required.size());
    for (char& c : name) {
      c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    what = "'" + where + "' needs " + name;
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::vector<std::string> extras = app.remaining(true);
    auto unknown = std::find_if(extras.begin(), extras.end(),
                                [](const std::string& a) { return a.size() > 1 && a[0] == '-'; });
    // At the top, a word before any option can only be a mistyped command, whatever follows
    // it (`ws chekpoint -m x`, `ws rn -- claude`): the options are that command's.
    bool command_first =
        command == &app && !extras.empty() && extras.front().size() > 0 && extras.front()[0] != '-';
    if (unknown != extras.end() && !command_first) {
      std::string name = unknown->substr(0, unknown->find('='));
      what = "unknown option '" + name + "'" + (command == &app ? "" : " for '" + where + "'");
      std::vector<std::string> candidates = option_names(command);
      if (command != &app) {
        std::vector<std::string> global = option_names(&app);
        candidates.insert(candidates.end(), global.begin(), global.end());
      }
      if (auto near = closest(name, candidates); !near.empty()) {
        hint = "did you mean " + quoted_list(near, "") + "?";
      }
    } else if (!extras.empty() && command == &app) {
      unknown_command = true;
      what = "'" + extras.front() + "' is not a " + program + " command";
      auto near = closest(extras.front(), command_names(app));
      hint = near.empty() ? "'" + program + " --help' lists every command"
                          : "did you mean " + quoted_list(near, program + " ") + "?";
    } else if (!extras.empty()) {
      what = "'" + where + "' takes no argument '" + extras.front() + "'";
    }
  } else if (auto bad = bad_value(*command, e)) {
    what = "'" + bad->value + "' is not a valid " + bad->name + " for '" + where + "'";
    hint = bad->expected;
  } else if (const CLI::Option* opt = missing_value(*command, e)) {
    what = "'" + where + " " + opt->get_name() + "' needs " + placeholder(*opt);
    hint = option_hint(*opt);
  }
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), visible_text(what).c_str());
  if (!hint.empty()) {
    std::fprintf(stderr, "hint: %s\n", visible_text(hint).c_str());
  }
  if (unknown_command) {
    std::fprintf(stderr, "%s", HelpFormatter().make_usage(command, program).c_str());
  } else {
    std::fprintf(stderr, "\n%s", command->help(command == &app ? "" : program).c_str());
  }
  return 2;
}

int print_command_help(const CLI::App& app, const std::vector<std::string>& words) {
  const CLI::App* at = &app;
  std::string where = app.get_name();
  for (const std::string& word : words) {
    const CLI::App* found = nullptr;
    for (const CLI::App* sub : at->get_subcommands({})) {
      if (!sub->get_group().empty() && sub->get_name() == word) {
        found = sub;
      }
    }
    if (!found) {
      std::string whose = at == &app ? where : "'" + where + "'";
      std::fprintf(stderr, "%s: error: '%s' is not a %s command\n", app.get_name().c_str(),
                   visible_text(word).c_str(), whose.c_str());
      std::vector<std::string> names = command_names(*at);
      auto near = closest(word, names);
      std::string help = app.get_name() + " help" + where.substr(app.get_name().size());
      std::fprintf(stderr, "hint: %s\n",
                   near.empty() ? ("'" + where + " --help' lists every command").c_str()
                                : ("did you mean " + quoted_list(near, help + " ") + "?").c_str());
      return 2;
    }
    at = found;
    where += " " + word;
  }
  std::printf("%s", at->help(at == &app ? "" : app.get_name()).c_str());
  return 0;
}

} // namespace ws
