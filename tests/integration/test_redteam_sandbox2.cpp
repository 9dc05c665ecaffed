// Red team (round 22) against `ws run`'s sandbox: kernel interfaces that a network, pid or
// mount namespace does not fence, and programs the person runs by name that --writable could
// still hand the agent. Each case tries the attack for real, through the real binary and
// bubblewrap, as root and as an unprivileged user; every case here was a hole when written (it
// failed on the code of its day) and is closed now.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// Makes a vsock socket of each type (never connects: CID 2 is the hypervisor's, whatever
/// listens there is not ours to touch): vsock_TYPE=OK or the errno's name.
const std::string k_vsock = "import errno, socket\n"
                            "for name, kind in (('stream', socket.SOCK_STREAM),\n"
                            "                   ('seqpacket', socket.SOCK_SEQPACKET)):\n"
                            "    try:\n"
                            "        socket.socket(socket.AF_VSOCK, kind).close()\n"
                            "        print('vsock_' + name + '=OK')\n"
                            "    except OSError as e:\n"
                            "        print('vsock_' + name + '=' + errno.errorcode.get(e.errno, "
                            "'?'))\n";

bool host_has_vsock() {
  int fd = ::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return false;
  }
  ::close(fd);
  return true;
}

void check_vsock(const std::string& user) {
  Person p(user);
  for (const std::string network : {"off", "on"}) {
    Run r = p.ws("run --network=" + network + " -- " + py() + " -c " + q(k_vsock));
    INFO("as " << p.label() << ", --network=" << network << ": ws run " << r.status << "\n"
               << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(field(r.out, "vsock_stream") != "<missing>");
    CHECK_MESSAGE(field(r.out, "vsock_stream") == "EAFNOSUPPORT",
                  "the agent made a vsock socket: the hypervisor's services and the host's "
                  "vsock listeners are within its reach, whatever --network says");
    CHECK(field(r.out, "vsock_seqpacket") == "EAFNOSUPPORT");
  }
}

} // namespace

// Closed hole: vsock (AF_VSOCK, the channel between a virtual machine and its hypervisor) is
// not network-namespaced on this kernel (no net.vsock sysctl): a private network namespace
// leaves it as the host has it. On a VM (a Firecracker or QEMU guest, a cloud instance) the
// agent reaches every vsock service of the hypervisor side at CID 2 (guest agents, the
// orchestrator's channels) and, with vsock_loopback or vhost_vsock, the host's own vsock
// listeners and its VMs, with --network=off as with any other mode: a way out no proxy sees.
TEST_CASE("redteam sandbox: the agent gets no vsock socket, whatever --network says") {
  if (!host_has_vsock()) {
    MESSAGE("this kernel has no vsock: nothing to reach, nothing to refuse");
    return;
  }
  as_each(check_vsock);
}

namespace {

/// Tries socket() and socketpair() in the families a private network uses and in some it does
/// not: NAME=OK or the errno's name. (AF_PACKET: the kernel itself says EPERM to a process
/// without CAP_NET_RAW, so EAFNOSUPPORT there is the filter's word; AF_TIPC and AF_RDS load
/// their modules on a host that has them.)
const std::string k_families =
    "import errno, socket\n"
    "def attempt(name, make):\n"
    "    try:\n"
    "        make().close()\n"
    "        print(name + '=OK')\n"
    "    except OSError as e:\n"
    "        print(name + '=' + errno.errorcode.get(e.errno, '?'))\n"
    "for fam in ('AF_UNIX', 'AF_INET', 'AF_INET6'):\n"
    "    attempt(fam, lambda: socket.socket(getattr(socket, fam), socket.SOCK_STREAM))\n"
    "attempt('AF_NETLINK', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))\n"
    "attempt('AF_PACKET', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))\n"
    "attempt('AF_TIPC', lambda: socket.socket(30, socket.SOCK_SEQPACKET))\n"
    "attempt('AF_TIPC_pair', lambda: socket.socketpair(30, socket.SOCK_SEQPACKET)[0])\n"
    "attempt('AF_ALG', lambda: socket.socket(38, socket.SOCK_SEQPACKET))\n"
    "attempt('family_63', lambda: socket.socket(63, socket.SOCK_STREAM))\n";

void check_families(const std::string& user) {
  Person p(user);
  Run r = p.ws("run --network=off -- " + py() + " -c " + q(k_families));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  for (const char* used : {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}) {
    CHECK_MESSAGE(field(r.out, used) == "OK", used << " is one a private network uses");
  }
  CHECK_MESSAGE(field(r.out, "AF_PACKET") == "EAFNOSUPPORT",
                "socket(AF_PACKET) reached the kernel: the families are not filtered");
  for (const char* unused : {"AF_TIPC", "AF_TIPC_pair", "AF_ALG", "family_63"}) {
    CHECK(field(r.out, unused) == "EAFNOSUPPORT");
  }
}

} // namespace

