"""A saved report is anyone's file (issue 32): `planner render` validates it whole and escapes
every text it carries, rule metadata included, for each format (docs/security.md).

Each hostile report below is the bundled stacks' real report with one value changed, as an
attacker who controls the artifact (or the job that wrote it) would change it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

FINDING = {
    "rule": "budget-exceeded",
    "severity": "error",
    "message": "the budget is exceeded",
    "file": "stacks/Pulumi.p5en-train.yaml",
    "line": 3,
    "path": "planner:cluster.budget",
    "suppressed": False,
}


@pytest.fixture(scope="module")
def saved() -> dict[str, Any]:
    """The bundled stacks' JSON report with one error finding (whose fix is its rule's remediation)."""
    result = run_cli("plan", "--format", "json", "--", "stacks/")
    assert result.code == 0, result.err
    report: dict[str, Any] = json.loads(result.out)
    report["stacks"][0]["findings"] = [dict(FINDING)]
    for other in report["stacks"][1:]:  # trn2-dev's price-unknown warning: one finding in all, the hostile one
        other["findings"] = []
    return report


def _render(tmp_path: Path, report: dict[str, Any], fmt: str, raw: str | None = None) -> Any:
    path = tmp_path / "report.json"
    path.write_text(raw if raw is not None else json.dumps(report), encoding="utf-8")
    return run_cli("render", f"--format={fmt}", "--", str(path))


def _changed(saved: dict[str, Any], where: tuple[Any, ...], value: Any) -> dict[str, Any]:
    report = copy.deepcopy(saved)
    target = report
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    return report


HOSTILE_VALUES = [
    # (where, value, the key path the one line names)
    (("stacks", 0, "findings", 0, "line"), "3,title=forged::x", "stacks[0].findings[0].line"),
    (("stacks", 0, "findings", 0, "line"), 2.5, "stacks[0].findings[0].line"),
    (("stacks", 0, "findings", 0, "line"), 0, "stacks[0].findings[0].line"),
    (("stacks", 0, "findings", 0, "line"), True, "stacks[0].findings[0].line"),
    (("stacks", 0, "findings", 0, "message"), 5, "stacks[0].findings[0].message"),
    (("stacks", 0, "findings", 0, "message"), ["a"], "stacks[0].findings[0].message"),
    (("stacks", 0, "findings", 0, "message"), "x" * 1_000_000, "stacks[0].findings[0].message"),
    (("stacks", 0, "cost", "total_usd"), float("nan"), "stacks[0].cost.total_usd"),
    (("stacks", 0, "cost", "total_usd"), float("inf"), "stacks[0].cost.total_usd"),
    (("stacks", 0, "summary", "instances"), float("-inf"), "stacks[0].summary.instances"),
    (("stacks", 0, "summary", "instances"), "8", "stacks[0].summary.instances"),
    (("stacks", 0, "summary", "node_groups", 0, "purchase"), "stolen", "stacks[0].summary.node_groups[0].purchase"),
    (("stacks", 0, "stack"), {"a": 1}, "stacks[0].stack"),
    (("rules", 0, "source"), "javascript:alert(1)", "rules[0].source"),
    (("rules", 0, "source"), "https://x.test/a b)[c]", "rules[0].source"),
    (("rules", 0, "remediation"), 7, "rules[0].remediation"),
]


@pytest.mark.parametrize(
    ("where", "value", "key"), HOSTILE_VALUES, ids=[k + "=" + repr(v)[:20] for _, v, k in HOSTILE_VALUES]
)
@pytest.mark.parametrize("fmt", ["markdown", "github", "sarif"])
def test_a_bad_value_is_one_line_naming_file_key_and_expectation(
    tmp_path: Path, saved: dict[str, Any], where: tuple[Any, ...], value: Any, key: str, fmt: str
) -> None:
    result = _render(tmp_path, _changed(saved, where, value), fmt)
    assert result.code == 2
    assert result.out == ""  # nothing written on invalid input
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert "internal error" not in result.err and "Traceback" not in result.err
    assert lines[0].startswith(f"planner: {tmp_path / 'report.json'}: {key}: expected ")
    assert len(lines[0]) < 400  # the value quoted is an excerpt, never the whole of it


def test_a_number_python_cannot_convert_is_one_line(tmp_path: Path, saved: dict[str, Any]) -> None:
    raw = json.dumps(saved).replace('"line": 3', '"line": ' + "9" * 5000, 1)
    result = _render(tmp_path, saved, "github", raw=raw)
    assert result.code == 2 and result.out == ""
    assert len(result.err.splitlines()) == 1 and "internal error" not in result.err
    assert len(result.err) < 400


def test_a_list_too_long_is_refused(tmp_path: Path, saved: dict[str, Any]) -> None:
    report = _changed(saved, ("stacks", 0, "findings", 0, "parts"), [0] * 100_001)
    result = _render(tmp_path, report, "sarif")
    assert result.code == 2 and "stacks[0].findings[0].parts: expected at most 100,000 items" in result.err


HOSTILE_TEXT = "<img src=x onerror=alert(1)> [click](https://evil.test) </details> | `ok` @team #1"


def test_remediation_from_the_report_is_inert_markdown(tmp_path: Path, saved: dict[str, Any]) -> None:
    report = _changed(saved, ("rules", 0, "remediation"), HOSTILE_TEXT)
    assert report["rules"][0]["id"] == "budget-exceeded"
    result = _render(tmp_path, report, "markdown")
    assert result.code == 0, result.err
    row = next(line for line in result.out.splitlines() if "**Fix:**" in line)
    fix = row.split("**Fix:**", 1)[1]
    assert "<img" not in fix and "</details>" not in fix  # no HTML, no way out of a <details>
    assert "&lt;img" in fix and "&lt;/details&gt;" in fix
    assert "](" not in fix.replace("\\](", "")  # no link
    assert "\\|" in fix and fix.count("|") == fix.count("\\|") + 1  # one pipe: the cell's end
    assert "`ok`" in fix  # a code span stays one
    assert "`@`team" in fix and "`#`1" in fix  # no mention, no issue reference


def test_remediation_in_sarif_markdown_is_inert(tmp_path: Path, saved: dict[str, Any]) -> None:
    report = _changed(saved, ("rules", 0, "remediation"), HOSTILE_TEXT)
    result = _render(tmp_path, report, "sarif")
    assert result.code == 0, result.err
    rule = json.loads(result.out)["runs"][0]["tool"]["driver"]["rules"][0]
    assert rule["help"]["text"] == HOSTILE_TEXT  # plain text: as the report says
    assert "<img" not in rule["help"]["markdown"] and "</details>" not in rule["help"]["markdown"]
    assert rule["helpUri"].startswith("https://")


def test_annotation_properties_cannot_be_forged(tmp_path: Path, saved: dict[str, Any]) -> None:
    """A file name or rule id with `,` `:` `%` CR LF stays one property value (GitHub's escaping)."""
    report = _changed(saved, ("stacks", 0, "findings", 0, "file"), "a,line=1,title=x::y%0A\r\n::error::z")
    result = _render(tmp_path, report, "github")
    assert result.code == 0, result.err
    first = result.out.splitlines()[0]
    assert first.startswith("::error file=a%2Cline=1%2Ctitle=x%3A%3Ay%250A%0D%0A%3A%3Aerror%3A%3Az,line=3,")
    assert len(result.out.splitlines()) == 2  # the annotation and the summary: no line of the file's own


def test_sarif_lines_are_integers(tmp_path: Path, saved: dict[str, Any]) -> None:
    result = _render(tmp_path, saved, "sarif")
    assert result.code == 0, result.err
    region = json.loads(result.out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3}


def test_a_valid_report_still_renders_as_before(tmp_path: Path) -> None:
    """The validation refuses nothing planner writes: every bundled stack's report renders."""
    plan = run_cli("plan", "--format", "json", "--", "stacks/")
    for fmt in ("markdown", "github", "sarif", "table", "json"):
        result = _render(tmp_path, {}, fmt, raw=plan.out)
        assert result.code == 0, (fmt, result.err)
        assert result.err == ""
