#pragma once

// What a script loads as it runs, read from its text: the modules a Python file imports, the
// files a node script requires, what a Makefile includes and runs. The person's configs run a
// script by name (self_run_configs.hpp); what that script loads runs just the same, so the
// collector (config_commands.hpp) follows these. Pure: no I/O. Read the way the tools read,
// roughly, erring towards naming more: an import inside a function or a `try` counts, a line
// in a docstring that looks like one counts too.

#include <string>
#include <string_view>
#include <vector>

namespace ws {

/// One Python import statement: `import a.b` (level 0, module "a.b"), `from ..c import d, e`
/// (level 2, module "c", names {d, e}), `importlib.import_module("a.b")`.
struct PythonImport {
  int level = 0;      ///< leading dots of a relative import
  std::string module; ///< dotted; empty for `from . import x`
  std::vector<std::string> names;
};

/// The import statements of the Python source `text`, and the modules a conftest.py's
/// `pytest_plugins = [...]` names.
std::vector<PythonImport> python_imports(std::string_view text);

/// The repository-relative files Python may load for `import` in the file `file`, with
/// `roots` on sys.path (repository-relative directories, "" the top): for `from a.b import c`
/// under root R, `R/a/__init__.py`, `R/a.py`, `R/a/b/__init__.py`, `R/a/b.py`,
/// `R/a/b/c.py`, `R/a/b/c/__init__.py`; a relative import from the directory of `file`.
std::vector<std::string> python_import_files(const PythonImport& import, const std::string& file,
                                             const std::vector<std::string>& roots);

/// The relative specifiers (`./x`, `../y/z.js`) a JavaScript or TypeScript file loads:
/// `require('...')`, `import ... from '...'`, `import '...'`, `import('...')`, `export ...
/// from '...'`. Package names (node_modules: a place withheld anyway) are left out. With
/// `all_strings` (a tool's config: jest's `setupFiles`, `globalSetup`, `transform`), every
/// string that is a relative path counts too, `<rootDir>/x` as `./x`.
std::vector<std::string> node_specifiers(std::string_view text, bool all_strings = false);

/// The files node may open for `specifier` (relative to `dir`, repository-relative) as node
/// resolves it: the name itself, with `.js`, `.cjs`, `.mjs`, `.ts`, `.json`, and as a
/// directory (`index.js`..., `package.json`). Empty when it leaves the project.
std::vector<std::string> node_files(const std::string& specifier, const std::string& dir);

/// What a Makefile says: the files its `include`, `-include` and `sinclude` lines name, and
/// the command lines of its rules (the tab-indented lines, `@`, `-`, `+` taken off).
struct MakefileParts {
  std::vector<std::string> includes;
  std::vector<std::string> recipes;
};
MakefileParts makefile_parts(std::string_view text);

/// The values of `keys` in the sections of the INI `text` that `section_wanted` accepts, as
/// tox and pytest read them: a value continues on the lines after its key (each one value
/// here) and past a line ending in `\`; comments (`#`, `;` first on a line) left out.
std::vector<std::string> ini_values(std::string_view text, bool (*section_wanted)(std::string_view),
                                    const std::vector<std::string_view>& keys);

/// The plugin modules pytest's `addopts` (`-p tools.plug`, `-ptools.plug`) loads; `-p no:x`
/// (a plugin turned off) is none.
std::vector<std::string> pytest_plugin_modules(std::string_view addopts);

/// The command lines of a tox.ini: `commands`, `commands_pre`, `commands_post` of every
/// `[testenv]` and `[testenv:NAME]` section, one per line (a line ending in `\` continued),
/// `{toxinidir}` and `{tox_root}` replaced by `top` (the directory of the tox.ini, absolute),
/// `{posargs}` and the other substitutions dropped.
std::vector<std::string> tox_commands(std::string_view text, std::string_view top);

/// Shell text with the idioms for the script's own directory (`$(dirname "$0")`,
/// `${0%/*}`, `$(cd "$(dirname "$0")" && pwd)`...) replaced by `dir`, the script's directory
/// as an absolute path.
std::string with_script_dir(std::string text, std::string_view dir);

} // namespace ws
