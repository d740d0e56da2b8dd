"""The pull-request workflow, through the Action it uses (action.yml, action/plan.sh), calls
planner commands that exist, with options the CLI accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from planner.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "planner.yml"
ACTION = ROOT / "action.yml"
PLAN_SCRIPT = ROOT / "action" / "plan.sh"
# What the script's variables hold with the Action's defaults on a pull request against main.
DEFAULTS = {
    '"${paths[@]}"': "stacks/",
    '"${book[@]}"': "",
    # mode all on a pull request: a program found in the paths is contained, and refused (--no-programs)
    '"${target[@]}"': "--sandbox=required --no-programs",
    '"${select[@]}"': "",
    '"${options[@]}"': "",
    '"${baseline[@]}"': "",  # the `baseline` input: none by default
    '"--fail-on=${PLANNER_FAIL_ON:-error}"': "--fail-on=error",
    '"--base-ref=$PLANNER_BASE_REF"': "--base-ref=origin/main",
    '"--output=$out/plan.json"': "--output=plan.json",
    '"--output=$out/planner.sarif"': "--output=planner.sarif",
    '"$out/plan.json"': "plan.json",
}


PUBLISH_WORKFLOW = ROOT / ".github" / "workflows" / "planner-publish.yml"  # the trusted half (issue 32)


def _steps() -> list[dict]:
    jobs = [job for path in (WORKFLOW, PUBLISH_WORKFLOW) for job in yaml.safe_load(path.read_text())["jobs"].values()]
    return [step for job in jobs for step in job["steps"]]


def _planner_commands(**given: str) -> list[list[str]]:
    """The script's planner commands with the defaults' values, or those `given` (variable -> value)."""
    values = DEFAULTS | given
    out = []
    for line in PLAN_SCRIPT.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\s*planner (.+?)( 2>(&1|>? ?\S+))?( \|\| (true|\w+=\d+))?(\s+#.*)?$", line)
        if m:
            text = m.group(1)
            for var, value in values.items():
                text = text.replace(var, value)
            out.append(shlex.split(text))
    return out


def test_workflow_uses_the_action_which_runs_plan_sarif_markdown_and_diff() -> None:
    assert any(step.get("uses") == "./" for step in _steps())
    commands = _planner_commands()
    # planned once (a program runs once); every other report is rendered from that document
    assert [
        "plan",
        "--sandbox=required",
        "--no-programs",
        "--fail-on=error",
        "--format",
        "json",
        "--output=plan.json",
        "--",
        "stacks/",
    ] == commands[0]
    assert [argv for argv in commands if argv[0] == "plan"] == [commands[0]]
    assert ["render", "--format", "github", "--", "plan.json"] in commands  # annotations
    assert ["render", "--format", "sarif", "--output=planner.sarif", "--", "plan.json"] in commands
    assert ["render", "--format", "markdown", "--", "plan.json"] in commands  # the comment without a base
    assert [
        "diff",
        "--base-ref=origin/main",
        "--sandbox=required",
        "--no-programs",
        "--format",
        "markdown",
        "--",
        "stacks/",
    ] in commands
    # the paths always after `--` (issue 21, item 1): no path is read as an option
    assert all(argv[-2:] in (["--", "stacks/"], ["--", "plan.json"]) for argv in commands)
    steps = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["runs"]["steps"]
    assert steps[-1]["name"] == "Gate" and 'case "$EXIT_CODE" in' in steps[-1]["run"]  # the gate, last


def test_every_planner_command_in_the_workflow_parses() -> None:
    parser = build_parser()
    for argv in _planner_commands():
        args = parser.parse_args(argv)
        assert args.command == argv[0]
    # `fail-on-incomplete-cost: true` reaches the plan (the gate) and the diff (the comment)
    with_option = _planner_commands(**{'"${options[@]}"': "--fail-on-incomplete-cost"})
    for argv in with_option:
        args = parser.parse_args(argv)
        assert getattr(args, "fail_on_incomplete_cost", False) is (argv[0] in ("plan", "diff")), argv
    # the `baseline` input (read from the base's copy) reaches the plan (the gate) and the diff (the comment)
    with_baseline = _planner_commands(**{'"${baseline[@]}"': "--baseline=base-baseline.json"})
    judged = [argv[0] for argv in with_baseline if "--baseline=base-baseline.json" in argv]
    assert sorted(set(judged)) == ["diff", "plan"] and judged.count("diff") == 2, judged
    for argv in with_baseline:
        args = parser.parse_args(argv)
        assert getattr(args, "baseline", None) == ("base-baseline.json" if argv[0] in ("plan", "diff") else None)


def test_sarif_upload_and_comment_run_even_when_the_plan_fails() -> None:
    steps = {s.get("uses", "").split("@")[0]: s for s in _steps() if "uses" in s}
    assert steps["github/codeql-action/upload-sarif"]["if"].startswith("always()")  # after the Action's gate
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["runs"]["steps"]
    names = [s.get("uses", s.get("name", "")).split("@")[0] for s in action]
    assert names.index("marocchino/sticky-pull-request-comment") < names.index("Gate")  # posted before the gate fails


def test_policy_preview_is_guarded_by_credentials() -> None:
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["policy-preview"]
    assert "vars.AWS_ROLE_ARN" in job["if"]
    preview = next(s for s in job["steps"] if "pulumi preview" in str(s.get("run", "")))
    assert preview["if"] == "steps.creds.outputs.ok == 'true'"
    assert "--policy-pack policy --policy-pack-config policy/policy-config.json" in preview["run"]
