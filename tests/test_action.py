"""The composite GitHub Action (`action.yml`) and the pre-commit hook (`.pre-commit-hooks.yaml`).

The Action's shell steps are run here as the runner runs them: each step's `env:` with its
`${{ inputs.* }}`, `${{ github.* }}` and `${{ steps.*.outputs.* }}` expressions filled in,
its `run:` under `bash --noprofile --norc -eo pipefail`, its `$GITHUB_OUTPUT` file read back
for the next steps. Steps that `uses:` another action (setup-python, the sticky comment) are
GitHub's and are not run. `planner` is on PATH from this checkout's virtualenv, so the
install step finds it and installs nothing (tests/test_wheel.py tests the installed wheel).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPR = re.compile(r"\$\{\{\s*([\w.-]+(?:\s*\|\|\s*[\w.-]+)*)\s*\}\}")


def _lookup(context: dict[str, Any], path: str) -> str:
    if "||" in path:  # `a || b`: the first that is not empty, as GitHub's expressions do
        return next((v for v in (_lookup(context, p.strip()) for p in path.split("||")) if v), "")
    value: Any = context
    for part in path.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return str(value)


def run_action(
    workdir: Path, tmp: Path, github: dict[str, str] | None = None, env: dict[str, str] | None = None, **inputs: str
) -> dict[str, Any]:
    """Run the Action's shell steps in `workdir` (with `env` over the runner's environment); returns
    outputs, per-step logs and the failing step."""
    context: dict[str, Any] = {
        "inputs": {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()} | inputs,
        "github": {"action_path": str(ROOT), "base_ref": "", "event_name": "push"} | (github or {}),
        "runner": {"temp": str(tmp)},
        "steps": {},
    }
    env_base = dict(
        os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", RUNNER_TEMP=str(tmp)
    ) | (env or {})
    logs, skipped = [], []
    for i, step in enumerate(ACTION["runs"]["steps"]):
        if "uses" in step:
            skipped.append(step["uses"].split("@")[0])
            continue
        assert step["shell"] == "bash"
        if not step_runs(step, context):
            continue
        out_file = tmp / f"output-{i}"
        out_file.write_text("", encoding="utf-8")
        step_env = env_base | {
            k: EXPR.sub(lambda m: _lookup(context, m.group(1)), str(v)) for k, v in step.get("env", {}).items()
        }
        step_env["GITHUB_OUTPUT"] = str(out_file)
        script = EXPR.sub(lambda m: _lookup(context, m.group(1)), step["run"])
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=workdir,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        logs.append((step["name"], proc.returncode, proc.stdout, proc.stderr))
        if "id" in step:
            outputs = dict(
                line.split("=", 1) for line in out_file.read_text(encoding="utf-8").splitlines() if "=" in line
            )
            context["steps"][step["id"]] = {"outputs": outputs}
        if proc.returncode != 0:
            break
    outputs = {
        name: EXPR.sub(lambda m: _lookup(context, m.group(1)), spec["value"])
        for name, spec in ACTION["outputs"].items()
    }
    return {
        "outputs": outputs,
        "logs": logs,
        "skipped": skipped,
        "failed": next((name for name, code, _, _ in logs if code != 0), None),
        "code": logs[-1][1],
        "context": context,
    }


def step_runs(step: dict[str, Any], context: dict[str, Any]) -> bool:
    """A shell step's `if:` as the runner decides it, for the conditions action.yml puts on them
    (`inputs.mode == 'plan'`, `steps.install.outputs.programs == 'true'`, `!=`, `&&`, `||`, `always()`)."""
    cond = step.get("if")
    if cond is None:
        return True
    expr = re.sub(r"inputs\.([\w-]+)", lambda m: repr(context["inputs"].get(m.group(1), "")), str(cond))
    expr = re.sub(r"steps\.([\w-]+)\.outputs\.([\w-]+)", lambda m: repr(_lookup(context, m.group(0))), expr)
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("always()", "True")
    assert re.fullmatch(r"[\s'\w=!()-]*", expr), cond  # nothing but comparisons of the inputs
    return bool(eval(expr, {"__builtins__": {}}))  # noqa: S307 - the test's own action.yml, checked above


COMPARISON = re.compile(r"\$\{\{\s*([\w.-]+)\s*==\s*'([^']*)'\s*\}\}")


def step_inputs(res: dict[str, Any], uses: str, mode: str = "inputs.mode == 'all'") -> dict[str, str]:
    """The `with:` the runner would give the step that `uses:` `uses` (not run here), after the run `res`:
    `${{ a.b }}` filled in, `${{ a.b == 'x' }}` as GitHub renders a comparison (`true`, `false`)."""
    steps = [s for s in ACTION["runs"]["steps"] if str(s.get("uses", "")).startswith(uses + "@")]
    step = next((s for s in steps if mode in str(s.get("if", ""))), steps[-1])
    context = res["context"]

    def fill(value: str) -> str:
        value = COMPARISON.sub(lambda m: str(_lookup(context, m.group(1)) == m.group(2)).lower(), value)
        return EXPR.sub(lambda m: _lookup(context, m.group(1)), value)

    return {k: fill(str(v)) for k, v in step.get("with", {}).items()}


def _repo(tmp_path: Path, *stacks: Path) -> Path:
    repo = tmp_path / "infra"
    (repo / "stacks").mkdir(parents=True)
    for stack in stacks:
        shutil.copy(stack, repo / "stacks")
    return repo


def test_the_action_declares_its_inputs_and_outputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "fail-on", "price-book", "comment"} <= set(ACTION["inputs"])
    assert {"exit-code", "total-cost"} <= set(ACTION["outputs"])
    assert all(spec.get("description") for spec in list(ACTION["inputs"].values()) + list(ACTION["outputs"].values()))
    # User text reaches the scripts through env, never pasted into them (no script injection).
    for step in ACTION["runs"]["steps"]:
        assert "run" not in step or not EXPR.search(step["run"]), step["name"]


def test_a_priced_stack_passes_with_its_total_cost(tmp_path: Path) -> None:
    repo = _repo(tmp_path, ROOT / "stacks" / "Pulumi.p5en-train.yaml")
    res = run_action(repo, tmp_path)
    assert res["failed"] is None and res["code"] == 0, res["logs"]
    assert res["outputs"]["exit-code"] == "0"
    assert res["outputs"]["total-cost"] == "74046.30"  # the documented p5en-train estimate
    assert {"actions/setup-python", "marocchino/sticky-pull-request-comment"} <= set(res["skipped"])
    assert "planner already installed: planner " in res["logs"][0][2]
    sarif = Path(res["outputs"]["sarif-file"])
    assert sarif.is_file() and '"version": "2.1.0"' in sarif.read_text(encoding="utf-8")
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert comment.startswith("<!-- planner-report -->")


# SCRATCH_1 has no price in the default book (tests/test_price_coverage.py lists the gap)
UNPRICED = """config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2b
    node_groups:
      - {name: trainers, instance_type: trn2.48xlarge, count: 2, purchase: capacity-block}
    lustre: {deployment_type: SCRATCH_1, storage_capacity_gib: 1200}
    schedule: {hours: 24}
