"""The Action's `baseline` input (issue 34, item 7): findings recorded in a baseline file do not fail
the gate, and a pull request cannot weaken its own gate. On a pull request the baseline is read from
the base branch's copy (`git cat-file blob <base>:<path>`), never from the pull request's working
tree: a pull request that records its own new finding in the file still fails. Without a base (a
push), the checkout's copy is the branch's own.

The repository is built here: a new git repository of stack files, its base branch as
`origin/main`; the Action's scripts run as in tests/test_action.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from conftest import ROOT, run_cli
from test_action import run_action
from test_program_default import _git

INVALID = ROOT / "tests" / "invalid_stacks"
LUSTRE = "Pulumi.lustre-capacity.yaml"  # an error finding (lustre-capacity): the gate fails on it
BASELINE = "planner-baseline.json"
PR = {"event_name": "pull_request", "base_ref": "main"}


def base_repo(tmp_path: Path, *, with_baseline: bool = True) -> Path:
    """stacks/ with one stack whose error finding the base branch accepted in its baseline file."""
    repo = tmp_path / "repo"
    (repo / "stacks").mkdir(parents=True)
    shutil.copy(INVALID / LUSTRE, repo / "stacks" / LUSTRE)
    if with_baseline:
        res = run_cli("plan", "stacks", "--create-baseline", BASELINE, cwd=repo)
        assert res.code == 0 and (repo / BASELINE).is_file(), res.err
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    return repo


def gate(res: dict[str, Any]) -> str:
    return str(res["outputs"]["exit-code"])


def stderr_of(res: dict[str, Any], step: str = "Plan") -> str:
    return next(err for name, _, _, err in res["logs"] if name == step)


def a_new_finding_recorded_by_the_pull_request(repo: Path) -> None:
    """The pull request's change: a second stack with the same error, and the baseline file rewritten in
    its working tree to record it (what a pull request that wants to pass its own gate would do)."""
    shutil.copy(INVALID / LUSTRE, repo / "stacks" / "Pulumi.second.yaml")
    res = run_cli("plan", "stacks", "--create-baseline", BASELINE, cwd=repo)
    assert res.code == 0, res.err
    recorded = {s["stack"] for s in json.loads((repo / BASELINE).read_text(encoding="utf-8"))["stacks"]}
    assert recorded == {"lustre-capacity", "second"}


def test_the_base_branchs_baseline_lets_its_accepted_findings_pass(tmp_path: Path) -> None:
    repo = base_repo(tmp_path)
    without = run_action(repo, tmp_path, github=PR)
    assert gate(without) == "1" and without["failed"] == "Gate"
    res = run_action(repo, tmp_path, github=PR, baseline=BASELINE)
    assert gate(res) == "0" and res["failed"] is None, res["logs"]
    assert f"planner: info: baseline: read from the base, origin/main:{BASELINE}" in stderr_of(res)
    report = json.loads((tmp_path / "planner" / "plan.json").read_text(encoding="utf-8"))
    (stack,) = report["stacks"]
    assert any(f["rule"] == "lustre-capacity" for f in stack["findings"])
    # the comment says where the baseline was read from
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert f"baseline: read from the base, origin/main:{BASELINE}" in comment


def test_a_pull_request_cannot_record_its_own_new_finding(tmp_path: Path) -> None:
    repo = base_repo(tmp_path)
    a_new_finding_recorded_by_the_pull_request(repo)
    res = run_action(repo, tmp_path, github=PR, baseline=BASELINE)
    assert gate(res) == "1" and res["failed"] == "Gate", res["logs"]
    # the same working tree pushed (no base): the branch's own copy is read, and it passes
    pushed = run_action(repo, tmp_path, github={"event_name": "push"}, baseline=BASELINE)
    assert gate(pushed) == "0" and pushed["failed"] is None, pushed["logs"]


def test_a_baseline_the_base_does_not_have_applies_nothing(tmp_path: Path) -> None:
    """The pull request adds the baseline file: not on the base, so nothing is baselined, and one
    line says so."""
    repo = base_repo(tmp_path, with_baseline=False)
    res = run_cli("plan", "stacks", "--create-baseline", BASELINE, cwd=repo)
    assert res.code == 0
    res = run_action(repo, tmp_path, github=PR, baseline=BASELINE)
    assert gate(res) == "1" and res["failed"] == "Gate"
    assert (
        f"planner: info: baseline: no origin/main:{BASELINE} (the base's copy is the one read, so that a pull "
        "request cannot weaken its own gate): no baseline applies, every finding counts"
    ) in stderr_of(res).splitlines()


def test_plan_mode_reads_the_base_copy_too(tmp_path: Path) -> None:
    """The pull-request job of the two-job layout: its verdict is planner's exit code, with the base's
    baseline."""
    repo = base_repo(tmp_path)
    res = run_action(repo, tmp_path, github=PR, baseline=BASELINE, mode="plan")
    assert res["failed"] is None and "planner: exit code 0" in res["logs"][-1][2], res["logs"]
    a_new_finding_recorded_by_the_pull_request(repo)
    res = run_action(repo, tmp_path, github=PR, baseline=BASELINE, mode="plan")
    assert res["failed"] == "Plan" and "planner: exit code 1" in res["logs"][-1][2]


def test_a_broken_baseline_on_the_base_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """The base branch's baseline is not a baseline (a truncated file): the plan stops with one line
    naming the file, exit 2 (unusable input), and no traceback; nothing is gated as passed."""
    repo = base_repo(tmp_path)
    (repo / BASELINE).write_text('{"version": 1, "stacks": [', encoding="utf-8")
    _git(repo, "commit", "-qam", "break the baseline")
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    res = run_action(repo, tmp_path, github=PR, baseline=BASELINE)
    assert gate(res) == "2" and res["failed"] is not None, res["logs"]
    err = stderr_of(res)
    assert "Traceback" not in err
    # which file: the base's copy, said on the line before; the error names the copy planner read
    assert f"planner: info: baseline: read from the base, origin/main:{BASELINE}" in err
    (line,) = [x for x in err.splitlines() if x.startswith("planner: ") and "info:" not in x]
    assert "baseline.json:1: not JSON" in line and "expected a planner baseline" in line
