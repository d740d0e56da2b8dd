"""Golden files: what `rules` and `catalog` print (tests/golden/).

Why: each format is an interface, so a change to any of them shows up as a reviewed diff of
these files rather than by surprise. `plan`, `preflight`, `compare`, `capacity` and `diff`
have none: their formats are snapshot-tested on synthetic documents (`tools.snapshots`,
tests/snapshots/), so a price update does not rewrite them, and the CLI is run end to end by
tests/test_end_to_end.py and the commands' own tests (render of the saved JSON is what the
command printed). `tests/test_golden.py` renders
each case and compares; after an intended change, one command rewrites them all:

    .venv/bin/python -m tools.golden          # rewrite tests/golden/*
    .venv/bin/python -m tools.golden --check  # only compare (exit 1 on a difference)

Rendered in this process with a fixed layout (100 columns unless the case says 80, no
colour), from the repository root, so the files do not depend on the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"

# file name -> (COLUMNS, argv after `planner`)
CASES: dict[str, tuple[int, tuple[str, ...]]] = {
    "rules.table.txt": (100, ("rules",)),
    "catalog.table.txt": (100, ("catalog",)),
}


def render(columns: int, argv: tuple[str, ...]) -> str:
    """What `planner ARGV` prints at `columns` columns without colour, from the repository root."""
    from planner.cli import main

    saved = {k: os.environ.get(k) for k in ("COLUMNS", "NO_COLOR", "FORCE_COLOR")}
    os.environ.update(COLUMNS=str(columns), NO_COLOR="1")
    os.environ.pop("FORCE_COLOR", None)
    cwd = os.getcwd()
    out = io.StringIO()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            main(list(argv))
    finally:
        os.chdir(cwd)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return out.getvalue()


def sync(prog: str, folder: Path, texts: Iterable[tuple[str, Callable[[], str]]], argv: list[str] | None = None) -> int:
    """`python -m PROG [--check]`: rewrite each file of `folder` whose text differs (or, with
    `--check`, only list them and exit 1); shared by the golden files and the snapshots."""
    parser = argparse.ArgumentParser(prog=prog, description=f"rewrite (or --check) {folder.relative_to(ROOT)}")
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a file differs")
    args = parser.parse_args(argv)
    stale = []
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in texts:
        text = make()
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if stale:
        print(("stale: " if args.check else "rewrote: ") + ", ".join(stale), file=sys.stderr)
    return 1 if stale and args.check else 0


def main(argv: list[str] | None = None) -> int:
    cases = [(name, functools.partial(render, columns, case)) for name, (columns, case) in CASES.items()]
    return sync("python -m tools.golden", GOLDEN, cases, argv)


if __name__ == "__main__":
    sys.exit(main())
