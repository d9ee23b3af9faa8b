"""Judge commits side by side: one benchmark, each commit's own copy of it, alternating runs, one database.

Run: .venv/bin/python bench/compare.py [--bench app_cpu] [--runs 3] A B [C ...] [-- BENCH ARGS]
     .venv/bin/python bench/compare.py --table-from SAVED_OUTPUT   (the table again, from a run's output)
A revision is anything git names (a359914, HEAD~1, main) or "." for this checkout as it stands, uncommitted
changes included. Each revision is exported (git archive) into a temporary directory and runs its own
bench/<name>.py with this checkout's Python, against one PostgreSQL (DATABASE_URL, else one embedded server
started here for all of them), in turns: A, B, A, B... so that the drift of a shared machine falls on every
revision alike. Prints each figure's runs and median per revision, and the last revision against the first.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from server.store import embedded  # noqa: E402

FIGURE = re.compile(r"^([A-Za-z][^\n]*?)\s{2,}(-?[\d,]+(?:\.\d+)?)")
PART = re.compile(r"\b(requests|others)\s+(-?[\d,]+(?:\.\d+)?)")
CPU_LINE = "CPU ms a request:"
CPU_PART = re.compile(r"([a-zA-Z][a-zA-Z ]*?)\s+(-?\d+(?:\.\d+)?)")


def figures(output: str) -> dict[str, float]:
    """Every line that names a figure and then gives it (the first number after two spaces), the requests'
    thread and other threads' parts where a line splits its figure, and the CPU of each party a line below it
    gives."""
    found: dict[str, float] = {}
    name = ""
    for line in output.splitlines():
        if line.strip().startswith(CPU_LINE) and name:  # bench/load.py's CPU of each party, under its phase
            for party, value in CPU_PART.findall(line.strip()[len(CPU_LINE) :]):
                found[f"{name} [CPU ms: {party.strip()}]"] = float(value)
            continue
        match = FIGURE.match(line)
        if not match:
            continue
        name = match.group(1).strip()
        found[name] = float(match.group(2).replace(",", ""))
        for part, value in PART.findall(line[match.end() :]):
            found[f"{name} [{part}]"] = float(value.replace(",", ""))
    return found


def export(revision: str, into: Path) -> Path:
    if revision == ".":
        return PROJECT
    tree = into / re.sub(r"[^\w.-]", "_", revision)
    tree.mkdir()
    unpack(revision, tree)
    return tree


def unpack(revision: str, tree: Path, *paths: str) -> None:
    archive = subprocess.run(["git", "-C", str(PROJECT), "archive", revision, *paths], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)


def replace_bench(tree: Path, revision: str) -> None:
    """Older revisions print fewer figures (the split by thread came later): their code, this bench."""
    subprocess.run(["rm", "-r", str(tree / "bench")], check=True)
    if revision == ".":
        subprocess.run(["cp", "-r", str(PROJECT / "bench"), str(tree)], check=True)
    else:
        unpack(revision, tree, "bench")


def run(tree: Path, bench: str, url: str, extra: list[str]) -> str:
    script = tree / "bench" / f"{bench}.py"
    if not script.exists():
        raise SystemExit(f"{tree} has no bench/{bench}.py")
    done = subprocess.run(
        [sys.executable, str(script), *extra],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": url},
    )
    if done.returncode:
        raise SystemExit(f"bench/{bench}.py failed in {tree}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def table(revisions: list[str], results: dict[str, list[dict[str, float]]]) -> list[str]:
    names = [name for name in results[revisions[0]][0] if all(name in run for rev in revisions for run in results[rev])]
    first, last = revisions[0], revisions[-1]
    lines = ["| figure | " + " | ".join(revisions) + f" | {last} / {first} |", "|---" * (len(revisions) + 2) + "|"]
    for name in names:
        medians = {rev: statistics.median(run[name] for run in results[rev]) for rev in revisions}
        cells = [
            ", ".join(f"{run[name] + 0.0:g}" for run in results[rev]) + f" (**{medians[rev] + 0.0:g}**)"
            for rev in revisions
        ]
        ratio = f"{medians[last] / medians[first] + 0.0:.2f}" if medians[first] else "-"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio} |")
    return lines


def rerun_table(path: Path) -> None:
    """The table again from a saved output of this script (its '# run N of REV' sections)."""
    results: dict[str, list[dict[str, float]]] = {}
    for section in re.split(r"^# run \d+ of ", path.read_text(), flags=re.MULTILINE)[1:]:
        revision, _, output = section.partition("\n")
        results.setdefault(revision.strip(), []).append(figures(output.split("\n| figure")[0]))
    print("\n".join(table(list(results), results)))


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["--table-from"] and len(argv) == 2:
        rerun_table(Path(argv[1]))
        return
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="two or more revisions; '.' is this checkout as it stands")
    parser.add_argument("--bench", default="app_cpu", help="bench/<name>.py to run (default: app_cpu)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each revision (default: 3)")
    parser.add_argument(
        "--bench-from",
        metavar="REV",
        help="run this revision's bench/ in every tree (to split older revisions' figures alike)",
    )
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if len(args.revisions) < 2:
        parser.error("name at least two revisions")
    if args.bench_from not in (None, ".") and "." in args.revisions:
        parser.error("--bench-from another revision cannot replace this checkout's bench/ ('.')")

    with tempfile.TemporaryDirectory(prefix="osmosis-compare-") as scratch:
        root = Path(scratch)
        trees = {rev: export(rev, root) for rev in args.revisions}
        if args.bench_from:
            for tree in trees.values():
                if tree != PROJECT:
                    replace_bench(tree, args.bench_from)
        given = os.environ.get("DATABASE_URL")
        url = given or embedded.start(root / "postgres")
        try:
            results: dict[str, list[dict[str, float]]] = {rev: [] for rev in args.revisions}
            for number in range(1, args.runs + 1):
                for rev, tree in trees.items():
                    output = run(tree, args.bench, url, extra)
                    results[rev].append(figures(output))
                    print(f"# run {number} of {rev}\n{output}", flush=True)
        finally:
            if not given:
                embedded.stop(root / "postgres")
    print(f"bench/{args.bench}.py {' '.join(extra)}: each revision's runs (median)")
    print("\n".join(table(args.revisions, results)))


if __name__ == "__main__":
    main()
