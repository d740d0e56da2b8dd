"""The compare, capacity and diff reports of tests/section_documents.py (hand-built, so a price
change never rewrites their snapshots): each has a snapshot per format (tools.snapshots'
SECTION_CASES, compared by tests/test_snapshots.py), and each round-trips through its JSON, so a
saved report (`planner render`) renders as the run that wrote it."""

from __future__ import annotations

import json

import pytest

from planner.core.document import RenderContext
from planner.core.document.report import load_report
from planner.core.render.formats import SECTION_FORMATS, render
from tests.section_documents import REPORTS
from tools import snapshots

CONTEXT = RenderContext(width=100)


def test_every_report_has_a_snapshot_per_format() -> None:
    assert {(doc, fmt) for doc, fmt, _ in snapshots.SECTION_CASES.values()} == {
        (d, f) for d in REPORTS for f in SECTION_FORMATS
    }


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_the_report_round_trips_through_its_json(name: str) -> None:
    """from_json(to_json(x)) == x, through the JSON text as a saved report is read back."""
    report = REPORTS[name]()
    data = json.loads(render(report, "json"))
    assert data["version"] == 2 and data["command"] == report.command
    again = load_report(data)
    assert again == report
    for fmt in SECTION_FORMATS:
        assert render(again, fmt, CONTEXT) == render(report, fmt, CONTEXT)


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_a_section_report_has_no_sarif_or_annotations(fmt: str) -> None:
    with pytest.raises(ValueError, match="renders as table, json, markdown"):
        render(REPORTS["compare"](), fmt, CONTEXT)
