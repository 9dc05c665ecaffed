#pragma once

// A review's diffs, made when the person looks at a file (tui::DiffSource): both versions
// read then, checked to be what the review opened on, and diffed. Landing reads them the
// same way (read_pair) and checks them against what was shown (content_check).

#include "src/review/review_input.hpp"
#include "src/review/review_session.hpp"
#include "src/transfer/change_content.hpp"
#include "tui/review_model.hpp"

#include <string>

namespace ws {

/// Both versions of `item`'s change, read now. The workspace's must still be the object
/// the review opened on (Error otherwise); `base_exact` as ContentReader::base says.
gitbridge::FilePair read_pair(const ContentReader& reader, const UpperFiles& upper,
                              const ReviewItem& item, bool& base_exact);

/// What identifies a pair's content (tui::FileEntry::shown): SHA-256 of each side with its
/// mode, as the ids `ws apply --expect` takes (the agent chooses the content).
std::string content_check(const gitbridge::FilePair& pair);

/// The model's DiffSource for one loaded review. Single-threaded (the model's thread).
class ReviewDiffs final : public tui::DiffSource {
public:
  ReviewDiffs(const Workspace& w, const ReviewSource& src);
  tui::FileDiff diff(const tui::FileEntry& file) override;

private:
  const ReviewSource& m_src;
  ContentReader m_reader;
  UpperFiles m_upper;
};

} // namespace ws
