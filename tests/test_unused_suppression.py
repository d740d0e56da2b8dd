"""A suppression that suppressed nothing is reported at info level in every format, and never
changes the exit code (issue 15 item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import PlanOptions, plan_stack
from planner.core.render import github, markdown, sarif
from tests.conftest import document, run_cli

R = "us-east-1"
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

# public-ip-multi-card fires (and is suppressed); placement-group-spread never does here
STACK = """
availability_zone: us-east-1a
node_groups:
  - name: trainers
    instance_type: p5en.48xlarge
    count: 1
    public_ip: true
suppress:
  - rule: public-ip-multi-card
    reason: test rig behind a firewall
  - rule: efa-recommended
    reason: "stale | *after* the fix"
"""


def test_json_lists_the_unused_suppressions_with_line_and_key(stack_file) -> None:
    path = str(stack_file(STACK, region=R))
    res = run_cli("plan", path, "--format", "json", "--suppress", "lustre-capacity")
    assert res.code == 0, res.out  # info only: the exit code is that of the findings
    doc = json.loads(res.out)["stacks"][0]
    assert [f["rule"] for f in doc["findings"]] == ["public-ip-multi-card"]
    assert doc["unused_suppressions"] == [
        {
            "rule": "efa-recommended",
            "reason": "stale | *after* the fix",
            "kind": "inSource",
            "file": path,
            "line": 13,
            "path": "planner:cluster.suppress[1]",
        },
        {
            "rule": "lustre-capacity",
            "reason": "suppressed on the command line (--suppress lustre-capacity)",
            "kind": "external",
            "file": path,
            "line": None,
            "path": None,
        },
    ]
    assert res.out == run_cli("plan", path, "--format", "json", "--suppress", "lustre-capacity").out  # deterministic


def test_no_key_when_every_suppression_is_used(stack_file) -> None:
    path = str(stack_file(STACK.split("  - rule: efa-recommended")[0], region=R))
    doc = json.loads(run_cli("plan", path, "--format", "json").out)["stacks"][0]
    assert "unused_suppressions" not in doc


def test_a_repeated_suppression_is_the_unused_one(stack_file) -> None:
    path = stack_file(
        STACK.split("  - rule: efa-recommended")[0] + "  - rule: public-ip-multi-card\n    reason: again\n", region=R
    )
    (u,) = plan_stack(load_stack(str(path))).unused_suppressions
    assert (u.rule, u.reason, u.line) == ("public-ip-multi-card", "again", 13)


def test_table_says_it_once_per_suppression_as_info(stack_file, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = str(stack_file(STACK, region=R))
    res = run_cli("plan", path, "--suppress", "lustre-capacity")
    assert res.code == 0
    lines = res.out.splitlines()
    assert f"    info     unused suppression: efa-recommended  {path}:13" in lines
    assert (
        "      suppression of 'efa-recommended' matched no finding in this stack; remove it, "
        "or check that it names the rule meant"
    ) in lines
    assert "    info     unused suppression: lustre-capacity  command line" in lines
    assert (
        "      --suppress lustre-capacity matched no finding in this stack; remove it, "
        "or check that it names the rule meant"
    ) in lines
    # the summary line counts them, so the last line alone says a suppression needs attention
    assert "2 unused suppressions" in lines[-1]


def test_markdown_github_and_sarif(stack_file) -> None:
    path = str(stack_file(STACK, region=R))
    plans = [plan_stack(load_stack(path), PlanOptions(suppress=("lustre-capacity",)))]
    md = markdown.render(document(plans))
    assert (
        f":information_source: Unused suppression `efa-recommended` at `{path}:13`: suppression of "
        "'efa-recommended' matched no finding in this stack; remove it, or check that it names the rule meant"
    ) in md
    gh = github.render(document(plans)).splitlines()
    assert (
        f"::notice file={github.escape_property(path)},line=13,title=unused suppression%3A efa-recommended::"
        "suppression of 'efa-recommended' matched no finding in this stack; remove it, or check that it names "
        "the rule meant"
    ) in gh
    doc = json.loads(sarif.render(document(plans)))
    jsonschema.Draft4Validator(SCHEMA).validate(doc)
    notes = doc["runs"][0]["invocations"][0]["toolConfigurationNotifications"]
    assert [(n["level"], n["associatedRule"]["id"]) for n in notes] == [
        ("note", "efa-recommended"),
        ("note", "lustre-capacity"),
    ]
    assert notes[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 13}
    assert all(r["ruleId"] != "efa-recommended" for r in doc["runs"][0]["results"])  # a note, not a result