// Closed: every socket family reached the kernel but vsock. A family a private network never
// uses is kernel code within the agent's reach (AF_ALG, AF_PACKET's parsers), and on a host
// with loadable modules socket(AF_TIPC) or socketpair(AF_RDS) makes the kernel load the
// family's module (`modprobe net-pf-N`), old protocol code with its own CVE history.
TEST_CASE("redteam sandbox: only unix, inet, inet6 and netlink sockets - other families are "
          "refused before the kernel sees them") {
  as_each(check_families);
}

namespace {

void check_toolchains_refused(const std::string& user) {
  Person p(user);
  const fs::path h = p.home();
  // As rustup, pyenv and nvm install them: PATH names only the proxies and shims (and nvm's
  // current version); the programs they run live beside, in the manager's own tree.
  for (const fs::path& d :
       {h / ".cargo" / "bin", h / ".rustup" / "toolchains" / "stable" / "bin",
        h / ".pyenv" / "shims", h / ".pyenv" / "versions" / "3.11.4" / "bin",
        h / ".nvm" / "versions" / "node" / "v20.1.0" / "bin",
        h / ".nvm" / "versions" / "node" / "v18.2.0" / "bin", h / "work-data"}) {
    fs::create_directories(d);
  }
  p.own(h);
  const std::string path =
      "PATH=" + (h / ".cargo" / "bin").string() + ":" + (h / ".pyenv" / "shims").string() + ":" +
      (h / ".nvm" / "versions" / "node" / "v20.1.0" / "bin").string() + ":/usr/bin:/bin";
  // What `cargo build`, `python3` or `nvm use 18 && node` would run next, unconfined.
  const std::vector<std::pair<fs::path, fs::path>> targets{
      {h / ".rustup", h / ".rustup" / "toolchains" / "stable" / "bin" / "cargo"},
      {h / ".rustup" / "toolchains", h / ".rustup" / "toolchains" / "stable" / "bin" / "rustc"},
      {h / ".pyenv" / "versions", h / ".pyenv" / "versions" / "3.11.4" / "bin" / "python3"},
      {h / ".nvm" / "versions" / "node" / "v18.2.0",
       h / ".nvm" / "versions" / "node" / "v18.2.0" / "bin" / "node"},
  };
  for (const auto& target : targets) {
    // Named, not bound: clang 14 cannot capture structured bindings in doctest's messages.
    const fs::path& w = target.first;
    const fs::path& program = target.second;
    const std::string plant = "printf '#!/bin/sh\\ntouch planted-ran\\n' > " + q(program.string()) +
                              " && chmod +x " + q(program.string()) + " && echo planted=yes";
    Run r = p.ws("run --network=off --writable " + q(w.string()) + " -- sh -c " + q(plant), path);
    INFO("as " << p.label() << ": --writable " << w << ": " << r.status << "\n" << r.out << r.err);
    CHECK_MESSAGE(!fs::exists(program), "the agent planted " << program
                                                             << ", which runs unconfined the next "
                                                                "time the person types its name");
    CHECK(field(r.out, "planted") == "<missing>");
    CHECK(r.status != 0);
    CHECK(r.err.find("ws: error: --writable " + w.string()) != npos);
    CHECK(r.err.find("hint: ") != npos);
  }
  // A directory of data beside them is fine.
  Run ok = p.ws("run --network=off --writable " + q((h / "work-data").string()) + " -- true", path);
  INFO("beside: " << ok.out << ok.err);
  CHECK(ok.status == 0);
}

} // namespace

// Closed hole: --writable refused the directories of PATH and everything above them, but not
// what those directories run. rustup's proxies in ~/.cargo/bin run the toolchain in
// ~/.rustup/toolchains, pyenv's shims the interpreter in ~/.pyenv/versions, and nvm switches
// PATH to another ~/.nvm/versions/node/VERSION/bin: with `--writable ~/.rustup` (or
// `~/.pyenv/versions`, `~/.nvm/versions/node/v18...`) the agent replaced `cargo`, `python3` or
// `node`, and the person's next `cargo build` ran it outside the sandbox.
TEST_CASE("redteam sandbox: --writable refuses the toolchains that PATH's proxies and shims run") {
  as_each(check_toolchains_refused);
}

