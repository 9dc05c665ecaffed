// The command line as data (cli_spec.hpp): CLI11's definition read back.
#include "src/cli/cli_spec.hpp"

#include <CLI/CLI.hpp>

#include <cctype>

namespace ws {

namespace {

std::string upper(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s;
}

/// CLI11's full type name is "PLACEHOLDER[:VALIDATOR...]"; an IsMember validator reads
/// "{a,b,c}".
void read_type(const CLI::Option* opt, std::string& value, std::vector<std::string>& choices) {
  std::string type = opt->get_type_name();
  size_t colon = type.find(':');
  value = type.substr(0, colon);
  while (colon != std::string::npos) {
    size_t next = type.find(':', colon + 1);
    std::string v = type.substr(colon + 1, next == std::string::npos ? next : next - colon - 1);
    if (v.size() > 2 && v.front() == '{' && v.back() == '}') {
      std::string list = v.substr(1, v.size() - 2);
      for (size_t at = 0; at <= list.size();) {
        size_t comma = list.find(',', at);
        choices.push_back(list.substr(at, comma == std::string::npos ? comma : comma - at));
        at = comma == std::string::npos ? list.size() + 1 : comma + 1;
      }
    }
    colon = next;
  }
}

OptionSpec option_spec(const CLI::Option* opt) {
  OptionSpec o;
  o.short_names = opt->get_snames();
  o.long_names = opt->get_lnames();
  o.description = opt->get_description();
  o.env = opt->get_envname();
  if (opt->get_type_size() != 0) {
    read_type(opt, o.value, o.choices);
    o.repeatable = opt->get_expected_max() == CLI::detail::expected_max_vector_size ||
                   opt->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  }
  return o;
}

std::vector<OptionSpec> options_of(const CLI::App& app) {
  std::vector<OptionSpec> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->nonpositional() && !opt->get_group().empty()) {
      out.push_back(option_spec(opt));
    }
  }
  return out;
}

CommandSpec command_spec(const CLI::App& sub) {
  CommandSpec c;
  c.name = sub.get_name();
  c.description = sub.get_description();
  c.footer = sub.get_footer();
  c.options = options_of(sub);
  for (const CLI::Option* opt : sub.get_options()) {
    if (!opt->get_positional() || opt->nonpositional()) {
      continue;
    }
    PositionalSpec p;
    p.name = upper(opt->get_name(true));
    std::vector<std::string> ignored;
    read_type(opt, p.value, ignored);
    p.description = opt->get_description();
    p.required = opt->get_required();
    p.many = opt->get_expected_max() == CLI::detail::expected_max_vector_size;
    c.positionals.push_back(std::move(p));
  }
  c.trailing_command = sub.get_prefix_command();
  for (const CLI::App* nested : sub.get_subcommands({})) {
    if (!nested->get_group().empty()) {
      c.subcommands.push_back(command_spec(*nested));
    }
  }
  return c;
}

} // namespace

std::string OptionSpec::names() const {
  std::string out;
  for (const auto& s : short_names) {
    out += (out.empty() ? "-" : ", -") + s;
  }
  for (const auto& l : long_names) {
    out += (out.empty() ? "--" : ", --") + l;
  }
  return out;
}

std::string CommandSpec::synopsis(const std::string& prefix) const {
  std::string out = prefix + " " + name;
  if (!subcommands.empty()) {
    return out + " COMMAND [ARGS...]";
  }
  if (!options.empty()) {
    out += " [OPTIONS]";
  }
  for (const auto& p : positionals) {
    std::string s = p.name + (p.many ? "..." : "");
    out += " " + (p.required ? s : "[" + s + "]");
  }
  if (trailing_command) {
    out += " [--] COMMAND [ARGS...]";
  }
  return out;
}

CliSpec describe_cli(const CLI::App& app) {
  CliSpec spec;
  spec.program = app.get_name();
  spec.description = app.get_description();
  spec.global = options_of(app);
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!sub->get_group().empty()) { // else internal (__daemon, __man, ...)
      spec.commands.push_back(command_spec(*sub));
    }
  }
  // `ws help COMMAND`: one of ws's own commands
  for (CommandSpec& c : spec.commands) {
    for (PositionalSpec& p : c.positionals) {
      if (p.value == "COMMAND") {
        for (const CommandSpec& other : spec.commands) {
          p.choices.push_back(other.name);
        }
      }
    }
  }
  return spec;
}

ValueKind value_kind(const std::string& value) {
  if (value == "PATH" || value == "FILE") {
    return ValueKind::File;
  }
  if (value == "DIR") {
    return ValueKind::Directory;
  }
  if (value == "WORKSPACE") {
    return ValueKind::Workspace;
  }
  if (value == "PROFILE") {
    return ValueKind::Profile;
  }
  if (value == "NAME[=VALUE]") {
    return ValueKind::EnvName;
  }
  if (value == "COMMAND") {
    return ValueKind::Command;
  }
  return ValueKind::None;
}

} // namespace ws
