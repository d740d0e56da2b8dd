"""Issue 21, "The pull request cannot run its own code, and the program runner is a sealed
box": one regression test (or a few) per item, each failing before its fix.

The earlier hardening suite (issue 14) is tests/test_hardening.py; docs/security.md names
the test below that holds each promise.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from test_action import _repo, run_action

P5EN = ROOT / "stacks" / "Pulumi.p5en-train.yaml"
LUSTRE_ERROR = ROOT / "tests" / "invalid_stacks" / "Pulumi.lustre-capacity.yaml"


# --- item 1: the Action never runs code from the checkout -----------------------------------------

# Modules a Python started in the checkout would import from its working directory.
HIJACKS = ("json", "venv", "pip", "math", "sys", "typing", "encodings", "site", "sitecustomize", "outputs")


def _plant(repo: Path, marker: Path) -> None:
    """A pull request's root holding Python files that record being run and forge an output."""
    for name in HIJACKS:
        (repo / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\nprint('exit-code=0')\nprint('total-cost=0.00')\n",
            encoding="utf-8")


def test_the_plan_step_imports_nothing_from_the_checkout(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    repo = _repo(tmp_path, P5EN)
    _plant(repo, marker)
    res = run_action(repo, tmp_path)
    assert not marker.exists(), marker.read_text()
    assert res["failed"] is None and res["outputs"]["exit-code"] == "0", res["logs"]
    assert res["outputs"]["total-cost"] == "85118.17"


def test_the_install_step_runs_no_python_from_the_checkout(tmp_path: Path) -> None:
    """`python3 -m venv` in the checkout imported its `venv.py`; the step now leaves the
    checkout and runs Python isolated. (Offline, pip then fails to fetch the build backend:
    what matters is that nothing from the checkout ran before it.)"""
    marker = tmp_path / "ran"
    repo = tmp_path / "pr"
    repo.mkdir()
    _plant(repo, marker)
    bin_dir = tmp_path / "bin"  # python3 on PATH, planner not: the step installs
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path), "RUNNER_TEMP": str(runner_temp),
           "ACTION_PATH": str(ROOT), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path)}
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(ROOT / "action" / "install.sh")],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert not marker.exists(), (marker.read_text(), proc.stderr)
    assert (runner_temp / "planner-venv" / "bin" / "python").exists(), proc.stderr  # the real venv module ran


def test_every_python_the_action_starts_is_isolated() -> None:
    for script in sorted((ROOT / "action").glob("*.sh")):
        for line in script.read_text(encoding="utf-8").splitlines():
            code = line.split("#", 1)[0]
            for m in re.finditer(r"(?:^|[\s(\"'])(\S*python3?\"?)\s+(\S+)", code):
                assert m.group(2) == "-I", f"{script.name}: {line.strip()}"


def test_paths_are_never_read_as_options(tmp_path: Path) -> None:
    """`paths: "stacks/ -h"` printed help and passed the gate over an error in stacks/."""
    repo = _repo(tmp_path, LUSTRE_ERROR)
    res = run_action(repo, tmp_path, paths="stacks/ -h")
    assert res["failed"] == "Gate" and res["outputs"]["exit-code"] == "2", res["logs"]
    assert "usage:" not in res["logs"][1][2]
    # an input that looks like an option is a value of its own option, never another option
    res = run_action(repo, tmp_path, paths="stacks/", **{"fail-on": "--help"})
    assert res["failed"] == "Gate" and res["outputs"]["exit-code"] == "2"


def _values(doc: object, key: str) -> list[str]:
    """Every value of `key` anywhere in a workflow or action document (`uses`, `run`)."""
    if isinstance(doc, dict):
        return [str(v) for k, v in doc.items() if k == key] + [u for v in doc.values() for u in _values(v, key)]
    if isinstance(doc, list):
        return [u for v in doc for u in _values(v, key)]
    return []


def test_third_party_actions_are_pinned_to_full_commit_shas_and_nothing_is_piped_to_a_shell() -> None:
    files = [ROOT / "action.yml", *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]
    seen = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        for uses in _values(yaml.safe_load(text), "uses"):
            if uses.startswith("./"):
                continue
            seen += 1
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), f"{path.name}: {uses}"
        for run in _values(yaml.safe_load(text), "run"):
            assert not re.search(r"(curl|wget)[^\n|]*\|\s*(sudo\s+)?(ba|z)?sh\b", run), f"{path.name}: {run}"
    assert seen >= 5
    # each pin says which release it is, so an update can be reviewed
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"uses: [^.][^@]*@[0-9a-f]{40}", line):
                assert re.search(r"# v\d+\.\d+\.\d+$", line), line


def test_the_sample_workflow_is_safe_for_pull_requests_from_forks() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "planner.yml").read_text(encoding="utf-8"))
    triggers = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1 reads `on:` as true
    assert "pull_request_target" not in triggers and "workflow_run" not in triggers
    assert workflow["permissions"] == {"contents": "read"}
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
    # the comment is skipped where the token cannot post, even if a caller asks for it
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    comment = next(s for s in action["runs"]["steps"] if "sticky-pull-request-comment" in str(s.get("uses")))
    assert "github.event.pull_request.head.repo.full_name == github.repository" in comment["if"]


def test_the_outputs_come_only_from_planners_json(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "action"))
    try:
        import outputs  # action/outputs.py
    finally:
        sys.path.remove(str(ROOT / "action"))
    report = tmp_path / "plan.json"
    assert outputs.outputs("0", str(report)) == {"exit-code": "2", "total-cost": ""}  # no report: never a pass
    report.write_text(json.dumps({"version": 1, "stacks": [{"cost": {"total_usd": 1.5}}, {"cost": {"total_usd": 2}}]}))
    assert outputs.outputs("1", str(report)) == {"exit-code": "1", "total-cost": "3.50"}
    assert outputs.outputs("0; echo", str(report))["exit-code"] == "2"
    for forged in ({"stacks": []}, {"stacks": [{"cost": {"total_usd": "0.00"}}]}, [1], {"stacks": [{"cost": {"total_usd": True}}]}):
        report.write_text(json.dumps(forged))
        assert outputs.outputs("0", str(report)) == {"exit-code": "2", "total-cost": ""}, forged
    report.write_text('{"stacks": [{"cost": {"total_usd": Infinity}}]}')
    assert outputs.outputs("0", str(report))["exit-code"] == "2"
    report.write_text(json.dumps({"stacks": [{"cost": None}]}))
    assert outputs.outputs("0", str(report)) == {"exit-code": "0", "total-cost": "unknown"}