namespace {

/// Config files under ~/.config that their program runs as code each time it starts: Lua,
/// Lisp, shell commands, a package index for the next `pip install`.
const std::vector<std::string> k_config_code{
    "nvim/init.lua",
    "vim/vimrc",
    "emacs/init.el",
    "tmux/tmux.conf",
    "direnv/direnvrc",
    "starship.toml",
    "wezterm/wezterm.lua",
    "kitty/kitty.conf",
    "alacritty/alacritty.toml",
    "powershell/Microsoft.PowerShell_profile.ps1",
    "pip/pip.conf",
};

void check_config_code_guarded(const std::string& user) {
  Person p(user);
  fs::path config = p.home() / ".config";
  fs::create_directories(config / "nvim");
  std::ofstream(config / "nvim" / "init.lua") << "vim.opt.number = true\n";
  p.own(p.home());
  std::string plant = "cd ~/.config && printf 'planted\\n' > nvim/init.lua; ";
  for (const auto& f : k_config_code) {
    if (f != "nvim/init.lua") {
      plant += "mkdir -p \"$(dirname " + q(f) + ")\" && printf 'os.execute(\"touch ran\")\\n' > " +
               q(f) + "; ";
    }
  }
  plant += "echo done=yes";
  Run r = p.ws("run --network=off --profile=none --writable " + q(config.string()) + " -- sh -c " +
               q(plant));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  REQUIRE(field(r.out, "done") == "yes");
  CHECK_MESSAGE(slurp(config / "nvim" / "init.lua") == "vim.opt.number = true\n",
                "the agent rewrote the person's ~/.config/nvim/init.lua");
  for (const auto& f : k_config_code) {
    if (f == "nvim/init.lua") {
      continue;
    }
    CHECK_MESSAGE(!fs::exists(config / f), "the agent planted ~/.config/"
                                               << f
                                               << ": it runs the next time the person "
                                                  "starts that program, unconfined");
  }
  CHECK(r.err.find("ws: WARNING: the agent created " + (config / "tmux").string()) != npos);
}

} // namespace

// Closed hole: with `--writable ~/.config` (a tool's settings), the guard kept ws's, git's,
// fish's, systemd's and autostart's config read-only, but not the editors', terminals' and
// prompts' that run code at every start: ~/.config/nvim/init.lua (Lua), emacs/init.el (Lisp),
// tmux.conf (run-shell), direnv's direnvrc (bash), starship.toml (custom commands), wezterm.lua,
// kitty.conf and alacritty.toml (the shell they start), PowerShell's profile, and pip.conf (the
// index the person's next `pip install` trusts): the agent rewrote or planted them.
TEST_CASE("redteam sandbox: --writable ~/.config keeps the config that editors, terminals and "
          "prompts run read-only") {
  as_each(check_config_code_guarded);
}

