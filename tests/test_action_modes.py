"""Untrusted code stays untrusted (issue 32, docs/security.md): the Action's two halves.

`mode: plan` runs in the pull-request job (the pull request's code, a read-only token, no
secret): it uploads the reports and fails on planner's own exit code, whatever the code planned
writes to `$GITHUB_OUTPUT` or to the report files. `mode: publish` runs in a `workflow_run` job
(the write token, none of the pull request's code): it validates the artifact and takes the
comment, the SARIF, the outputs and the gate from the validated report only.

The code planned is played by a stand-in `planner` on PATH that does what a hostile program run by
planner could do (append forged outputs, rewrite the report, exit as it likes) before or after
the real planner; the scripts under test are the Action's own (tests/test_action.py's runner).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT, run_cli
from tests.test_action import run_action

STACK = ROOT / "stacks" / "Pulumi.p5en-train.yaml"
WORKFLOWS = ROOT / ".github" / "workflows"
SHA_PIN = re.compile(r"uses: ([\w.-]+/[\w./-]+)@([0-9a-f]{40})  # v\d+\.\d+\.\d+$")


def _path_with(tmp_path: Path, script: str) -> dict[str, str]:
    """PATH with a `planner` that runs `script` (bash) with REAL set to the real planner."""
    real = shutil.which("planner", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert real
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    (folder / "planner").write_text(f'#!/usr/bin/env bash\nREAL="{real}"\n{script}', encoding="utf-8")
    (folder / "planner").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


# What a program run by `planner plan` can do: forge the step's outputs, then let planner fail.
FORGER = """
if [ "$1" = plan ]; then
  "$REAL" "$@"; code=$?
  printf 'exit-code=0\\ntotal-cost=0.00\\n' >> "${GITHUB_OUTPUT:-/dev/null}"
  exit $code
