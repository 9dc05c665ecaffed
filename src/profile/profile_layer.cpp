// A profile's config layers (profile_layer.hpp): "a profile is a workspace over a config
// directory", served by the same daemon as a project's view.
#include "src/profile/profile_layer.hpp"

#include "fuse/hash.hpp"
#include "src/cli/error.hpp"
#include "src/daemon/daemon.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace ws {

namespace fs = std::filesystem;

namespace {

/// "claude-0123456789ab" for ~/.claude: readable, and two directories never share a layer.
std::string key_of(const fs::path& p) {
  std::string base = p.filename().string();
  while (!base.empty() && base.front() == '.') {
    base.erase(0, 1);
  }
  return (base.empty() ? "dir" : base) + "-" + fuse::hash_bytes(p.string()).hex().substr(0, 12);
}

void make_private_dir(const fs::path& p) {
  std::error_code ec;
  fs::create_directories(p, ec);
  if (ec) {
    throw Error("cannot create " + p.string() + ": " + ec.message(),
                "check the permissions of " + p.parent_path().string());
  }
  ::chmod(p.c_str(), 0700);
}

void lock(int fd, int how, const fs::path& state) {
  while (::flock(fd, how) != 0) {
    if (errno != EINTR) {
      throw Error("cannot lock " + (state / "sessions.lock").string() + ": " +
                  std::strerror(errno));
    }
  }
}

/// sessions.lock: held shared by every session using the profile's layers, exclusively by
/// whoever unmounts them.
fuse::UniqueFd open_users(const Profile& p) {
  fs::path state = profile_state_dir(p.name);
  make_private_dir(state);
  fuse::UniqueFd fd(::open((state / "sessions.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd) {
    throw Error("cannot open " + (state / "sessions.lock").string() + ": " + std::strerror(errno));
  }
  return fd;
}

} // namespace

fs::path profile_state_dir(const std::string& name) {
  return data_root() / "profiles" / name;
}

std::vector<ConfigLayer> config_layers(const Profile& p) {
  std::vector<ConfigLayer> out;
  fs::path state = profile_state_dir(p.name);
  for (const auto& target : p.config) {
    ConfigLayer l;
    l.target = target;
    std::error_code ec;
    // A directory the person does not have (yet): the agent starts from an empty one.
    l.ws.repo = fs::is_directory(target, ec) ? target : state / "empty";
    l.ws.name = p.name + ":" + target.filename().string();
    l.ws.layout.dir = state / "layers" / key_of(target);
    l.ws.mountpoint = runtime_root() / "profiles" / p.name / key_of(target);
    out.push_back(std::move(l));
  }
  return out;
}

std::pair<ConfigLayer, std::string> layer_of(const Profile& p, const fs::path& path) {
  fs::path want = path.lexically_normal();
  for (auto& l : config_layers(p)) {
    fs::path rel = want.lexically_relative(l.target);
    if (!rel.empty() && *rel.begin() != "..") {
      return {l, rel == "." ? std::string() : rel.string()};
    }
  }
  std::string dirs;
  for (const auto& c : p.config) {
    dirs += (dirs.empty() ? "" : ", ") + c.string();
  }
  throw Error(path.string() + " is not in a config directory of profile '" + p.name + "'",
              dirs.empty() ? "the profile has no config directory" : "its directories: " + dirs);
}

fs::path cache_dir(const Profile& p, const fs::path& cache) {
  return profile_state_dir(p.name) / "caches" / key_of(cache);
}

ProfileSession::ProfileSession(const Profile& p)
    : m_profile(p), m_layers(config_layers(p)), m_users(open_users(p)) {
  fs::path state = profile_state_dir(p.name);
  if (::flock(m_users.get(), LOCK_EX | LOCK_NB) == 0) {
    remount_outdated();
  }
  // Shared while the session runs (converted from the exclusive lock when alone);
  // `ws profile umount` takes it exclusively, so a new session waits here until the layers
  // are down, then mounts them again.
  lock(m_users.get(), LOCK_SH, state);
  make_private_dir(state / "empty");
  for (auto& l : m_layers) {
    if (!l.ws.exists()) {
      make_private_dir(l.ws.layout.dir);
      l.ws.create();
    }
    ensure_mounted(l.ws, false);
  }
  // Seeds: a file the agent's CLI keeps outside its directory, copied in once (through the
  // view, so it is journaled like anything else the layer holds).
  for (const auto& [dest, source] : p.seeds) {
    auto [layer, rel] = layer_of(p, dest);
    fs::path in_view = layer.ws.mountpoint / rel;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(in_view, ec)) || !fs::is_regular_file(source, ec)) {
      continue;
    }
    fs::create_directories(in_view.parent_path(), ec);
    fs::copy_file(source, in_view, ec);
    if (ec) {
      throw Error("cannot copy " + source.string() + " into profile '" + p.name + "' (" +
                      dest.string() + "): " + ec.message(),
                  "'ws profile reset " + p.name + "' starts the layer afresh");
    }
    ::chmod(in_view.c_str(), 0600);
    m_seeded.push_back(dest);
  }
  for (const auto& c : p.caches) {
    make_private_dir(cache_dir(p, c));
  }
}

ProfileSession::~ProfileSession() = default; // the layers stay mounted for the next session

void ProfileSession::remount_outdated() {
  for (const auto& l : m_layers) {
    ViewStatus s = probe_view(l.ws);
    if (s.state != ViewState::Mounted || s.pid <= 0) {
      continue;
    }
    // The daemon's lower is on its command line (`--lower PATH`, daemon_client.cpp).
    std::ifstream in("/proc/" + std::to_string(s.pid) + "/cmdline", std::ios::binary);
    std::string arg, lower;
    for (bool next = false; std::getline(in, arg, '\0');) {
      if (next) {
        lower = arg;
        break;
      }
      next = arg == "--lower";
    }
    // Served over another lower, or by a daemon of another build of ws (ws was rebuilt or
    // upgraded since): the next session gets this ws's.
    if ((!lower.empty() && fs::path(lower) != l.ws.repo) || !s.this_build) {
      try {
        unmount_view(l.ws, false);
      } catch (const std::exception& e) {
        // Still served as it was: the session goes on over the old lower.
        std::fprintf(stderr, "ws: warning: profile '%s': %s\n", m_profile.name.c_str(), e.what());
      }
    }
  }
}

bool unmount_layers(const Profile& p) {
  fs::path state = profile_state_dir(p.name);
  std::error_code ec;
  if (!fs::is_directory(state, ec)) {
    return false;
  }
  fuse::UniqueFd users = open_users(p);
  if (::flock(users.get(), LOCK_EX | LOCK_NB) != 0) {
    throw Error("profile '" + p.name + "' is in use by a ws run session",
                "end the session first; its layers stay mounted until then");
  }
  bool any = false;
  for (const auto& l : config_layers(p)) {
    any = unmount_view(l.ws, false) || any;
  }
  return any;
}

std::vector<std::pair<fs::path, fs::path>> ProfileSession::binds() const {
  std::vector<std::pair<fs::path, fs::path>> out;
  for (const auto& l : m_layers) {
    out.emplace_back(l.ws.mountpoint, l.target);
  }
  for (const auto& c : m_profile.caches) {
    out.emplace_back(cache_dir(m_profile, c), c);
  }
  return out;
}

} // namespace ws
