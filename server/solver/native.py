"""Which search runs: a compiled copy of the search's modules when one is installed and was built from exactly
these sources, else the modules themselves (docs/solver.md, "The compiled search").

The compiled copy is made by scripts/build-solver-accelerator with mypyc from plans.py, reach.py, search.py
and depth_first.py, unchanged but for their imports, and installed as the package `osmosis_solver_native`, which
records the SHA-256 of the sources it was built from. It gives the same answers position for position
(tests/solver/test_native.py), four to five times faster; these modules stay the reference, and a copy
built from other sources is never used. Checking that reads the three sources once, when the solver is
first imported: the only reading of files in the solver, and no answer depends on it.
"""

from __future__ import annotations

import hashlib
import importlib
from importlib import resources
from types import ModuleType

NATIVE_PACKAGE = "osmosis_solver_native"
SOURCES = ("plans.py", "reach.py", "search.py", "depth_first.py")


def source_digest() -> str:
    """The SHA-256 of the search's sources, as the build records it."""
    return digest_of({name: resources.files("server.solver").joinpath(name).read_bytes() for name in SOURCES})


def digest_of(sources: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update(name.encode() + b"\0" + sources[name] + b"\0")
    return digest.hexdigest()


def compiled_search() -> tuple[ModuleType | None, str]:
    """The compiled search module if it is installed and built from these sources, and a sentence saying
    which search runs or why the compiled one does not."""
    try:
        package = importlib.import_module(NATIVE_PACKAGE)
    except ImportError:
        return None, "pure Python: no compiled search is installed (scripts/build-solver-accelerator)"
    if getattr(package, "SOURCE_DIGEST", None) != source_digest():
        return None, "pure Python: the compiled search was built from other sources (build it again)"
    try:
        module = importlib.import_module(f"{NATIVE_PACKAGE}.depth_first")
    except ImportError as error:
        return None, f"pure Python: the compiled search does not load ({error})"
    return module, "compiled (mypyc), built from these sources"


def chosen_search(prefer_compiled: bool = True) -> tuple[ModuleType, str]:
    """The search module to run and a sentence saying which it is: the compiled copy if `prefer_compiled`
    and it matches these sources, else the pure modules."""
    from . import depth_first

    if not prefer_compiled:
        return depth_first, "pure Python"
    module, why = compiled_search()
    return (module, why) if module is not None else (depth_first, why)
