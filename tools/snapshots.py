"""Snapshots: what each format renders for the synthetic documents of tests/snapshot_documents.py.

Why: each format is an interface (people read the table, GitHub reads SARIF and the
annotations, scripts read the JSON document), so a change to a renderer shows up as a
reviewed diff of tests/snapshots/. The documents are built by hand (no price book, catalogue
or registry), so a price update or a new rule never touches these files. `tests/test_snapshots.py`
renders each case and compares; after an intended change to a renderer:

    .venv/bin/python -m tools.snapshots          # rewrite tests/snapshots/*
    .venv/bin/python -m tools.snapshots --check  # only compare (exit 1 on a difference)
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots"

EXTENSIONS = {"table": "table.txt", "json": "json", "markdown": "md", "sarif": "sarif", "github": "github.txt"}
DOCUMENTS = ("plan", "clean", "preflight", "problems", "baseline")

# file name -> (document in tests.snapshot_documents.DOCUMENTS, format, width: None for natural widths)
CASES: dict[str, tuple[str, str, int | None]] = {
    f"{doc}.{ext}": (doc, fmt, 100) for doc in DOCUMENTS for fmt, ext in EXTENSIONS.items()
}
CASES["plan.table.60.txt"] = ("plan", "table", 60)  # wrapped to a narrow terminal
CASES["plan.table.wide.txt"] = ("plan", "table", None)  # --wide: price sources in the rows

# the compare, capacity and diff reports of tests/section_documents.py (tests/test_section_snapshots.py):
# table, json and markdown, the formats those commands have
SECTION_DOCUMENTS = (
    "compare",
    "compare-deadline",
    "compare-empty",
    "compare-problems",
    "capacity",
    "capacity-nothing",
    "capacity-extension",
    "capacity-extension-failed",
    "capacity-problems",
    "diff",
    "diff-pair",
)
SECTION_CASES: dict[str, tuple[str, str, int | None]] = {
    f"{doc}.{EXTENSIONS[fmt]}": (doc, fmt, 100) for doc in SECTION_DOCUMENTS for fmt in ("table", "json", "markdown")
}


def render(name: str) -> str:
    """Case `name` rendered; the planner version in SARIF is written `VERSION`, so a release leaves it alone."""
    from planner import __version__
    from planner.core.document import RenderContext
    from planner.core.render.formats import render as render_format
    from tests.section_documents import REPORTS
    from tests.snapshot_documents import DOCUMENTS

    doc, fmt, width = CASES[name] if name in CASES else SECTION_CASES[name]
    text = render_format({**DOCUMENTS, **REPORTS}[doc](), fmt, RenderContext(width=width))
    return text.replace(f'"{__version__}"', '"VERSION"') if fmt == "sarif" else text


def main(argv: list[str] | None = None) -> int:
    from tools.golden import sync

    sys.path.insert(0, str(ROOT))
    return sync(
        "python -m tools.snapshots",
        SNAPSHOTS,
        [(name, functools.partial(render, name)) for name in [*CASES, *SECTION_CASES]],
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
