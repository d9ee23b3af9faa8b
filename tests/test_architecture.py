"""The dependency rule: the rules engine imports the standard library and itself, nothing else."""

import ast
import sys
from pathlib import Path

RULES = Path(__file__).parents[1] / "server" / "rules"
FORBIDDEN_STDLIB = {"os", "io", "socket", "sqlite3", "time", "datetime", "random", "subprocess", "pathlib"}
ALLOWED_RANDOM_USERS = {"policies.py"}


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_the_rules_engine_imports_only_the_standard_library():
    for path in RULES.glob("*.py"):
        outside = {name for name in imported_modules(path) if name not in sys.stdlib_module_names}
        assert not outside, f"{path.name} imports {outside}"


def test_the_rules_engine_does_no_io_and_reads_no_clock():
    for path in RULES.glob("*.py"):
        forbidden = FORBIDDEN_STDLIB - ({"random"} if path.name in ALLOWED_RANDOM_USERS else set())
        assert not imported_modules(path) & forbidden, f"{path.name} imports {imported_modules(path) & forbidden}"


SOLVER = Path(__file__).parents[1] / "server" / "solver"
SOLVER_RANDOM_USERS = {"search.py", "hints.py"}
"""The search reshuffles its order with a seeded generator; the hints sample arrangements with one."""


def relative_imports(path: Path) -> set[str]:
    """The project modules `path` imports, as written: "..rules", ".search"."""
    return {"." * node.level + (node.module or "") for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom) and node.level}


def test_the_solver_imports_only_the_standard_library_and_the_rules_engine():
    paths = list(SOLVER.glob("*.py"))
    assert len(paths) >= 3
    for path in paths:
        outside = {name for name in imported_modules(path) if name not in sys.stdlib_module_names}
        assert not outside, f"{path.name} imports {outside}"
        project = {name for name in relative_imports(path) if not name.startswith("..rules") and name.startswith("..")}
        assert not project, f"{path.name} imports {project}: the solver may use the rules engine only"
        forbidden = FORBIDDEN_STDLIB - ({"random"} if path.name in SOLVER_RANDOM_USERS else set())
        assert not imported_modules(path) & forbidden, f"{path.name} imports {imported_modules(path) & forbidden}"