"""


def _unpriced(tmp_path: Path) -> Path:
    path = tmp_path / "Pulumi.unpriced.yaml"
    path.write_text(UNPRICED, encoding="utf-8")
    return path


def test_unknown_prices_make_the_total_unknown_not_zero(tmp_path: Path) -> None:
    repo = _repo(tmp_path, *sorted((ROOT / "stacks").glob("Pulumi.*.yaml")), _unpriced(tmp_path))
    res = run_action(repo, tmp_path, **{"price-book": "current"})
    assert res["outputs"]["exit-code"] == "0" and res["failed"] is None
    assert res["outputs"]["total-cost"] == "unknown"


def test_findings_fail_the_gate_after_the_reports_are_written(tmp_path: Path) -> None:
    repo = _repo(tmp_path, ROOT / "tests" / "invalid_stacks" / "Pulumi.lustre-capacity.yaml")
    res = run_action(repo, tmp_path, paths="stacks/Pulumi.lustre-capacity.yaml")
    assert res["failed"] == "Gate" and res["code"] == 1
    assert res["outputs"]["exit-code"] == "1"
    plan_log = res["logs"][1][2]
    assert "::error file=stacks/Pulumi.lustre-capacity.yaml,line=13,title=lustre-capacity::" in plan_log
    assert Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8").count("lustre-capacity") >= 1
    # fail-on warning is stricter: the price-unknown warning alone fails a clean file
    repo2 = _repo(tmp_path / "w", _unpriced(tmp_path))
    assert run_action(repo2, tmp_path, **{"fail-on": "warning"})["outputs"]["exit-code"] == "1"


def test_unusable_input_is_exit_2_with_no_cost(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "stacks" / "Pulumi.broken.yaml").write_text("config:\n  planner:cluster: {}\n", encoding="utf-8")
    res = run_action(repo, tmp_path)
    assert res["failed"] == "Gate" and res["code"] == 2
    assert res["outputs"]["exit-code"] == "2" and res["outputs"]["total-cost"] == ""
    sarif = json.loads(Path(res["outputs"]["sarif-file"]).read_text(encoding="utf-8"))  # the broken file, on its line
    assert {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in sarif["runs"][0]["results"]
    } == {("invalid-input", "stacks/Pulumi.broken.yaml")}


def _commit_as_origin_main(repo: Path) -> None:
    """`repo` as a git repository whose `origin/main` (the pull request's base) is its first commit."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    subprocess.run([*git, "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=repo, check=True)


def test_the_cost_diff_against_the_pull_requests_base(tmp_path: Path) -> None:
    repo = _repo(tmp_path, ROOT / "stacks" / "Pulumi.p5en-train.yaml")
    _commit_as_origin_main(repo)
    stack = repo / "stacks" / "Pulumi.p5en-train.yaml"
    stack.write_text(stack.read_text(encoding="utf-8").replace("count: 8", "count: 16"), encoding="utf-8")
    res = run_action(repo, tmp_path, github={"base_ref": "main", "event_name": "pull_request"})
    assert res["failed"] is None, res["logs"]
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert "origin/main" in comment and "+$73,886.13" in comment  # 8 more instances and their root volumes


def test_the_repository_workflow_uses_the_action_itself() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "planner.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["plan"]["steps"]
    assert any(step.get("uses") == "./" for step in steps)


def test_pre_commit_hook_runs_planner_plan_on_stack_files(tmp_path: Path) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["planner-plan", "planner-plan-program"]
    hook = hooks[0]
    assert hook["id"] == "planner-plan" and hook["language"] == "python" and hook["pass_filenames"]
    files = re.compile(hook["files"])
    assert files.search("stacks/Pulumi.trn2-dev.yaml") and files.search("Pulumi.prod.yaml")
    assert not files.search("Pulumi.yaml") and not files.search("stacks/Pulumi.dev.yaml.bak")
    # As pre-commit runs it: the entry, then the changed files that match.
    entry = shlex.split(hook["entry"])
    assert entry[0] == "planner"  # the console script the package installs
    bin_dir = Path(sys.executable).parent
    ok = subprocess.run(
        [str(bin_dir / entry[0]), *entry[1:], "stacks/Pulumi.p5en-train.yaml"], cwd=ROOT, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(
        [str(bin_dir / entry[0]), *entry[1:], "tests/invalid_stacks/Pulumi.lustre-capacity.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "    error    lustre-capacity" in bad.stdout


def test_paths_may_be_a_list_of_changed_files(tmp_path: Path) -> None:
    """One path per line, as a changed-files step gives them: the cluster stacks are planned, a plain
    Pulumi stack is skipped, other files and deleted ones are left out."""
    repo = _repo(
        tmp_path,
        ROOT / "stacks" / "Pulumi.p5en-train.yaml",
        ROOT / "stacks" / "Pulumi.trn2-dev.yaml",
        ROOT / "stacks" / "Pulumi.ultraserver-prod.yaml",
    )
    (repo / "stacks" / "Pulumi.web.yaml").write_text(
        "config:\n  aws:region: us-east-2\n  web:replicas: 2\n", encoding="utf-8"
    )
    (repo / "README.md").write_text("# infra\n", encoding="utf-8")
    changed = "\n".join(
        [
            "README.md",
            "stacks/Pulumi.p5en-train.yaml",
            "stacks/Pulumi.web.yaml",
            "stacks/Pulumi.gone.yaml",
            "stacks/Pulumi.trn2-dev.yaml",
        ]
    )
    res = run_action(repo, tmp_path, paths=changed)
    assert res["failed"] is None and res["outputs"]["exit-code"] == "0", res["logs"]
    import json

    report = json.loads((tmp_path / "planner" / "plan.json").read_text(encoding="utf-8"))
    assert [s["stack"] for s in report["stacks"]] == ["p5en-train", "trn2-dev"]  # not ultraserver-prod: unchanged
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    # information, in its own block: not in the error block (here there is none)
    info = (
        ":information_source: Information:\n\n````text\nplanner: info: skipped 1 stack file without planner:cluster "
        "(plain Pulumi stacks): stacks/Pulumi.web.yaml\n````\n"
    )
    assert comment.endswith(info) and comment.count("````") == 2


def test_input_errors_stay_in_the_error_block(tmp_path: Path) -> None:
    """With an unusable stack in the folder nothing is planned, so nothing is skipped: the error
    is in the error block and there is no information block."""
    repo = _repo(tmp_path, ROOT / "stacks" / "Pulumi.p5en-train.yaml")
    (repo / "stacks" / "Pulumi.web.yaml").write_text("config:\n  aws:region: us-east-2\n", encoding="utf-8")
    (repo / "stacks" / "Pulumi.broken.yaml").write_text("config:\n  planner:cluster: {}\n", encoding="utf-8")
    res = run_action(repo, tmp_path)
    assert res["outputs"]["exit-code"] == "2"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    errors = comment.split("\n````text\n", 1)[1]
    assert errors.startswith("planner: stacks/Pulumi.broken.yaml") and errors.endswith("````\n")
    assert "Information" not in comment and "info:" not in comment


def test_a_program_is_planned_and_diffed_against_the_base(tmp_path: Path) -> None:
    repo = tmp_path / "infra"
    shutil.copytree(ROOT / "tests" / "corpus" / "eks-p5e-capacity-block-managed", repo / "cluster")
    config = repo / "cluster" / "Pulumi.test.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "  planner:cluster:\n    schedule: {hours: 336}\n", encoding="utf-8"
    )
    _commit_as_origin_main(repo)
    main = repo / "cluster" / "__main__.py"
    old = '"min_size": 2, "max_size": 2, "desired_size": 2},\n    subnet_ids=[private[0].id]'
    main.write_text(main.read_text(encoding="utf-8").replace(old, old.replace("2", "4")), encoding="utf-8")
    # mode all (one job) runs a program only off pull requests (a push to a branch of one's own):
    # on a pull request it is mode plan's, in a job without the write token (tests/test_action_modes.py)
    res = run_action(
        repo, tmp_path, github={"event_name": "push"}, program="cluster", stack="test", **{"base-ref": "origin/main"}
    )
    assert res["failed"] is None and res["outputs"]["exit-code"] == "0", res["logs"]
    # the template gives no root volume size: left out, so the total is unknown, never a guess
    assert res["outputs"]["total-cost"] == "unknown"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert comment.startswith("<!-- planner-report -->\n## ") and "priced items +$32,094.72" in comment.splitlines()[1]
    assert "EC2 Capacity Block p5e.48xlarge x 2 -&gt; EC2 Capacity Block p5e.48xlarge x 4" in comment
    assert len(comment) < 65_536


def test_the_comment_stays_under_githubs_limit_with_many_errors(tmp_path: Path) -> None:
    """300 broken stacks: their error lines are cut in the comment (the job log has them all), so the
    sticky comment can always be replaced."""
    repo = _repo(tmp_path)
    for i in range(300):
        (repo / "stacks" / f"Pulumi.broken-{i:03}.yaml").write_text(
            "config:\n  planner:cluster: {}\n", encoding="utf-8"
        )
    res = run_action(repo, tmp_path)
    assert res["outputs"]["exit-code"] == "2"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert len(comment) < 65_536 and "(more errors: the full list is in the job log)" in comment
    assert comment.count("````") == 2


def test_changed_files_without_a_stack_file_plan_nothing_and_pass(tmp_path: Path) -> None:
    """Only README.md changed, as one line or a list with a deleted stack file: planner is not run,
    the step says so in one line, the gate passes with no cost and no SARIF."""
    repo = _repo(tmp_path, ROOT / "stacks" / "Pulumi.p5en-train.yaml")
    (repo / "README.md").write_text("# infra\n", encoding="utf-8")
    for changed in ("README.md", "README.md\nstacks/Pulumi.gone.yaml"):
        res = run_action(repo, tmp_path, paths=changed)
        assert res["failed"] is None and res["code"] == 0, res["logs"]
        assert res["outputs"] | {"comment-file": ""} == {
            "exit-code": "0",
            "total-cost": "",
            "sarif-file": "",
            "comment-file": "",
            "pr-number": "",  # mode publish's
        }
        plan_log = res["logs"][1][2]
        (line,) = [x for x in plan_log.splitlines() if x.startswith("planner: nothing to plan")]
        assert "planner not run" in line and "README.md" in line
        assert not (tmp_path / "planner" / "plan.json").exists()
        assert line in Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
        assert "total cost n/a" in res["logs"][-1][2]
    # a folder given by hand that is not there stays unusable input
    assert run_action(repo, tmp_path, paths="stack/")["outputs"]["exit-code"] == "2"


def test_nothing_to_plan_only_replaces_an_earlier_comment(tmp_path: Path) -> None:
    """A pull request that changes no stack file got a new "nothing to plan" comment; one whose
    earlier push was planned kept that push's cost beside it. Now the comment step only updates
    (no comment is started) and the update says no stack or program changed."""
    repo = _repo(tmp_path, ROOT / "stacks" / "Pulumi.p5en-train.yaml")
    (repo / "README.md").write_text("# infra\n", encoding="utf-8")
    sticky = "marocchino/sticky-pull-request-comment"
    res = run_action(repo, tmp_path, paths="README.md")
    assert res["failed"] is None and res["outputs"]["total-cost"] == "", res["logs"]
    assert step_inputs(res, sticky)["only_update"] == "true"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert comment.startswith("<!-- planner-report -->\n## planner: no stack or program changed\n")
    assert "no longer apply" in comment and "$" not in comment  # no cost is left standing
    # a planned run creates or updates the comment, as before
    planned = run_action(repo, tmp_path, paths="stacks/")
    assert step_inputs(planned, sticky) == {
        "header": "planner",
        "path": planned["outputs"]["comment-file"],
        "only_update": "false",
    }


def test_fail_on_incomplete_cost_input(tmp_path: Path) -> None:
    """The CLI's --fail-on-incomplete-cost had no input: an unpriced estimate always passed the gate."""
    repo = _repo(tmp_path, _unpriced(tmp_path))
    res = run_action(repo, tmp_path, paths="stacks/", **{"fail-on-incomplete-cost": "true"})
    assert res["failed"] == "Gate" and res["outputs"]["exit-code"] == "1", res["logs"]
    assert res["outputs"]["total-cost"] == "unknown"
    assert "title=budget-incomplete-cost::" in res["logs"][1][2]  # the annotation, from the plan's report
    assert "budget-incomplete-cost" in Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    # the default leaves it a warning, as the CLI does
    default = run_action(repo, tmp_path, paths="stacks/")
    assert default["failed"] is None and default["outputs"]["exit-code"] == "0"
    # neither true nor false: unusable input, not a guess
    wrong = run_action(repo, tmp_path, paths="stacks/", **{"fail-on-incomplete-cost": "yes"})
    assert wrong["outputs"]["exit-code"] == "2" and "--fail-on-incomplete-cost" in wrong["logs"][1][3]


def test_changed_files_under_a_folder_given_whole(tmp_path: Path) -> None:
    """A folder in the list is planned whole; a changed stack file elsewhere adds only itself."""
    repo = _repo(tmp_path, ROOT / "stacks" / "Pulumi.p5en-train.yaml", ROOT / "stacks" / "Pulumi.trn2-dev.yaml")
    (repo / "other").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.ultraserver-prod.yaml", repo / "other")
    shutil.copy(ROOT / "stacks" / "Pulumi.p5en-train.yaml", repo / "other" / "Pulumi.p5en-copy.yaml")
    res = run_action(
        repo, tmp_path, paths="stacks/\nstacks/Pulumi.trn2-dev.yaml\nother/Pulumi.ultraserver-prod.yaml\nnotes.txt"
    )
    assert res["failed"] is None and res["outputs"]["exit-code"] == "0", res["logs"]
    import json

    report = json.loads((tmp_path / "planner" / "plan.json").read_text(encoding="utf-8"))
    assert sorted(s["stack"] for s in report["stacks"]) == ["p5en-train", "trn2-dev", "ultraserver-prod"]
