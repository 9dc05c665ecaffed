// Which of the workspace's changes may cross into the real tree: facts from the real
// repository and the view, then one verdict per path from filters/.
#include "src/transfer/transfer_plan.hpp"

#include "fuse/system_error.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/error.hpp"
#include "src/transfer/change_content.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace ws {

using fuse::UniqueFd;

StateSource live_state(const Workspace& w) {
  return StateSource{w.layout, w.layout.bases(), std::nullopt};
}

StateSource checkpoint_state(const Workspace& w, unsigned id) {
  Checkpoint cp = find_checkpoint(w, id);
  return StateSource{fuse::WorkspaceLayout{cp.dir}, w.layout.bases(), id};
}

namespace {

filters::ChangeType change_type(fuse::ChangeKind k) {
  switch (k) {
  case fuse::ChangeKind::Added:
    return filters::ChangeType::Added;
  case fuse::ChangeKind::Deleted:
    return filters::ChangeType::Deleted;
  case fuse::ChangeKind::Renamed:
    return filters::ChangeType::Renamed;
  case fuse::ChangeKind::TypeChanged:
    return filters::ChangeType::TypeChanged;
  default:
    return filters::ChangeType::Modified;
  }
}

bool within_any(const std::string& path, const std::vector<std::string>& specs) {
  return std::any_of(specs.begin(), specs.end(),
                     [&](const std::string& s) { return fuse::path_within(path, s); });
}

/// Looks at objects as the view shows them: the state's upper layer first, else the real
/// tree (good enough for the questions asked here: is there a `.git`, is this a symlink).
class ViewProbe {
public:
  ViewProbe(const Workspace& w, const StateSource& s)
      : m_real(::open(w.repo.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
        m_upper(::open(s.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
    if (!m_real) {
      throw_errno("open the real tree", w.repo.string());
    }
    if (!m_upper) {
      throw_errno("open the workspace's upper layer", s.state.upper().string());
    }
  }

  bool lstat(const std::string& path, struct stat& st) const {
    for (int root : {m_upper.get(), m_real.get()}) {
      UniqueFd fd(fuse::open_beneath(root, path, O_PATH | O_NOFOLLOW));
      if (fd && ::fstat(fd.get(), &st) == 0) {
        return true;
      }
    }
    return false;
  }

  /// Some ancestor directory of `path` holds `name` (`.git`: a nested repository or
  /// submodule; `pyvenv.cfg`: a Python virtual environment).
  bool ancestor_holds(const std::string& path, const char* name) const {
    struct stat st {};
    for (size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      if (lstat(path.substr(0, slash) + "/" + name, st)) {
        return true;
      }
    }
    return false;
  }

  /// Resolves a symlink's target lexically from the link's directory; true when a
  /// component on the way inside the project is itself a symlink.
  bool target_through_symlink(const std::string& link, const std::string& target) const {
    if (target.empty() || target[0] == '/') {
      return false; // absolute: withheld for that reason already
    }
    std::vector<std::string> parts;
    size_t slash = link.rfind('/');
    std::string dir = slash == std::string::npos ? "" : link.substr(0, slash);
    auto push = [&](std::string_view s) {
      size_t start = 0;
      while (start <= s.size()) {
        size_t end = s.find('/', start);
        std::string_view c = s.substr(start, end == std::string_view::npos ? s.npos : end - start);
        if (c == "..") {
          if (parts.empty()) {
            return false; // leaves the project: withheld for that reason already
          }
          parts.pop_back();
        } else if (!c.empty() && c != ".") {
          parts.emplace_back(c);
        }
        if (end == std::string_view::npos) {
          break;
        }
        start = end + 1;
      }
      return true;
    };
    if (!push(dir) || !push(target)) {
      return false;
    }
    std::string prefix;
    for (size_t i = 0; i + 1 < parts.size(); ++i) { // the last component may be anything
      prefix = fuse::join_path(prefix, parts[i]);
      struct stat st {};
      if (lstat(prefix, st) && S_ISLNK(st.st_mode)) {
        return true;
      }
    }
    return false;
  }

private:
  UniqueFd m_real;
  UniqueFd m_upper;
};

bool looks_binary(int upper, const std::string& path) {
  UniqueFd fd(fuse::open_beneath(upper, path, O_RDONLY | O_NOFOLLOW));
  if (!fd) {
    return false;
  }
  char buf[8000];
  ssize_t n = ::pread(fd.get(), buf, sizeof buf, 0);
  return n > 0 && std::find(buf, buf + n, '\0') != buf + n;
}

/// Paths of the workspace's own state or view, if they lie inside the project.
std::vector<std::string> own_paths(const Workspace& w) {
  std::vector<std::string> out;
  for (const auto& p : {w.layout.dir, w.mountpoint}) {
    std::filesystem::path rel = p.lexically_relative(w.repo);
    if (!rel.empty() && *rel.begin() != "..") {
      out.push_back(rel.string());
    }
  }
  return out;
}

} // namespace

std::vector<PlannedChange> plan_transfer(const Workspace& w, const StateSource& source,
                                         const PlanRequest& request) {
  std::vector<fuse::Change> changes = fuse::compute_changes(w.repo, source.state);
  gitbridge::RealRepo repo(w.repo);
  filters::PolicyConfig config =
      gitbridge::load_policy_config(repo.git_dir(), gitbridge::default_user_config_file());
  ViewProbe probe(w, source);
  UniqueFd upper(::open(source.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ContentReader reader(w, source);
  std::vector<std::string> own = own_paths(w);

  std::vector<PlannedChange> plan;
  for (auto& c : changes) {
    if (!request.paths.empty() && !within_any(c.path, request.paths) &&
        !(c.kind == fuse::ChangeKind::Renamed && within_any(c.from, request.paths))) {
      continue;
    }
    filters::PathFacts f;
    f.type = change_type(c.kind);
    f.path = c.path;
    f.from = c.from;
    f.mode = c.mode;
    f.base_mode = c.base ? c.base->mode : 0;
    f.size = c.size;
    bool present = c.kind != fuse::ChangeKind::Deleted;
    if (present && S_ISREG(c.mode)) {
      f.binary = looks_binary(upper.get(), c.path);
    }
    if (present && S_ISLNK(c.mode)) {
      f.symlink_target = reader.view(c.path).content;
      f.symlink_through_symlink = probe.target_through_symlink(c.path, f.symlink_target);
    }
    // The index (megabytes on a large repository) is read only when an answer needs it:
    // ignore rules apply to untracked paths only, and a gitlink stands where the real tree
    // has a directory.
    f.ignored = repo.ignored(c.path);
    f.tracked = c.kind == fuse::ChangeKind::Modified && !f.ignored;
    f.gitlink = c.base && S_ISDIR(c.base->mode) && repo.gitlink(c.path);
    f.inside_nested_repo = probe.ancestor_holds(c.path, ".git") ||
                           (!c.from.empty() && probe.ancestor_holds(c.from, ".git"));
    f.in_python_env = probe.ancestor_holds(c.path, "pyvenv.cfg");
    f.workspace_own = within_any(c.path, own);
    PlannedChange p;
    p.decision = filters::decide(f, config);
    p.change = std::move(c);
    plan.push_back(std::move(p));
  }

  for (const auto& inc : request.include) {
    bool matched = false;
    for (auto& p : plan) {
      bool hit = fuse::path_within(p.change.path, inc) ||
                 (!p.change.from.empty() && fuse::path_within(p.change.from, inc));
      if (!hit) {
        continue;
      }
      if (p.decision.verdict == filters::Verdict::Blocked) {
        throw Error("'" + p.change.path + "' cannot be included: " + p.decision.reason,
                    "paths under .git/, in nested repositories or of the workspace itself never "
                    "transfer; copy them by hand if you must");
      }
      if (p.decision.verdict == filters::Verdict::Withheld) {
        if (git_mode(p.change.mode) == gitbridge::GitMode::None &&
            p.change.kind != fuse::ChangeKind::Deleted) {
          throw Error("'" + p.change.path + "' cannot be included: git cannot hold a " +
                          p.decision.reason,
                      "only files and symlinks transfer");
        }
        p.included = true;
        matched = true;
      }
    }
    if (!matched) {
      throw Error("--include '" + inc + "' names no withheld change",
                  "see what is withheld with 'ws diff --withheld'");
    }
  }
  return plan;
}

std::vector<gitbridge::FilePair> file_pairs(const Workspace& w, const StateSource& source,
                                            const std::vector<PlannedChange>& plan,
                                            std::vector<bool>* base_exact) {
  ContentReader reader(w, source);
  std::vector<gitbridge::FilePair> out;
  for (const auto& p : plan) {
    if (!p.transfers()) {
      continue;
    }
    const fuse::Change& c = p.change;
    gitbridge::FilePair pair;
    pair.new_path = c.path;
    pair.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
    bool exact = true;
    pair.before = reader.base(c, exact);
    if (c.kind != fuse::ChangeKind::Deleted) {
      pair.after = reader.view(c.path);
    }
    out.push_back(std::move(pair));
    if (base_exact) {
      base_exact->push_back(exact);
    }
  }
  return out;
}

} // namespace ws
