"""Suppression (file and command line), unknown rule ids as bad input, and --fail-on."""

from __future__ import annotations

import json

from tests.conftest import run_cli

R = "us-east-1"  # p5en.48xlarge is priced on demand there, so no price-unknown finding joins in

WARN_ONLY = """
availability_zone: us-east-1a
node_groups:
  - name: trainers
    instance_type: p5en.48xlarge
    count: 2
    efa: false
"""

ERROR = """
availability_zone: us-east-1a
node_groups:
  - name: trainers
    instance_type: p5en.48xlarge
    count: 1
    public_ip: true
"""


def _findings(out: str) -> list[dict]:
    return json.loads(out)["stacks"][0]["findings"]


def test_fail_on_error_and_warning(stack_file) -> None:
    path = str(stack_file(WARN_ONLY, region=R))
    assert run_cli("plan", path).code == 0
    assert run_cli("plan", path, "--fail-on", "warning").code == 1
    assert run_cli("plan", str(stack_file(ERROR, region=R, name="err"))).code == 1


def test_file_suppression_keeps_the_finding_and_does_not_fail(stack_file) -> None:
    path = str(
        stack_file(
            ERROR + "suppress:\n  - rule: public-ip-multi-card\n    reason: test rig behind a firewall\n", region=R
        )
    )
    res = run_cli("plan", path, "--format", "json", "--fail-on", "warning")
    assert res.code == 0, res.out
    (f,) = _findings(res.out)
    assert f["rule"] == "public-ip-multi-card" and f["suppressed"] is True and f["severity"] == "error"


def test_cli_suppression(stack_file) -> None:
    path = str(stack_file(ERROR, region=R))
    res = run_cli("plan", path, "--format", "json", "--suppress", "public-ip-multi-card")
    assert res.code == 0
    assert [f["suppressed"] for f in _findings(res.out)] == [True]


def test_suppressing_one_rule_leaves_the_others(stack_file) -> None:
    # a second group without EFA draws efa-recommended; the first (EFA on every card) keeps its public IP error
    path = str(
        stack_file(
            ERROR + "  - name: helpers\n    instance_type: p5en.48xlarge\n    count: 1\n    efa: false\n", region=R
        )
    )
    res = run_cli("plan", path, "--format", "json", "--suppress", "efa-recommended", "--fail-on", "warning")
    assert res.code == 1
    assert {f["rule"]: f["suppressed"] for f in _findings(res.out)} == {
        "efa-recommended": True,
        "public-ip-multi-card": False,
    }


def test_unknown_rule_in_file_is_bad_input(stack_file, tmp_path) -> None:
    out = tmp_path / "report.json"
    path = stack_file(WARN_ONLY + "suppress:\n  - rule: efa-recomended\n    reason: typo\n", region=R)
    res = run_cli("plan", str(path), "--format", "json", "--output", str(out))
    assert res.code == 2 and res.out == ""
    lines = res.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0] == (
        f"planner: {path}:11: planner:cluster.suppress[0].rule: unknown rule 'efa-recomended' "
        "(did you mean 'efa-recommended'?); `planner rules` lists the rule ids"
    )
    doc = json.loads(out.read_text(encoding="utf-8"))  # no plan: the report of the problem, on its line
    assert doc["stacks"] == [] and doc["problems"] == [
        {
            "file": str(path),
            "line": 11,
            "key": "planner:cluster.suppress[0].rule",
            "message": "unknown rule 'efa-recomended' (did you mean 'efa-recommended'?); `planner rules` lists the rule ids",
        }
    ]


def test_unknown_rule_on_command_line_is_bad_input(stack_file) -> None:
    res = run_cli("plan", str(stack_file(WARN_ONLY, region=R)), "--suppress", "no-such-rule")
    assert res.code == 2
    assert (
        res.err.strip()
        == "planner: command line: --suppress: unknown rule 'no-such-rule'; `planner rules` lists the rule ids"
    )
    assert (
        "Input problems\n  error    command line: --suppress: unknown rule 'no-such-rule'" in res.out
    )  # and in the report


def test_unknown_rule_on_command_line_is_in_no_file_in_sarif_and_annotations(stack_file) -> None:
    """A `--suppress` problem is in no file: SARIF has it as a notification of the run (GitHub code
    scanning refuses a result without a location), the annotation names no file."""
    path = str(stack_file(WARN_ONLY, region=R))
    res = run_cli("plan", path, "--suppress", "no-such-rule", "--format", "sarif")
    assert res.code == 2
    (run,) = json.loads(res.out)["runs"]
    assert run["results"] == []
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False  # no result says what went wrong: not a clean-looking run
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"].startswith("--suppress: unknown rule 'no-such-rule'")
    rules = run["tool"]["driver"]["rules"]
    assert rules[note["associatedRule"]["index"]]["id"] == note["associatedRule"]["id"] == "invalid-input"
    res = run_cli("plan", path, "--suppress", "no-such-rule", "--format", "github")
    assert res.code == 2
    assert res.out.splitlines()[0].startswith("::error title=invalid input::--suppress: unknown rule 'no-such-rule'")


def test_suppression_needs_a_reason(stack_file) -> None:
    res = run_cli("plan", str(stack_file(ERROR + "suppress:\n  - rule: public-ip-multi-card\n", region=R)))
    assert res.code == 2
    assert "suppress[0]: missing required key 'reason'" in res.err
