// What a Rust file compiles in, read from its text (src/transfer/rust_modules.hpp): the
// modules and include! files of a build script, which cargo compiles and runs with it.
#include "src/transfer/rust_modules.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace ws;

namespace {

std::vector<std::string> mod_names(const RustFileRefs& r) {
  std::vector<std::string> out;
  for (const RustMod& m : r.mods) {
    out.push_back(m.path.empty() ? m.name : m.name + "=" + m.path);
  }
  return out;
}

} // namespace

TEST_CASE("rust_file_refs: mod declarations, path attributes and include! literals") {
  const RustFileRefs r = rust_file_refs(R"RS(
//! build script
#![allow(dead_code)]
mod helper;
pub mod util ;
pub(crate) mod r#type;
#[path = "gen/x.rs"]
mod x;
#[cfg(unix)]
#[path = r"sub/y.rs"] pub mod y;
mod inline { fn f() {} }
include!("gen.rs");
include!(concat!(env!("OUT_DIR"), "/out.rs"));
const S: &str = "mod fake; include!(\"no.rs\")";
// mod commented;
/* mod blocked; /* nested */ mod still_comment; */
const C: char = '"';
mod after_char;
#[derive(Debug)]
struct A;
mod plain;
fn main() { include! ( "spaced.rs" ) ; }
)RS");
  CHECK(mod_names(r) == std::vector<std::string>{"helper", "util", "type", "x=gen/x.rs",
                                                 "y=sub/y.rs", "after_char", "plain"});
  CHECK(r.includes == std::vector<std::string>{"gen.rs", "spaced.rs"});
}

TEST_CASE("rust_file_refs: an attribute before another item does not carry to the next mod") {
  const RustFileRefs r = rust_file_refs("#[path = \"a.rs\"]\nfn f() {}\nmod b;\n");
  CHECK(mod_names(r) == std::vector<std::string>{"b"});
}

TEST_CASE("rust_mod_files: where rustc looks for a module, as a crate root, mod.rs or other") {
  const RustMod helper{"helper", ""};
  CHECK(rust_module_dir("build.rs", true) == "");
  CHECK(rust_module_dir("crates/u/build.rs", true) == "crates/u");
  CHECK(rust_module_dir("crates/u/helper.rs", false) == "crates/u/helper");
  CHECK(rust_module_dir("crates/u/helper/mod.rs", false) == "crates/u/helper");
  CHECK(rust_mod_files(helper, "", "") == std::vector<std::string>{"helper.rs", "helper/mod.rs"});
  CHECK(rust_mod_files(helper, "crates/u", "crates/u/b") ==
        std::vector<std::string>{"crates/u/b/helper.rs", "crates/u/b/helper/mod.rs"});
  // A path attribute is relative to the declaring file's directory, `..` taken lexically.
  CHECK(rust_mod_files({"x", "../shared/x.rs"}, "crates/u", "crates/u/b") ==
        std::vector<std::string>{"crates/shared/x.rs"});
  CHECK(rust_mod_files({"x", "../../../x.rs"}, "crates/u", "crates/u").empty());
}
