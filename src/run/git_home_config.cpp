// The agent's ~/.gitconfig (git_home_config.hpp). An allowlist, not a denylist: a person's
// global config holds tokens in places no list foresees (url.<https://TOKEN@host/>.insteadOf,
// http.extraHeader, credential.helper = !echo password=..., sendemail.smtpPass, github.token),
// and each tool adds its own keys.
#include "src/run/git_home_config.hpp"

#include <algorithm>
#include <string_view>

namespace ws {

namespace {

/// Whole sections (no subsection) whose every key is data: colours, advice toggles.
constexpr std::string_view k_sections[] = {"color", "advice"};

/// Single keys (section.key, no subsection) that are data git needs to behave as the person
/// expects. A path here (core.excludesFile) only names a file; what the agent sees of it is
/// what the sandbox shows.
constexpr std::string_view k_keys[] = {
    "user.name",
    "user.email",
    "user.useconfigonly",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "init.defaultbranch",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.filemode",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.quotepath",
    "core.whitespace",
    "core.excludesfile",
    "core.attributesfile",
    "core.abbrev",
    "core.commentchar",
    "core.symlinks",
    "core.editor",
    "core.pager",
    "core.untrackedcache",
    "core.preloadindex",
    "core.checkstat",
    "core.trustctime",
    "core.compression",
    "core.bigfilethreshold",
    "core.logallrefupdates",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "push.autosetupremote",
    "push.followtags",
    "fetch.prune",
    "fetch.prunetags",
    "fetch.parallel",
    "rebase.autostash",
    "rebase.autosquash",
    "rebase.updaterefs",
    "rebase.stat",
    "merge.conflictstyle",
    "merge.ff",
    "merge.log",
    "merge.renamelimit",
    "merge.stat",
    "diff.algorithm",
    "diff.renames",
    "diff.renamelimit",
    "diff.colormoved",
    "diff.colormovedws",
    "diff.mnemonicprefix",
    "diff.noprefix",
    "diff.relative",
    "diff.submodule",
    "diff.context",
    "diff.interhunkcontext",
    "diff.indentheuristic",
    "diff.wserrorhighlight",
    "status.showuntrackedfiles",
    "status.short",
    "status.branch",
    "status.submodulesummary",
    "status.relativepaths",
    "status.aheadbehind",
    "status.showstash",
    "log.date",
    "log.decorate",
    "log.abbrevcommit",
    "log.follow",
    "log.mailmap",
    "format.pretty",
    "commit.verbose",
    "commit.cleanup",
    "commit.status",
    "branch.autosetupmerge",
    "branch.autosetuprebase",
    "branch.sort",
    "tag.sort",
    "column.ui",
    "help.autocorrect",
    "rerere.enabled",
    "rerere.autoupdate",
    "submodule.recurse",
    "submodule.fetchjobs",
    "protocol.version",
    "transfer.fsckobjects",
    "fetch.fsckobjects",
    "receive.fsckobjects",
    "safe.directory",
    "gc.auto",
    "index.version",
    "feature.manyfiles",
    "interactive.singlekey",
    "i18n.commitencoding",
    "i18n.logoutputencoding",
    "grep.linenumber",
    "grep.patterntype",
    "grep.extendedregexp",
    "am.threeway",
    "apply.whitespace",
};

/// git-lfs's own filter, as `git lfs install` writes it: the person's LFS files check out the
/// same inside. Any other value (a filter is a command) is not shown.
constexpr std::pair<std::string_view, std::string_view> k_lfs[] = {
    {"filter.lfs.clean", "git-lfs clean -- %f"},
    {"filter.lfs.smudge", "git-lfs smudge -- %f"},
    {"filter.lfs.process", "git-lfs filter-process"},
    {"filter.lfs.required", "true"},
};

} // namespace

bool agent_may_see(const gitbridge::GlobalConfigEntry& e) {
  std::string_view name = e.name;
  size_t first = name.find('.');
  size_t last = name.rfind('.');
  if (first == std::string_view::npos) {
    return false;
  }
  for (const auto& [key, value] : k_lfs) {
    if (name == key) {
      return !e.bare && e.value == value;
    }
  }
  std::string_view section = name.substr(0, first);
  if (std::find(std::begin(k_sections), std::end(k_sections), section) != std::end(k_sections)) {
    return true; // color.diff.meta too
  }
  if (first != last) {
    // A subsection: a remote, a URL, a driver, a branch, a credential context. None is data
    // the agent's git needs from the person, and URLs and commands are where tokens hide.
    return false;
  }
  if (section == "alias") {
    // `!cmd` runs a shell command (a token in a curl header); a plain alias is git's own.
    return !e.bare && !e.value.starts_with('!');
  }
  return std::find(std::begin(k_keys), std::end(k_keys), name) != std::end(k_keys);
}

AgentGitConfig agent_git_config(const std::filesystem::path& project) {
  std::vector<gitbridge::GlobalConfigEntry> all = gitbridge::global_config_entries(project);
  std::vector<gitbridge::GlobalConfigEntry> kept;
  AgentGitConfig out;
  for (auto& e : all) {
    if (agent_may_see(e)) {
      kept.push_back(std::move(e));
      continue;
    }
    // Never the subsection: it is where a URL's token is (url.<https://TOKEN@host/>.insteadOf).
    size_t first = e.name.find('.'), last = e.name.rfind('.');
    std::string shown =
        first == last ? e.name : e.name.substr(0, first) + ".*" + e.name.substr(last);
    if (std::find(out.dropped.begin(), out.dropped.end(), shown) == out.dropped.end()) {
      out.dropped.push_back(shown);
    }
  }
  out.text = gitbridge::config_text(kept);
  return out;
}

} // namespace ws