fi
exec "$REAL" "$@"
"""


def _failing_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "infra"
    (repo / "stacks").mkdir(parents=True)
    text = STACK.read_text(encoding="utf-8").replace(
        "  planner:cluster:\n", "  planner:cluster:\n    budget: {total_usd: 1}\n", 1
    )
    (repo / "stacks" / STACK.name).write_text(text, encoding="utf-8")
    return repo


def test_plan_mode_fails_on_planners_own_exit_code_whatever_the_code_writes(tmp_path: Path) -> None:
    res = run_action(_failing_repo(tmp_path), tmp_path, env=_path_with(tmp_path, FORGER), mode="plan")
    assert res["failed"] == "Plan" and res["code"] == 1, res["logs"]  # the job fails there
    assert [name for name, *_ in res["logs"]] == ["Install planner", "Plan"]  # no gate reads an output
    artifact = tmp_path / "planner-artifact"
    assert (artifact / "plan.json").is_file()
    assert not (artifact / "comment.md").exists()  # nothing is rendered to post in this job
    # the upload runs after the failed step (the runner's `always()`; this runner stops at the failure)
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    upload = next(s for s in action["runs"]["steps"] if "upload-artifact" in str(s.get("uses")))
    assert upload["if"].startswith("always()") and upload["with"]["path"] == "${{ runner.temp }}/planner-artifact/"


def test_plan_mode_refuses_nothing_that_passes(tmp_path: Path) -> None:
    repo = tmp_path / "infra"
    (repo / "stacks").mkdir(parents=True)
    shutil.copy(STACK, repo / "stacks")
    res = run_action(repo, tmp_path, mode="plan", github={"event_name": "pull_request"})
    assert res["failed"] is None and res["code"] == 0, res["logs"]


def test_a_program_on_a_pull_request_is_refused_in_the_single_job(tmp_path: Path) -> None:
    repo = tmp_path / "infra"
    repo.mkdir()
    res = run_action(repo, tmp_path, github={"event_name": "pull_request"}, program="cluster", stack="test")
    assert res["failed"] == "Plan" and res["code"] == 2
    assert "use mode: plan" in res["logs"][-1][3] or "with mode: plan" in res["logs"][-1][3]


def _artifact(tmp_path: Path, report: dict[str, Any] | None = None, **files: str) -> Path:
    folder = tmp_path / "planner-download"
    folder.mkdir(parents=True, exist_ok=True)
    if report is not None:
        (folder / "plan.json").write_text(json.dumps(report), encoding="utf-8")
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text, encoding="utf-8")
    return folder


def _report(tmp_path: Path, stack: Path = STACK) -> dict[str, Any]:
    result = run_cli("plan", "--format", "json", "--", str(stack))
    return json.loads(result.out)  # type: ignore[no-any-return]


def _publish(tmp_path: Path, **github: str) -> dict[str, Any]:
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)  # the publish job's checkout: the default branch, nothing of the pull request's
    return run_action(empty, tmp_path, mode="publish", github={"event_name": "workflow_run", **github})


def test_publish_gates_on_the_validated_report(tmp_path: Path) -> None:
    report = _report(tmp_path)
    report["stacks"][0]["findings"] = [
        {
            "rule": "budget-exceeded",
            "severity": "error",
            "message": "over budget",
            "file": "stacks/Pulumi.p5en-train.yaml",
            "line": 3,
            "path": "planner:cluster.budget",
            "suppressed": False,
        }
    ]
    report["rules"][0]["remediation"] = "<img src=x> </details> [x](https://evil.test)"
    _artifact(tmp_path, report, exit_code="0", comment_md="0 errors <script>")  # files the job may forge
    res = _publish(tmp_path)
    assert res["outputs"]["exit-code"] == "1" and res["failed"] == "Gate", res["logs"]
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert comment.startswith("<!-- planner-report -->") and "1 error" in comment
    assert "<img" not in comment and "</details> [x]" not in comment and "<script>" not in comment
    sarif = json.loads(Path(res["outputs"]["sarif-file"]).read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}


def test_publish_refuses_a_report_that_is_not_valid(tmp_path: Path) -> None:
    report = _report(tmp_path)
    report["stacks"][0]["findings"] = [
        {"rule": "x", "severity": "error", "message": "m", "file": "f", "line": "3,title=forged", "suppressed": False}
    ]
    _artifact(tmp_path, report)
    res = _publish(tmp_path)
    assert res["outputs"]["exit-code"] == "2" and res["outputs"]["total-cost"] == "", res["logs"]
    assert res["outputs"]["sarif-file"] == "" and res["failed"] == "Gate"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert "the report could not be used" in comment
    assert "stacks[0].findings[0].line: expected an integer >= 1" in comment


def test_publish_passes_a_clean_report_with_its_cost(tmp_path: Path) -> None:
    _artifact(tmp_path, _report(tmp_path))
    res = _publish(tmp_path)
    assert res["failed"] is None and res["outputs"]["exit-code"] == "0", res["logs"]
    assert res["outputs"]["total-cost"] == "74046.30"


def test_publish_without_a_report_fails_and_nothing_planned_passes(tmp_path: Path) -> None:
    _artifact(tmp_path)
    res = _publish(tmp_path)
    assert res["outputs"]["exit-code"] == "2" and res["failed"] == "Gate"
    _artifact(tmp_path, not_run="")  # `not-run`: the change held no stack file
    (tmp_path / "planner-download" / "not.run").rename(tmp_path / "planner-download" / "not-run")
    res = _publish(tmp_path)
    assert res["outputs"]["exit-code"] == "0" and res["failed"] is None, res["logs"]


def test_publish_posts_only_to_a_confirmed_pull_request(tmp_path: Path) -> None:
    """The artifact's pr.txt is the pull-request job's word: without `gh` confirming the pull
    request's head is the run's commit, nothing is posted (pr-number empty: the comment step is skipped)."""
    _artifact(tmp_path, _report(tmp_path), pr_txt="7\n")
    res = _publish(tmp_path)
    assert res["outputs"]["pr-number"] == "" and "cannot be confirmed" in res["logs"][-2][2], res["logs"]
    _artifact(tmp_path, _report(tmp_path), pr_txt="7; rm -rf /\n")
    res = _publish(tmp_path)
    assert res["outputs"]["pr-number"] == ""


# --- the workflows ---------------------------------------------------------------------


def _workflow(name: str) -> dict[str, Any]:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_pull_request_job_has_a_read_only_token_and_no_secret() -> None:
    workflow = _workflow("planner.yml")
    triggers = workflow[True]  # YAML 1.1 reads `on:` as true
    assert set(triggers) == {"pull_request"}
    job = workflow["jobs"]["plan"]
    assert job["permissions"] == {"contents": "read"}
    assert "secrets." not in yaml.safe_dump(job) and "env" not in job
    planner = next(s for s in job["steps"] if s.get("uses") == "./")
    assert planner["with"]["mode"] == "plan"


def test_the_publish_workflow_runs_none_of_the_pull_requests_code() -> None:
    workflow = _workflow("planner-publish.yml")
    triggers = workflow[True]
    assert triggers == {"workflow_run": {"workflows": ["planner"], "types": ["completed"]}}
    assert workflow["permissions"] == {"contents": "read"}
    job = workflow["jobs"]["publish"]
    assert job["permissions"] == {
        "contents": "read",
        "actions": "read",
        "pull-requests": "write",
        "security-events": "write",
    }
    checkout = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert "ref" not in checkout["with"] and checkout["with"]["persist-credentials"] is False  # the default branch
    assert not any("run" in s for s in job["steps"])  # no script of its own: the Action's, from the default branch
    planner = next(s for s in job["steps"] if s.get("uses") == "./")
    assert planner["with"]["mode"] == "publish"


def test_every_third_party_action_is_pinned_to_a_full_commit_sha_with_its_version() -> None:
    pins: dict[str, str] = {}
    for path in [ROOT / "action.yml", WORKFLOWS / "planner.yml", WORKFLOWS / "planner-publish.yml"]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.match(r"\s*-? *uses: ", line) and "uses: ./" not in line:  # a step, not a comment
                m = SHA_PIN.search(line)
                assert m, f"{path.name}: {line.strip()}"
                pins[m.group(1)] = m.group(2)
    # read from the actions' own repositories (tags v7.0.0 and v8.0.1), as the comments say
    assert pins["actions/upload-artifact"] == "bbbca2ddaa5d8feaa63e36b76fdaad77386f024f"
    assert pins["actions/download-artifact"] == "3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c"
