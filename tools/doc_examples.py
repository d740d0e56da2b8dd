"""Re-run the documented `$ planner ...` examples of the cost pages and paste their output.

`tests/test_readme_cost.py` fails when a page shows output the command no longer prints
(a price, a line item or a wording changed). This rewrites those blocks in place with what
the command prints now, so the page and the product agree again; review the diff before
committing it, since the new output is what users will read.

Blocks with a `...` elision, and those that need a setup the page describes in prose (the
test skips them too), are left alone and listed.

    .venv/bin/python -m tools.doc_examples
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/getting-started.md", "docs/cost.md", "docs/tasks/compare.md")
NEEDS_SETUP = ("--base-ref", "my-prices.yaml", "--live-prices")
BLOCK = re.compile(r"```\n(\$ planner .*?)```", flags=re.S)


def _run(argv: list[str]) -> str:
    from planner.cli import main

    out = io.StringIO()
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                main(argv)
            except SystemExit:
                pass
    finally:
        os.chdir(old)
    return out.getvalue()


def _refresh(block: str, skipped: list[str]) -> str:
    lines = block.rstrip("\n").split("\n")
    head = [lines.pop(0)]
    while head[-1].endswith("\\"):
        head.append(lines.pop(0))
    argv = shlex.split(" ".join(h.rstrip("\\") for h in head))[2:]
    if any(x in argv for x in NEEDS_SETUP) or any(line.strip() == "..." for line in lines):
        skipped.append(" ".join(argv))
        return block
    return "\n".join(head) + "\n" + _run(argv)


def main() -> None:
    os.environ.setdefault("COLUMNS", "100")
    skipped: list[str] = []
    for rel in PAGES:
        path = ROOT / rel
        text = path.read_text(encoding="utf-8")
        new = BLOCK.sub(lambda m: "```\n" + _refresh(m.group(1), skipped) + "```", text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {rel}")
    for s in skipped:
        print(f"left alone: planner {s}")


if __name__ == "__main__":
    main()
