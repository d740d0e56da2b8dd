"""The pull-request workflow calls planner commands that exist, with options the CLI accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from planner.cli import build_parser

WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "planner.yml"


def _steps() -> list[dict]:
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    return [step for job in jobs.values() for step in job["steps"]]


def _planner_commands() -> list[list[str]]:
    out = []
    for step in _steps():
        for line in str(step.get("run", "")).splitlines():
            m = re.search(r"\.venv/bin/planner (.+?)( 2>(&1|> ?\S+| ?\S+))?( \|\| (true|test \$\? -eq 1))?$", line.strip())
            if m:
                out.append(shlex.split(m.group(1).replace("$BASE_REF", "origin/main")))
    return out


def test_workflow_runs_plan_sarif_markdown_and_diff() -> None:
    commands = _planner_commands()
    assert ["plan", "--format", "sarif", "-o", "planner.sarif"] in commands
    assert ["plan", "--format", "markdown"] in commands
    assert ["diff", "--base-ref", "origin/main", "--format", "markdown"] in commands
    assert commands[-1] == ["plan", "--format", "github", "--fail-on", "error"]  # the gate, last


def test_every_planner_command_in_the_workflow_parses() -> None:
    parser = build_parser()
    for argv in _planner_commands():
        args = parser.parse_args(argv)
        assert args.command == argv[0]


def test_sarif_upload_and_comment_run_even_when_the_plan_fails() -> None:
    steps = {s.get("uses", "").split("@")[0]: s for s in _steps() if "uses" in s}
    assert steps["github/codeql-action/upload-sarif"]["if"].startswith("always()")
    assert steps["marocchino/sticky-pull-request-comment"]["if"].startswith("always()")


def test_policy_preview_is_guarded_by_credentials() -> None:
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["policy-preview"]
    assert "vars.AWS_ROLE_ARN" in job["if"]
    preview = next(s for s in job["steps"] if "pulumi preview" in str(s.get("run", "")))
    assert preview["if"] == "steps.creds.outputs.ok == 'true'"
    assert "--policy-pack policy --policy-pack-config policy/policy-config.json" in preview["run"]
