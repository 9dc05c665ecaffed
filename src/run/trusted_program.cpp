// Programs ws runs outside the sandbox come from root-owned places only (trusted_program.hpp).
#include "src/run/trusted_program.hpp"

#include "src/cli/error.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ws {

namespace fs = std::filesystem;

std::string untrusted_because(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) {
    return path + ": " + ec.message();
  }
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) {
    return real.string() + ": " + std::strerror(errno);
  }
  if (!S_ISREG(st.st_mode) || ::access(real.c_str(), X_OK) != 0) {
    return real.string() + " is not an executable file";
  }
  // The file and every directory above it: whoever could replace any of them could run
  // code outside the sandbox the next time ws starts one.
  for (fs::path p = real;; p = p.parent_path()) {
    if (::stat(p.c_str(), &st) != 0) {
      return p.string() + ": " + std::strerror(errno);
    }
    if (st.st_uid != 0) {
      return p.string() + " is not owned by root";
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      return p.string() + " is writable by group or others";
    }
    if (p == p.root_path()) {
      return {};
    }
  }
}

std::string trusted_program(const std::string& name, const std::string& package,
                            const char* override_env) {
  std::string install = "install it (Debian: apt-get install " + package +
                        "), or run unconfined on purpose with 'ws run --no-confine'";
  if (override_env) {
    if (const char* env = std::getenv(override_env); env && *env) {
      if (std::string why = untrusted_because(env); !why.empty()) {
        throw HostError("cannot confine the agent: " + std::string(override_env) + "=" + env +
                            " is not a trusted " + name + " (" + why + ")",
                        install);
      }
      return env;
    }
  }
  std::string last;
  for (const char* dir : {"/usr/bin/", "/bin/"}) {
    std::string candidate = dir + name;
    if (::access(candidate.c_str(), F_OK) != 0) {
      continue;
    }
    last = untrusted_because(candidate);
    if (last.empty()) {
      return candidate;
    }
  }
  if (!last.empty()) {
    throw HostError("cannot confine the agent: " + name + " is not trusted (" + last + ")",
                    "ws runs " + name + " only from a root-owned, non-writable place; " + install);
  }
  throw HostError("cannot confine the agent: " + name +
                      " is not installed (looked in /usr/bin, /bin)",
                  install);
}

std::filesystem::path sandbox_init_program() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
  std::filesystem::path init = self.parent_path() / "ws-init";
  struct stat ws_st {
  }, init_st{};
  if (!self.empty() && ::stat(self.c_str(), &ws_st) == 0 && ::stat(init.c_str(), &init_st) == 0 &&
      S_ISREG(init_st.st_mode) && (init_st.st_mode & S_IXUSR) && init_st.st_uid == ws_st.st_uid) {
    return init;
  }
  return self;
}

} // namespace ws