namespace {

void check_guard_never_binds_through_symlinks(const std::string& user) {
  Person p(user);
  fs::create_directories(p.home() / "w1");
  fs::create_directories(p.home() / "w2");
  fs::create_directories(p.home() / ".ssh");
  fs::create_directories(p.home() / "bin");
  std::ofstream(p.home() / ".ssh" / "id_ed25519") << "PRIVATE-KEY\n";
  p.own(p.home());
  // Session 1 plants a link, session 2 looks: a repository of its own below the writable
  // directory whose .git/hooks is a relative link to the home; a .claude that is a link to the
  // home (which has a bin/, a name the guard keeps under .claude).
  const std::pair<std::string, std::string> links[] = {
      {"w1", "mkdir -p sub/.git && ln -s ../../.. sub/.git/hooks"}, {"w2", "ln -s .. .claude"}};
  for (const auto& entry : links) {
    const std::string& dir = entry.first;
    const std::string& link = entry.second;
    const fs::path w = p.home() / dir;
    const std::string writable = "run --network=off --profile=none --writable " + q(w.string());
    Run plant = p.ws(writable + " -- sh -c " +
                     q("cd " + q(w.string()) + " && " + link + " && echo planted=yes"));
    INFO("as " << p.label() << ": " << link << ": " << plant.out << plant.err);
    REQUIRE(field(plant.out, "planted") == "yes");
    Run r = p.ws(writable + " -- sh -c " +
                 q("cat ~/.ssh/id_ed25519 2>/dev/null; echo x > ~/planted-in-home 2>/dev/null; "
                   "echo done=yes"));
    INFO("the next session: " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(field(r.out, "done") == "yes");
    CHECK_MESSAGE(r.out.find("PRIVATE-KEY") == npos,
                  "the agent read the person's ~/.ssh: the guard bound its link over the home");
    CHECK_MESSAGE(!fs::exists(p.home() / "planted-in-home"),
                  "the agent wrote the person's real home: the guard bound it writable");
  }
  // A link of the person's own (hooks kept beside the repository): what it leads to stays
  // read-only, and a directory of hooks the agent puts in the link's place is moved aside.
  fs::path w3 = p.home() / "w3";
  fs::create_directories(w3 / "sub" / ".git");
  fs::create_directories(w3 / "sub" / "hooks-src");
  std::ofstream(w3 / "sub" / "hooks-src" / "pre-commit") << "#!/bin/sh\n";
  fs::create_directory_symlink("../hooks-src", w3 / "sub" / ".git" / "hooks");
  p.own(w3);
  Run r = p.ws("run --network=off --profile=none --writable " + q(w3.string()) + " -- sh -c " +
               q("cd " + q((w3 / "sub").string()) +
                 " && echo 'touch ran' >> hooks-src/pre-commit; rm .git/hooks && "
                 "mkdir .git/hooks && echo 'touch ran' > .git/hooks/pre-commit; echo done=yes"));
  INFO("as " << p.label() << ": the person's own link: " << r.out << r.err);
  CHECK(field(r.out, "done") == "yes");
  CHECK(slurp(w3 / "sub" / "hooks-src" / "pre-commit") == "#!/bin/sh\n");
  CHECK_MESSAGE(!fs::exists(w3 / "sub" / ".git" / "hooks" / "pre-commit"),
                "the agent replaced the person's .git/hooks link with hooks of its own");
  CHECK(r.err.find("ws: WARNING: the agent created " + (w3 / "sub" / ".git" / "hooks").string()) !=
        npos);
}

} // namespace

// Closed hole: the --writable guard binds the guarded paths it finds (a nested repository's
// .git/hooks and config, DIR/.claude/...) onto themselves, and bwrap follows a symlink there on
// both sides. A repository the agent made below the writable directory in one session (its
// own, so never quarantined) with `.git/hooks -> ../../..`, or a `.claude -> ..`, made the next
// session bind the person's real home over the private one: read-only (every key) through the
// hooks link, writable through the pinned .claude.
TEST_CASE("redteam sandbox: the --writable guard never binds through a symlink the agent made") {
  as_each(check_guard_never_binds_through_symlinks);
}

namespace {

void check_named_path_through_agent_link(const std::string& user) {
  Person p(user);
  fs::path w = p.home() / "work";
  fs::create_directories(w / "docs");
  fs::create_directories(p.home() / ".ssh");
  std::ofstream(p.home() / ".ssh" / "id_ed25519") << "PRIVATE-KEY\n";
  p.own(p.home());
  // The person's settings, every session: the work directory writable, its docs readable
  // (`[ws] writable = ~/work`, `read = ~/work/docs`; here on the command line). Session 1 puts
  // a link where the docs were.
  const std::string both = "run --network=off --profile=none --writable " + q(w.string());
  Run plant = p.ws(both + " -- sh -c " +
                   q("cd " + q(w.string()) +
                     " && mv docs docs-old && ln -s ../.ssh docs && "
                     "mkdir sub && ln -s ../../.ssh sub/tools && echo planted=yes"));
  INFO("as " << p.label() << ": session 1: " << plant.out << plant.err);
  REQUIRE(field(plant.out, "planted") == "yes");
  for (const fs::path& named : {w / "docs", w / "sub" / "tools"}) {
    for (const std::string flag : {"--read", "--writable"}) {
      Run r = p.ws(both + " " + flag + " " + q(named.string()) + " -- sh -c " +
                   q("cat " + q((named / "id_ed25519").string()) + " 2>/dev/null; echo ran=yes"));
      INFO(flag << " " << named << ": " << r.status << "\n" << r.out << r.err);
      CHECK_MESSAGE(r.out.find("PRIVATE-KEY") == npos,
                    "the agent read ~/.ssh through a link it left where the person named a path");
      CHECK(field(r.out, "ran") == "<missing>");
      CHECK(r.status != 0);
      CHECK(r.err.find("ws: error: " + flag + " " + named.string()) != npos);
    }
  }
}

} // namespace

// Closed hole: --read and --writable paths are resolved (symlinks followed) when each session
// starts, and one below a --writable directory may be a link the agent left there in an earlier
// session: with `[ws] writable = ~/work` and `read = ~/work/docs`, an agent replaced docs by a
// link to ~/.ssh and the next session showed it the person's keys (writable, with --writable).
TEST_CASE("redteam sandbox: a path the person names through a link the agent could have made is "
          "refused") {
  as_each(check_named_path_through_agent_link);
}
