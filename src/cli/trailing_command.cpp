// Where ws's arguments end and the agent's command begins (trailing_command.hpp).
#include "src/cli/trailing_command.hpp"

#include <CLI/CLI.hpp>

namespace ws {

namespace {

enum class Arity { Unknown, Flag, Value, ValueAttached };

/// What `arg` ("--writable", "--network=off", "-C", "-Cdir", "-vv") is among `app`'s options.
Arity arity(const CLI::App& app, const std::string& arg) {
  for (const CLI::Option* opt : app.get_options()) {
    // A counting flag (-v/-vv) has a type size but expects no value.
    bool takes = opt->get_type_size() != 0 && opt->get_expected_max() != 0;
    if (arg.rfind("--", 0) == 0) {
      std::string name = arg.substr(2, arg.find('=') - 2);
      for (const auto& l : opt->get_lnames()) {
        if (l == name) {
          return !takes                               ? Arity::Flag
                 : arg.find('=') != std::string::npos ? Arity::ValueAttached
                                                      : Arity::Value;
        }
      }
    } else if (arg.size() >= 2) {
      for (const auto& s : opt->get_snames()) {
        if (s == arg.substr(1, 1)) {
          return !takes ? Arity::Flag : arg.size() > 2 ? Arity::ValueAttached : Arity::Value;
        }
      }
    }
  }
  return Arity::Unknown;
}

/// `arg`'s arity in `command` or, failing that, among the global options.
Arity arity_in(const CLI::App& app, const CLI::App* command, const std::string& arg) {
  Arity a = command ? arity(*command, arg) : Arity::Unknown;
  return a != Arity::Unknown ? a : arity(app, arg);
}

} // namespace

TrailingCommand split_trailing_command(const CLI::App& app, std::vector<std::string>& args) {
  const CLI::App* command = nullptr;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (command && arg == "--") {
      std::vector<std::string> rest(args.begin() + static_cast<long>(i) + 1, args.end());
      args.erase(args.begin() + static_cast<long>(i), args.end());
      return {rest, {}};
    }
    if (arg.size() > 1 && arg[0] == '-') {
      if (arity_in(app, command, arg) == Arity::Value) {
        ++i; // its value
      }
      continue;
    }
    if (command) {
      TrailingCommand out;
      if (i + 1 < args.size() && args[i + 1] == "--") {
        out.profile = arg;
        out.words.assign(args.begin() + static_cast<long>(i) + 2, args.end());
      } else {
        out.words.assign(args.begin() + static_cast<long>(i), args.end());
      }
      args.erase(args.begin() + static_cast<long>(i), args.end());
      return out;
    }
    const CLI::App* sub = nullptr;
    for (const CLI::App* s : app.get_subcommands({})) {
      if (s->get_name() == arg) {
        sub = s;
      }
    }
    if (!sub || !sub->get_prefix_command()) {
      return {}; // another command, or none: CLI11 parses it all
    }
    command = sub;
  }
  return {};
}

} // namespace ws
