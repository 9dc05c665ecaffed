// What a script loads, read from its text (src/transfer/script_imports.hpp).
#include "src/transfer/script_imports.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ws;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::vector<std::string> all_files(std::string_view text, const std::string& file,
                                   const std::vector<std::string>& roots) {
  std::vector<std::string> out;
  for (const PythonImport& i : python_imports(text)) {
    for (const std::string& f : python_import_files(i, file, roots)) {
      out.push_back(f);
    }
  }
  return out;
}

} // namespace

TEST_CASE("script_imports: Python import statements as Python reads them") {
  const std::string text = "import os, sys as system\n"
                           "from a.b import (c,\n    d as e)  # comment\n"
                           "try:\n    import local_settings\nexcept ImportError:\n    pass\n"
                           "from . import sibling\nfrom ..up.mod import thing\n"
                           "x = importlib.import_module('plug.in')\n"
                           "\"\"\"a docstring (left open\n\"\"\"\nimport after_docstring\n"
                           "s = 'import not_a_module'; from star import *\n";
  const std::vector<std::string> f = all_files(text, "pkg/sub/m.py", {"pkg/sub", ""});
  INFO([&] {
    std::string all;
    for (const std::string& s : f) {
      all += s + " ";
    }
    return all;
  }());
  CHECK(has(f, "pkg/sub/os.py")); // a stdlib name shadowed from the script's directory
  CHECK(has(f, "os/__init__.py"));
  CHECK(has(f, "sys.py"));
  CHECK(has(f, "a/__init__.py"));
  CHECK(has(f, "a/b.py"));
  CHECK(has(f, "a/b/c.py"));
  CHECK(has(f, "a/b/d/__init__.py"));
  CHECK(has(f, "pkg/sub/local_settings.py"));
  CHECK(has(f, "pkg/sub/sibling.py"));
  CHECK(has(f, "pkg/sub/__init__.py"));
  CHECK(has(f, "pkg/up/mod.py"));
  CHECK(has(f, "pkg/up/__init__.py"));
  CHECK(has(f, "plug/in.py"));
  CHECK(has(f, "after_docstring.py"));
  CHECK(has(f, "star.py"));
  CHECK(!has(f, "not_a_module.py"));
  CHECK(!has(f, "e.py")); // an alias is no module
  // Above the top: nothing of the project.
  CHECK(all_files("from ... import x\n", "a/m.py", {""}).empty());
}

TEST_CASE("script_imports: node's relative requires and imports, and the files node tries") {
  const auto specs = node_specifiers("const a = require('./lib/a');\n"
                                     "import b from \"../b.mjs\";\nimport './side';\n"
                                     "const c = await import(`./c.js`);\n"
                                     "export { d } from './d';\nconst e = require('lodash');\n"
                                     "x.require('./not'); myimport('./no');\n");
  std::vector<std::string> sorted = specs;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<std::string>{"../b.mjs", "./c.js", "./d", "./lib/a", "./side"});
  const auto files = node_files("./lib/a", "scripts");
  CHECK(has(files, "scripts/lib/a"));
  CHECK(has(files, "scripts/lib/a.js"));
  CHECK(has(files, "scripts/lib/a/index.js"));
  CHECK(has(files, "scripts/lib/a/package.json"));
  CHECK(node_files("../../out", "scripts").empty());
}

TEST_CASE("script_imports: a Makefile's includes and rules") {
  const MakefileParts m = makefile_parts("include mk/a.mk mk/b.mk # two\n-include local.mk\n"
                                         "sinclude $(wildcard x/*.mk)\nFLAGS = -q\n"
                                         "all: check\ncheck:\n\t@python3 tools/lint.py \\\n"
                                         "\t  --strict\n\t-sh tools/x.sh\n");
  CHECK(m.includes == std::vector<std::string>{"mk/a.mk", "mk/b.mk", "local.mk"});
  REQUIRE(m.recipes.size() == 2);
  CHECK(m.recipes[0].find("python3 tools/lint.py") == 0);
  CHECK(m.recipes[0].find("--strict") != std::string::npos);
  CHECK(m.recipes[1] == "sh tools/x.sh");
}

TEST_CASE("script_imports: a shell script's own directory") {
  CHECK(with_script_dir(". \"$(dirname \"$0\")/lib.sh\"", "/p/tools") == ". \"/p/tools/lib.sh\"");
  CHECK(with_script_dir("here=$(cd \"$(dirname \"$0\")\" && pwd)\n. \"$here/lib.sh\"\n",
                        "/p/tools") == "here=/p/tools\n. \"/p/tools/lib.sh\"\n");
  CHECK(with_script_dir("source ${0%/*}/x.sh", "/p/t") == "source /p/t/x.sh");
}

TEST_CASE("script_imports: INI values as tox and pytest read them, and pytest's -p plugins") {
  const std::string ini = "[pytest]\naddopts = -q\n    -p tools.plug \\\n  -ptools.other\n"
                          "# addopts = -p commented\nother = -p not.this\n[tool:pytest]\n"
                          "addopts = -p in.setup.cfg\n";
  auto pytest_section = +[](std::string_view s) { return s == "pytest"; };
  const std::vector<std::string> values = ini_values(ini, pytest_section, {"addopts"});
  REQUIRE(values.size() == 2);
  CHECK(values[0] == "-q");
  CHECK(values[1] == "-p tools.plug  -ptools.other");
  CHECK(pytest_plugin_modules(values[0] + " " + values[1]) ==
        std::vector<std::string>{"tools.plug", "tools.other"});
  CHECK(pytest_plugin_modules("-p no:cacheprovider -p x/y --pdb").empty());
  // A conftest.py's pytest_plugins imports each module it names.
  std::vector<std::string> plugins;
  for (const PythonImport& i : python_imports("pytest_plugins = [\"a.fix\", 'b']\n")) {
    plugins.push_back(i.module);
  }
  CHECK(plugins == std::vector<std::string>{"a.fix", "b"});
}
