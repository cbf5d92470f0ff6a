"""pyproject.toml names what the package needs; requirements.txt pins versions inside those ranges.

`pip install -e .` alone must give a package that runs: every third-party module that a module of
``helpers`` imports belongs to a distribution listed in ``[project] dependencies``, and the exact
pins that `make lab` and `make test` install satisfy those ranges.
"""

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions

from packaging.requirements import Requirement

from helpers.display.setup import pinned_versions
from helpers.paths import PACKAGE_DIR, ROOT


def declared() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(text) for text in project["dependencies"]]
    return {requirement.name.lower(): requirement for requirement in requirements}


def imported_top_level_modules() -> set[str]:
    modules = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    return modules - set(sys.stdlib_module_names) - {"helpers", "__future__"}


def test_every_third_party_import_of_the_package_is_a_declared_dependency():
    distributions = packages_distributions()
    needed = {
        module: {name.lower() for name in distributions.get(module, [])}
        for module in imported_top_level_modules()
    }
    assert "torch" in needed and "babel" in needed  # the scan sees the package's imports
    missing = {m: d for m, d in needed.items() if not d & set(declared())}
    assert not missing, f"imported by helpers/ but not in pyproject's dependencies: {missing}"


def test_the_exact_pins_satisfy_the_declared_ranges():
    pins = {
        name.lower(): version
        for name, version in pinned_versions(ROOT / "requirements.txt").items()
    }
    for name, requirement in declared().items():
        assert name in pins, f"{name}: in pyproject.toml, not pinned in requirements.txt"
        assert requirement.specifier.contains(pins[name]), (
            f"{name}=={pins[name]} (requirements.txt) is outside {requirement} (pyproject.toml)"
        )
