#pragma once

#include "filters/policy.hpp"
#include "fuse/changes.hpp"
#include "gitbridge/patch.hpp"
#include "src/workspace/workspace.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ws {

/// One changed path and what the policy decided for it.
struct PlannedChange {
  fuse::Change change;
  filters::Decision decision;
  bool included = false; ///< withheld, but the person took it (--include)
  /// The workspace's content of a regular file, read once while planning (PlanRequest::
  /// keep_content, files that fit one read): diff and apply use these very bytes.
  std::optional<std::string> view_content;
  bool transfers() const {
    return decision.verdict == filters::Verdict::Transfer ||
           decision.verdict == filters::Verdict::Flagged ||
           (decision.verdict == filters::Verdict::Withheld && included);
  }
};

/// Which state to read: the live workspace, or one of its checkpoints.
struct StateSource {
  fuse::WorkspaceLayout state; ///< its upper/ and meta.db
  std::filesystem::path bases; ///< the workspace's bases/ (shared by checkpoints)
  std::optional<unsigned> checkpoint;
  std::shared_ptr<void> keep; ///< a checkpoint's private copy lives as long as this
};
StateSource live_state(const Workspace& w);
StateSource checkpoint_state(const Workspace& w, unsigned id);

/// Under what a plan of the live workspace holds (plan_cache.hpp): the daemon's token it is
/// the plan of, and the digest of its other inputs. Empty when no daemon vouched for it.
struct PlanValidity {
  std::string token;
  std::string inputs;
};

struct PlanRequest {
  std::vector<std::string> paths;   ///< repository-relative pathspecs; empty: everything
  std::vector<std::string> include; ///< repository-relative; withheld paths taken anyway
  /// Look at these paths alone (fuse::compute_changes_at), e.g. what changed since a
  /// checkpoint: costs what they are, not what the workspace holds.
  std::optional<std::vector<std::string>> only;
  bool keep_content = false;        ///< keep what was read of small files (view_content)
  PlanValidity* validity = nullptr; ///< set to what the plan holds under, when known
  /// Called with the plan an earlier command kept when it is not the plan of now, just
  /// before planning in full (`ws review` shows its list meanwhile); its verdicts may be out
  /// of date. Not called when there is none, or when it is used.
  std::function<void(const std::vector<PlannedChange>&)> outdated = nullptr;
  /// Called with the changes a full plan found, before any has its verdict, when no kept
  /// plan went to `outdated` (`ws review` lists them meanwhile). Not narrowed to `paths`.
  std::function<void(const std::vector<fuse::Change>&)> found = nullptr;
};

/// Told how many changes have their verdict, of how many, every few hundred, on the calling
/// thread. It may throw to stop (ws review, when the person leaves while it loads).
using PlanProgress = std::function<void(size_t done, size_t total)>;

/// Every change of `source` within the pathspecs, each with its verdict. Throws Error when
/// an --include names nothing withheld, or something that may not be overridden.
std::vector<PlannedChange> plan_transfer(const Workspace& w, const StateSource& source,
                                         const PlanRequest& request,
                                         const PlanProgress& progress = {});

/// True when the live workspace is still what it was at the daemon's `token` (nothing but
/// ws's own staging came and went since, see only_staging_leftovers) for a plan `plan` made
/// then. False when no daemon answers.
bool still_as_at(const Workspace& w, const StateSource& source, const std::string& token,
                 const std::vector<PlannedChange>& plan);

/// What stood before and what stands now, for each transferring change (in plan order).
/// Reads only the changed files.
/// `base_exact`, when given, gets one flag per pair: the base is known for sure (see
/// ContentReader::base).
std::vector<gitbridge::FilePair> file_pairs(const Workspace& w, const StateSource& source,
                                            const std::vector<PlannedChange>& plan,
                                            std::vector<bool>* base_exact = nullptr);

/// The policy's name for a kind of change.
filters::ChangeType change_type(fuse::ChangeKind k);

/// git's mode for an st_mode (None for what git cannot hold: FIFOs, sockets, devices).
gitbridge::GitMode git_mode(mode_t mode);

} // namespace ws
