// What cargo builds and runs of a Cargo project, for cargo run by name and for rust-analyzer,
// which runs `cargo check` when an editor opens the project (config_commands.hpp): the build
// script (build.rs or `package.build`) and the `mod` and `include!` files it compiles in
// (rust_modules.hpp), every `.rs` of a proc-macro crate, and the same for the workspace's
// members and path dependencies. TOML is read with toml++ (config_toml.cpp).
#include "src/transfer/config_commands.hpp"
#include "src/transfer/rust_modules.hpp"

#include <string_view>
#include <vector>

namespace ws {

namespace {

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

} // namespace

void Collector::cargo_project(const std::string& dir, const Runner& runner) {
  load({dir.empty() ? "Cargo.toml" : dir + "/Cargo.toml", dir, runner, Lang::Cargo});
}

void Collector::follow_cargo(const Load& l) {
  auto doc = m_reader.toml(m_top / l.path);
  if (!doc || !doc->is_object()) {
    return;
  }
  const std::string dir = dir_of(l.path);
  auto table = [](const nlohmann::json& j, const char* key) -> const nlohmann::json* {
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? &*it : nullptr;
  };
  // `build = "tools/gen.rs"`: cargo compiles and runs that build script instead of build.rs
  // (which is withheld by its name wherever it is); `build = false`: none. Either way what
  // the script compiles in (`mod`, `include!`) runs with it.
  if (const nlohmann::json* package = table(*doc, "package")) {
    auto b = package->find("build");
    if (b != package->end() && b->is_string()) {
      if (auto p = filters::project_path_of(b->get<std::string>(), dir, m_top_text)) {
        add(*p, l.runner.with_detail("the build script of " + l.path).reason());
        build_script(*p, l.path, l);
      }
    } else if (b == package->end() || *b == true) {
      build_script(dir.empty() ? "build.rs" : dir + "/build.rs", l.path, l);
    }
  }
  // A proc-macro crate: the compiler runs its code while it builds the crates that use it,
  // and rust-analyzer does as it expands the macros. All of its Rust files, new ones too.
  if (const nlohmann::json* lib = table(*doc, "lib")) {
    for (const char* key : {"proc-macro", "proc_macro"}) {
      if (auto pm = lib->find(key); pm != lib->end() && *pm == "true") {
        add_by_name(dir, "*.rs",
                    l.runner.with_detail("the proc-macro crate of " + l.path).reason());
      }
    }
  }
  // The crates built with it: workspace members (`crates/*` too), path dependencies.
  std::vector<std::string> crates;
  if (const nlohmann::json* workspace = table(*doc, "workspace")) {
    if (auto members = workspace->find("members");
        members != workspace->end() && members->is_array()) {
      for (const nlohmann::json& m : *members) {
        const std::string member = m.is_string() ? m.get<std::string>() : std::string();
        if (member.ends_with("/*")) {
          const std::string parent = member.substr(0, member.size() - 2);
          for (const std::filesystem::path& sub : m_reader.list(m_top / dir / parent)) {
            crates.push_back(parent + "/" + sub.filename().string());
          }
        } else if (!member.empty()) {
          crates.push_back(member);
        }
      }
    }
  }
  for (const char* key : {"dependencies", "dev-dependencies", "build-dependencies"}) {
    for (const nlohmann::json* deps :
         {table(*doc, key), table(*doc, "workspace") ? table((*doc)["workspace"], key) : nullptr}) {
      if (deps == nullptr) {
        continue;
      }
      for (const auto& dep : deps->items()) {
        if (auto path = dep.value().is_object() ? dep.value().find("path") : dep.value().end();
            dep.value().is_object() && path != dep.value().end() && path->is_string()) {
          crates.push_back(path->get<std::string>());
        }
      }
    }
  }
  for (const std::string& crate : crates) {
    if (auto p = filters::project_path_of(crate, dir, m_top_text)) {
      load({p->empty() ? "Cargo.toml" : *p + "/Cargo.toml",
            l.cwd,
            l.runner,
            Lang::Cargo,
            {},
            true,
            l.depth + 1});
    }
  }
}

void Collector::editor_cargo_projects() {
  // rust-analyzer, given no `linkedProjects`, looks for Cargo.toml in the folder the editor
  // opened and, failing that, in each of its direct subdirectories ("We only auto-discover
  // Rust projects one-level deep", rust-analyzer issue 13226): both are read, whichever
  // applies, and a subdirectory an editor opens by itself is a top too. The subdirectories'
  // are the real index's (one pass over it, cached): listing the top would make every file
  // created there, even by `ws apply --check`, a change of the plan's inputs.
  const std::string when = "when your editor opens the project";
  cargo_project("", Runner{"Cargo.toml", when, "rust-analyzer"});
  if (!m_tracked_named) {
    return;
  }
  for (const std::string& path : m_tracked_named("Cargo.toml")) {
    const std::string dir = dir_of(path);
    if (dir.empty() || dir.find('/') != std::string::npos) {
      continue;
    }
    // After the top's project is followed: a member or path dependency it builds keeps the
    // top's reason.
    m_later.push_back({path, dir, Runner{path, when, "rust-analyzer"}, Lang::Cargo});
  }
}

void Collector::build_script(const std::string& path, const std::string& manifest, const Load& l) {
  // A build script is a crate root: its `mod x;` lies beside it.
  load({path,
        l.cwd,
        l.runner.with_detail("the build script of " + manifest),
        Lang::Rust,
        {rust_module_dir(path, true)},
        false,
        l.depth + 1});
}

void Collector::follow_rust(const Load& l, const std::string& text) {
  const RustFileRefs refs = rust_file_refs(text);
  const std::string module_dir = l.roots.empty() ? dir_of(l.path) : l.roots.front();
  const Runner as_module = l.runner.with_detail(l.imported ? l.path : "a module of " + l.path);
  for (const RustMod& m : refs.mods) {
    for (const std::string& file : rust_mod_files(m, dir_of(l.path), module_dir)) {
      add(file, as_module.reason());
      load({file,
            l.cwd,
            as_module,
            Lang::Rust,
            {m.path.empty() ? rust_module_dir(file, false) : dir_of(file)},
            true,
            l.depth + 1});
    }
  }
  // `include!("gen.rs")`: relative to the including file; its text stands where the macro
  // is, so its own `mod` declarations look where the including file's do.
  const Runner included = l.runner.with_detail(l.imported ? l.path : "included by " + l.path);
  for (const std::string& word : refs.includes) {
    if (auto p = filters::project_path_of(word, dir_of(l.path), m_top_text)) {
      add(*p, included.reason());
      load({*p, l.cwd, included, Lang::Rust, {module_dir}, true, l.depth + 1});
    }
  }
}

} // namespace ws
