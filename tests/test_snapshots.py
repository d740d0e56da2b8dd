"""Each format renders the synthetic documents exactly as tests/snapshots/ holds them
(`python -m tools.snapshots` rewrites them after an intended renderer change), and the
document round-trips through its JSON: re-rendering the saved JSON gives the same output."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.core.document import RenderContext, Report
from planner.core.document.report import load_report
from planner.core.render.formats import FORMATS, render
from tests.snapshot_documents import DOCUMENTS
from tools import snapshots

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "name", sorted([*snapshots.CASES, *snapshots.SECTION_CASES])
)  # sections: test_section_snapshots
def test_output_is_the_snapshot(name: str) -> None:
    path = snapshots.SNAPSHOTS / name
    assert path.is_file(), f"{path} missing: run python -m tools.snapshots"
    assert snapshots.render(name) == path.read_text(encoding="utf-8"), (
        f"{name} changed; if intended, run python -m tools.snapshots and review the diff"
    )


def test_every_format_and_document_has_a_snapshot() -> None:
    assert {(doc, fmt) for doc, fmt, _ in snapshots.CASES.values()} == {(d, f) for d in DOCUMENTS for f in FORMATS}


@pytest.mark.parametrize("doc", sorted(DOCUMENTS))
def test_the_document_round_trips_through_its_json(doc: str) -> None:
    report = DOCUMENTS[doc]()
    saved = json.loads(render(report, "json"))
    again = load_report(saved)
    assert again == report
    for fmt in FORMATS:
        assert render(again, fmt, RenderContext(width=100)) == render(report, fmt, RenderContext(width=100))


@pytest.mark.parametrize("doc", sorted(DOCUMENTS))
def test_sarif_of_every_document_is_valid(doc: str) -> None:
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(render(DOCUMENTS[doc](), "sarif")), schema)


def test_input_problems_are_in_every_format() -> None:
    """A broken stack file: a SARIF result and an annotation on its line, JSON `problems`, table, Markdown."""
    report = DOCUMENTS["problems"]()
    run = json.loads(render(report, "sarif"))["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is False  # it also has an option's problem, in no file
    # code scanning processes the results only of a run that says it executed successfully: with
    # every problem on a file's line, the run says so
    import msgspec.structs

    in_files = msgspec.structs.replace(report, problems=tuple(p for p in report.problems if p.has_file))
    assert json.loads(render(in_files, "sarif"))["runs"][0]["invocations"] == [
        {"executionSuccessful": True, "exitCode": 2, "exitCodeDescription": "unusable input: nothing was planned"}
    ]
    sarif = run["results"][0]
    assert sarif["ruleId"] == "invalid-input" and sarif["level"] == "error"
    assert sarif["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "stacks/Pulumi.broken.yaml"},
        "region": {"startLine": 7},
    }
    assert render(report, "github").startswith("::error file=stacks/Pulumi.broken.yaml,line=7,title=invalid input::")
    assert json.loads(render(report, "json"))["problems"][0]["line"] == 7
    for fmt in ("table", "markdown"):
        assert "stacks/Pulumi.broken.yaml:7" in render(report, fmt) and "nothing planned" in render(report, fmt)


def test_a_file_system_in_no_named_zone_is_drawn_outside_the_zones() -> None:
    """A program's Lustre file system may name no AZ (the table says so); the diagram draws it beside the zones."""
    import msgspec.structs

    s = DOCUMENTS["plan"]().stacks[0]
    assert s.topology.lustre is not None
    lustre = msgspec.structs.replace(s.topology.lustre, availability_zone=None)
    report = Report(
        "plan", stacks=(msgspec.structs.replace(s, topology=msgspec.structs.replace(s.topology, lustre=lustre)),)
    )
    diagram = render(report, "markdown").split("```mermaid\n")[1].split("```")[0].splitlines()
    assert diagram[diagram.index("  end") + 1] == (
        '  fsx[("FSx for Lustre PERSISTENT_2<br/>1,000 GiB, 250 MB/s/TiB, in an AZ the program does not name")]'
    )


RENDERERS = (
    "table",
    "json_report",
    "markdown",
    "sarif",
    "github",
    "digest",
    "cost_report",
    "bounded",
    "formats",
    "compare_report",
    "block_offerings_report",
    "findings_for_people",
    "diff_report",
)
ALLOWED = ("planner.core.document", "planner.core.render", "planner.core.text", "planner.__version__")


@pytest.mark.parametrize("module", RENDERERS)
def test_renderers_import_only_the_document_and_text_helpers(module: str) -> None:
    """No renderer asks the rules, the registry, the pipeline, the locator or the catalogue."""
    tree = ast.parse((ROOT / "planner" / "core" / "render" / f"{module}.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported |= {node.module} if node.module != "planner" else {f"planner.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
    wrong = sorted(m for m in imported if m.startswith("planner") and not m.startswith(ALLOWED))
    assert not wrong, f"planner/core/render/{module}.py imports {wrong}"


_TEXT = st.text(max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    message=_TEXT,
    reason=_TEXT,
    fix=st.none() | _TEXT,
    file=_TEXT,
    line=st.none() | st.integers(1, 10**6),
    problem=_TEXT,
)
def test_any_text_round_trips_and_renders_the_same(
    message: str, reason: str, fix: str | None, file: str, line: int | None, problem: str
) -> None:
    """Whatever a stack or a program says (line breaks, bidi overrides, lone surrogates), the saved JSON
    reads back to the same document and renders the same."""
    import msgspec.structs

    from planner.core.document import InputProblem, ReportedEdit, ReportedFinding, ReportedFix, Suppression

    s = DOCUMENTS["plan"]().stacks[0]
    odd = ReportedFinding(
        "efa-recommended",
        "warning",
        message,
        file,
        line,
        "planner:cluster",
        Suppression("inSource", reason),
        fix=None
        if fix is None
        else ReportedFix(fix, reason, (ReportedEdit("planner:cluster.schedule.hours", "set", 1),)),
    )
    for report in (
        Report("plan", stacks=(msgspec.structs.replace(s, findings=(odd, *s.findings)),)),
        Report("plan", problems=(InputProblem(file, line, "planner:cluster", problem),)),
    ):
        again = load_report(json.loads(render(report, "json")))
        assert again == report
        assert render(again, "markdown") == render(report, "markdown")
        assert render(again, "github") == render(report, "github")
