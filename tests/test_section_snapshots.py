"""The compare, capacity and diff renderers, snapshot-tested per format on hand-built reports.

Each case of `tests/section_documents.py` is rendered in every format and compared with
`tests/snapshots/sections/NAME.FORMAT`; the JSON snapshot is the document's serialisation,
and reading it back gives the same report (what `planner render` relies on). The documents
are synthetic, so a price change never rewrites these files. After an intended change:

    PLANNER_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/test_section_snapshots.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planner.core.document import RenderContext, Report
from planner.report.formats import render
from planner.report.json_report import dumps
from tests.section_documents import REPORTS

SNAPSHOTS = Path(__file__).parent / "snapshots" / "sections"
UPDATE = bool(os.environ.get("PLANNER_UPDATE_SNAPSHOTS"))

EXT = {"table": "txt", "markdown": "md", "json": "json"}
CONTEXT = RenderContext(width=100)  # 100 columns, no colour: the snapshots do not depend on the terminal


def _render(report: Report, fmt: str) -> str:
    return render(report, fmt, CONTEXT)


CASES = [(name, fmt) for name in REPORTS for fmt in ("table", "markdown", "json")]


@pytest.mark.parametrize(("name", "fmt"), CASES, ids=[f"{n}.{f}" for n, f in CASES])
def test_snapshot(name: str, fmt: str) -> None:
    text = _render(REPORTS[name](), fmt)
    path = SNAPSHOTS / f"{name}.{EXT[fmt]}"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with PLANNER_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(REPORTS))
def test_json_round_trips(name: str) -> None:
    """from_json(to_json(x)) == x, through the JSON text as a saved report is read back."""
    report = REPORTS[name]()
    data = json.loads(dumps(report.to_json()))
    assert data["version"] == 2 and data["command"] == report.command
    back = Report.from_json(data)
    assert back == report
    assert dumps(back.to_json()) == dumps(report.to_json())


@pytest.mark.parametrize("name", list(REPORTS))
def test_a_saved_report_renders_alike(name: str) -> None:
    """Rendering the report read back from its JSON gives the same table and Markdown."""
    report = REPORTS[name]()
    back = Report.from_json(json.loads(dumps(report.to_json())))
    for fmt in ("table", "markdown"):
        assert _render(back, fmt) == _render(report, fmt)


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_a_section_report_has_no_sarif_or_annotations(fmt: str) -> None:
    with pytest.raises(ValueError, match="renders as table, json, markdown"):
        render(REPORTS["compare"](), fmt, CONTEXT)
