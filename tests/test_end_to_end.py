"""`planner plan` and `planner render` end to end, on the bundled stacks and a broken one.

The formats themselves are snapshot-tested on synthetic documents (tests/test_snapshots.py);
these tests hold the wiring: the CLI builds the document, `--format json` is that document,
and rendering the saved JSON gives exactly what the CLI printed, in every format. No figure
is frozen here, so a price update leaves this file alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from planner.core.document import VERSION, codec
from planner.core.document.report import load_report
from planner.core.render.formats import FORMATS


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "plan.json"
    res = run_cli("plan", str(ROOT / "stacks"), "--format", "json", "--output", str(path))
    assert res.code == 0 and res.err == "", res.err
    return path


def test_the_json_is_the_versioned_document(saved: Path) -> None:
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert doc["version"] == VERSION == 2 and doc["command"] == "plan" and doc["problems"] == []
    assert [s["stack"] for s in doc["stacks"]] == ["p5en-train", "trn2-dev", "ultraserver-prod"]
    assert codec.dump(load_report(doc)) == doc
    assert {r["id"] for r in doc["rules"]} >= {"efa-recommended", "lustre-capacity", "spot-unsupported"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_render_of_the_saved_json_is_what_plan_printed(saved: Path, fmt: str) -> None:
    direct = run_cli("plan", str(ROOT / "stacks"), "--format", fmt)
    again = run_cli("render", "--format", fmt, str(saved))
    assert direct.code == 0 and again.code == 0, again.err
    assert again.out == direct.out


def test_the_table_ends_with_the_verdict() -> None:
    res = run_cli("plan", str(ROOT / "stacks"))
    assert re.fullmatch(
        # trn2-dev's on-demand trn2.48xlarge has no price (price-unknown, with the book's reason)
        r"3 stacks, 0 errors, 1 warning; cost at least \$[\d,]+\.\d\d \(1 without a full total\); exit 0 "
        r"\(no unsuppressed errors\)",
        " ".join(line.strip() for line in res.out.splitlines()[-2:]),  # wrapped to the terminal's width
    )


BROKEN = (
    "config:\n  aws:region: us-east-1\n  planner:cluster:\n    node_groups:\n      - name: a\n        count: lots\n"
)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_broken_stack_file_is_in_every_format(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "Pulumi.broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    res = run_cli("plan", str(path), "--format", fmt)
    assert res.code == 2
    problems = res.err.splitlines()
    assert problems and all(line.startswith(f"planner: {path}:") for line in problems)  # one line each, as before
    assert f"{path}:6: planner:cluster.node_groups[0].count: expected a positive integer, got 'lots'" in res.err
    if fmt == "sarif":
        results = json.loads(res.out)["runs"][0]["results"]
        assert {"ruleId": "invalid-input", "line": 6} in [
            {"ruleId": r["ruleId"], "line": r["locations"][0]["physicalLocation"].get("region", {}).get("startLine")}
            for r in results
        ]
    elif fmt == "github":
        assert f"::error file={path},line=6,title=invalid input::planner:cluster.node_groups[0].count: " in res.out
    elif fmt == "json":
        doc = json.loads(res.out)
        assert (
            doc["stacks"] == []
            and {
                "file": str(path),
                "line": 6,
                "key": "planner:cluster.node_groups[0].count",
                "message": "expected a positive integer, got 'lots'",
            }
            in doc["problems"]
        )
    else:
        assert f"{path}:6" in res.out and "nothing planned" in res.out


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("not json", "not JSON (Expecting value); expected a planner JSON report"),
        ('{"version": 1, "stacks": []}', "a planner report of version 1; this planner reads version 2"),
        ('{"version": 2, "command": "deploy"}', "unknown command 'deploy' in the report"),
        ("[1, 2]", "not a planner report"),
        (
            '{"version": 2, "command": "plan", "stacks": [{"stack": "x"}]}',
            "not a planner report of version 2: missing key",
        ),
    ],
)
def test_render_refuses_what_is_not_a_report(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "report.json"
    path.write_text(text, encoding="utf-8")
    res = run_cli("render", str(path))
    assert res.code == 2 and res.out == ""
    assert len(res.err.splitlines()) == 1 and res.err.startswith(f"planner: {path}") and said in res.err, res.err


@pytest.mark.parametrize("where", ["finding", "rule"])
def test_render_refuses_a_severity_planner_does_not_have(saved: Path, tmp_path: Path, where: str) -> None:
    """A saved report is read back with the severities' Literal checked: `fatal` is one line naming
    the severity, not a KeyError in the renderer that looks the rank up."""
    doc = json.loads(saved.read_text(encoding="utf-8"))
    if where == "rule":
        doc["rules"][0]["severity"] = "fatal"
    else:
        doc["stacks"][0]["findings"] = [
            {"rule": "efa-recommended", "severity": "fatal", "message": "m", "file": "f.yaml", "line": 1}
        ]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    res = run_cli("render", "--format", "sarif", str(path))
    assert res.code == 2 and res.out == "" and len(res.err.splitlines()) == 1, res.err
    assert (
        res.err.startswith(f"planner: {path}: ")
        and "severity: expected one of error, warning, info, got 'fatal'" in res.err
    )


def test_render_of_a_missing_file_is_one_line(tmp_path: Path) -> None:
    res = run_cli("render", str(tmp_path / "nope.json"))
    assert res.code == 2 and len(res.err.splitlines()) == 1 and "cannot read the report" in res.err


def test_render_reads_standard_input(saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(saved.read_bytes())))
    res = run_cli("render", "--format", "github", "-")
    assert res.code == 0 and res.out == run_cli("render", "--format", "github", str(saved)).out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"version": 1, "stacks": []}')))
    res = run_cli("render", "-")
    assert res.code == 2 and res.err.startswith("planner: <standard input>: a planner report of version 1")
