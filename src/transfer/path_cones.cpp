// The daemon's changed names as cones (path_cones.hpp).
#include "src/transfer/path_cones.hpp"

#include <algorithm>

namespace ws {

Cones::Cones(const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    std::string_view name(n);
    while (!name.empty() && name.back() == '/') {
      name.remove_suffix(1);
    }
    m_roots.emplace_back(name);
  }
  std::sort(m_roots.begin(), m_roots.end());
  m_roots.erase(std::unique(m_roots.begin(), m_roots.end()), m_roots.end());
  for (const std::string& r : m_roots) {
    m_set.insert(r);
  }
  std::erase_if(m_roots, [&](const std::string& r) { return below_other(r); });
  m_set.clear();
  for (const std::string& r : m_roots) {
    m_set.insert(r);
  }
}

bool Cones::covers(std::string_view path) const {
  for (size_t end = path.size();;) {
    if (m_set.count(path.substr(0, end))) {
      return true;
    }
    size_t slash = path.rfind('/', end == 0 ? 0 : end - 1);
    if (end == 0 || slash == std::string_view::npos) {
      return m_set.count("") > 0;
    }
    end = slash;
  }
}

bool Cones::below_other(std::string_view path) const {
  for (size_t slash = path.rfind('/'); slash != std::string_view::npos;
       slash = slash == 0 ? std::string_view::npos : path.rfind('/', slash - 1)) {
    if (m_set.count(path.substr(0, slash))) {
      return true;
    }
  }
  return !path.empty() && m_set.count("") > 0;
}

} // namespace ws
