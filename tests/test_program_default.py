"""The program is the default (issue 34, items 1 and 2): in a Pulumi project whose Pulumi.yaml names a
Python program, `planner plan` (and `diff`, `preflight`), the pre-commit hook and the Action plan the
program for its stacks with no extra flag; a stack config whose `planner:cluster` holds only planning
keys is a program's config everywhere, never an incomplete stack file.

The repository is built here: a new git repository holding a small hand-written pulumi_aws program
(no Pulumi CLI, no network, no credentials: the program runs offline under Pulumi's mocks).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli
from test_action import run_action

# p5en.48xlarge: priced on demand in the shipped book (trn2.48xlarge is not: its budget could not be checked)
PROGRAM = '''"""A team's own training cluster: two p5en.48xlarge on demand, in one subnet."""

import pulumi_aws as aws

subnet = aws.ec2.Subnet(
    "train", vpc_id="vpc-0123456789abcdef0", cidr_block="10.0.0.0/24", availability_zone="us-east-2b"
)
template = aws.ec2.LaunchTemplate(
    "trainer",
    instance_type="p5en.48xlarge",
    metadata_options={"http_tokens": "required"},
    block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"volume_size": 200, "volume_type": "gp3"}}],
)
aws.autoscaling.Group(
    "trainers",
    desired_capacity=2,
    min_size=2,
    max_size=2,
    vpc_zone_identifiers=[subnet.id],
    launch_template={"id": template.id, "version": "$Latest"},
)
'''
# planning keys only: the program's resources declare the cluster
STACK_CONFIG = """config:
  aws:region: us-east-2
  planner:cluster:
    schedule:
      hours: 48
    budget:
      total_usd: 100000
"""
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def _git(repo: Path, *args: str) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run([*git, *args], cwd=repo, check=True, capture_output=True, env=env)


def program_repo(tmp_path: Path, folder: str = "") -> Path:
    """A new git repository with the program (at its root, or in `folder`), committed; `origin/main`
    is that commit, as a pull request's base."""
    repo = tmp_path / "repo"
    project = repo / folder if folder else repo
    project.mkdir(parents=True)
    (project / "Pulumi.yaml").write_text("name: training\nruntime: python\n", encoding="utf-8")
    (project / "__main__.py").write_text(PROGRAM, encoding="utf-8")
    (project / "Pulumi.dev.yaml").write_text(STACK_CONFIG, encoding="utf-8")
    (repo / "README.md").write_text("# training\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    return repo


def _planned(out: str) -> list[tuple[str, str, float | None]]:
    """(stack, file, hours) of each stack a JSON report planned."""
    return [(s["stack"], s["file"], s["cost"]["hours"]) for s in json.loads(out)["stacks"]]


def _double(main: Path) -> None:
    text = main.read_text(encoding="utf-8")
    main.write_text(
        text.replace(
            "desired_capacity=2,\n    min_size=2,\n    max_size=2",
            "desired_capacity=4,\n    min_size=4,\n    max_size=4",
        ),
        encoding="utf-8",
    )
    assert main.read_text(encoding="utf-8") != text


# --- planner plan, diff, preflight ---------------------------------------------------------------


def test_plan_with_no_path_plans_the_program_for_its_stacks(tmp_path: Path) -> None:
    repo = program_repo(tmp_path)
    res = run_cli("plan", "--format", "json", cwd=repo)
    assert res.code == 0 and res.err == "", res.err
    assert _planned(res.out) == [("dev", "__main__.py", 48.0)]  # the config's hours apply to the read-back
    (stack,) = json.loads(res.out)["stacks"]
    assert stack["summary"]["instances"] == 2 and stack["cost"]["total_usd"] > 0
    # the same plan as the explicit flags, and for a second stack config beside it
    explicit = run_cli("plan", "--program", ".", "--stack", "dev", "--format", "json", cwd=repo)
    assert explicit.out == res.out
    (repo / "Pulumi.prod.yaml").write_text(STACK_CONFIG.replace("hours: 48", "hours: 96"), encoding="utf-8")
    both = run_cli("plan", "--format", "json", cwd=repo)
    assert both.code == 0 and _planned(both.out) == [("dev", "__main__.py", 48.0), ("prod", "__main__.py", 96.0)]
    only = run_cli("plan", "--stack", "prod", "--format", "json", cwd=repo)
    assert only.code == 0 and _planned(only.out) == [("prod", "__main__.py", 96.0)]


def test_a_project_folder_or_its_stack_config_means_its_program(tmp_path: Path) -> None:
    """From the repository's root, with the program in infra/: the folder, and the stack config named
    alone (as the pre-commit hook names it), plan the program; `--program DIR` alone, every stack."""
    repo = program_repo(tmp_path, "infra")
    expected = [("dev", "infra/__main__.py", 48.0)]
    for args in (("infra",), ("infra/Pulumi.dev.yaml",), ("--program", "infra")):
        res = run_cli("plan", *args, "--format", "json", cwd=repo)
        assert res.code == 0 and _planned(res.out) == expected, (args, res.err)
    # a stack folder elsewhere (stackConfigDir): its config belongs to the project above it
    (repo / "infra" / "Pulumi.yaml").write_text("name: training\nruntime: python\nstackConfigDir: stacks\n")
    (repo / "infra" / "stacks").mkdir()
    (repo / "infra" / "Pulumi.dev.yaml").rename(repo / "infra" / "stacks" / "Pulumi.dev.yaml")
    for args in (("infra",), ("infra/stacks",), ("infra/stacks/Pulumi.dev.yaml",)):
        res = run_cli("plan", *args, "--format", "json", cwd=repo)
        assert res.code == 0 and _planned(res.out) == expected, (args, res.err)


def test_planning_keys_are_never_read_as_an_incomplete_stack_file(tmp_path: Path) -> None:
    """The issue: "missing required key 'availability_zone' ... 'node_groups'", with no hint. Without a
    program to plan them for, planning keys are one line naming the file, line and key, and what was
    expected; exit 2, no traceback, every entry point."""
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "Pulumi.dev.yaml").write_text(STACK_CONFIG, encoding="utf-8")
    expected = (
        "planner: lone/Pulumi.dev.yaml:3: planner:cluster: holds only planning keys (schedule, budget), the stack "
        "config of a Pulumi program, but no Pulumi project here names one"
    )
    for argv in (("plan", "lone"), ("plan", "lone/Pulumi.dev.yaml"), ("diff", "lone", "lone")):
        res = run_cli(*argv, cwd=tmp_path)
        assert res.code == 2 and res.err.startswith(expected), (argv, res.err)
        assert len(res.err.splitlines()) == 1 and "missing required key" not in res.err and "Traceback" not in res.err
    # a project that names no Python program says why
    (lone / "Pulumi.yaml").write_text("name: web\nruntime: nodejs\n", encoding="utf-8")
    res = run_cli("plan", "lone", cwd=tmp_path)
    assert res.code == 2 and len(res.err.splitlines()) == 1
    assert "lone/Pulumi.yaml cannot be planned as one: its runtime is nodejs" in res.err
    # an empty or misspelt cluster stays the stack file parser's to explain
    (lone / "Pulumi.yaml").unlink()
    (lone / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-2\n  planner:cluster: {}\n")
    res = run_cli("plan", "lone", cwd=tmp_path)
    assert res.code == 2 and "missing required key 'availability_zone'" in res.err


def test_a_project_with_a_program_and_whole_clusters_says_which_mode_it_assumed() -> None:
    """This repository: Pulumi.yaml names planner's program, and stacks/ holds whole clusters. With no
    path they are planned as stack files (as `make plan` plans stacks/), and one info line says so and
    how to run the program instead; named as a path, the folder is stack files and nothing is said."""
    here = run_cli("plan", "--format", "json")
    named = run_cli("plan", "stacks", "--format", "json")
    assert here.code == named.code == 0 and here.out == named.out
    assert named.err == ""
    (line,) = here.err.splitlines()
    assert line == (
        "planner: info: Pulumi.yaml names a Python program (planner/pulumi_program) and 3 of its stack files "
        "declare a whole cluster in planner:cluster (stacks/Pulumi.p5en-train.yaml, stacks/Pulumi.trn2-dev.yaml, "
        "stacks/Pulumi.ultraserver-prod.yaml): planned as stack files, as `planner plan stacks` plans them; to run "
        "the program instead: planner plan --program . --stack NAME"
    )


def test_a_mixed_project_plans_each_stack_in_its_own_mode(tmp_path: Path) -> None:
    """Beside a whole-cluster stack file, a planning-keys-only config is the program's; a plain stack there
    is skipped, as in any folder of stack files."""
    repo = program_repo(tmp_path)
    (repo / "Pulumi.file.yaml").write_text((ROOT / "stacks" / "Pulumi.p5en-train.yaml").read_text(encoding="utf-8"))
    (repo / "Pulumi.web.yaml").write_text("config:\n  aws:region: us-east-2\n", encoding="utf-8")
    res = run_cli("plan", "--format", "json", cwd=repo)
    assert res.code == 0, res.err
    assert [(s, f) for s, f, _ in _planned(res.out)] == [("dev", "__main__.py"), ("file", "Pulumi.file.yaml")]
    info = res.err.splitlines()
    assert "skipped 1 stack file without planner:cluster (plain Pulumi stacks): Pulumi.web.yaml" in info[0]
    assert "1 of its stack files declares a whole cluster in planner:cluster (Pulumi.file.yaml)" in info[1]


def test_no_programs_refuses_to_run_one(tmp_path: Path) -> None:
    repo = program_repo(tmp_path)
    res = run_cli("plan", "--no-programs", cwd=repo)
    assert res.code == 2
    (line,) = res.err.splitlines()
    assert line.startswith(
        "planner: Pulumi.dev.yaml:3: planner:cluster: is the stack config of the Pulumi program of Pulumi.yaml (stack dev): "
        "planning it runs the program's code, which --no-programs refuses"
    )


def test_diff_with_no_path_diffs_the_program(tmp_path: Path) -> None:
    repo = program_repo(tmp_path)
    _double(repo / "__main__.py")
    res = run_cli("diff", "--base-ref", "HEAD", "--format", "json", cwd=repo)
    assert res.code == 0, res.err
    diff = json.loads(res.out)["diff"]
    (s,) = diff["stacks"]
    assert (s["status"], s["base_file"], s["head_file"]) == ("changed", "HEAD:__main__.py", "__main__.py")
    assert diff["base_label"] == "HEAD" and s["total"]["change_usd"] > 0
    # from the root of a repository whose program is in infra/, naming the folder
    repo2 = program_repo(tmp_path / "two", "infra")
    _double(repo2 / "infra" / "__main__.py")
    res = run_cli("diff", "--base-ref", "HEAD", "infra", "--format", "json", cwd=repo2)
    assert res.code == 0, res.err
    (s,) = json.loads(res.out)["diff"]["stacks"]
    assert (s["status"], s["base_file"], s["head_file"]) == ("changed", "HEAD:infra/__main__.py", "infra/__main__.py")


def test_diff_of_a_program_swapping_to_an_unpriced_type_says_the_change_is_unknown(tmp_path: Path) -> None:
    """Issue 34's "done when": in a new git repository, the program's p5en.48xlarge swapped for
    trn2.48xlarge, which the shipped book has no on-demand price for. The cost fell by the p5en's
    whole price among the priced items, yet the change is unknown, says why, and names the type."""
    repo = program_repo(tmp_path)
    main = repo / "__main__.py"
    main.write_text(main.read_text(encoding="utf-8").replace("p5en.48xlarge", "trn2.48xlarge"), encoding="utf-8")
    res = run_cli("diff", "--base-ref", "HEAD", "--format", "json", cwd=repo)
    assert res.code == 0, res.err
    (s,) = json.loads(res.out)["diff"]["stacks"]
    assert s["status"] == "changed" and s["total"]["change_usd"] is None
    (why,) = s["total"]["unknown_because"]
    assert why.startswith("after: no price for") and "trn2.48xlarge" in why
    md = run_cli("diff", "--base-ref", "HEAD", "--format", "markdown", cwd=repo).out
    headline = md.splitlines()[1]
    assert "cost change unknown" in headline and "-$" not in headline and "priced items" not in md
    assert "trn2.48xlarge" in md


# --- the pre-commit hook --------------------------------------------------------------------------


def _hook(hook_id: str) -> dict[str, object]:
    return next(h for h in HOOKS if h["id"] == hook_id)


def _run_hook(repo: Path, hook: dict[str, object], changed: list[str]) -> subprocess.CompletedProcess[str]:
    """As pre-commit runs a hook: the entry, then the changed files its `files` pattern matches."""
    files = [f for f in changed if re.search(str(hook["files"]), f)]
    entry = str(hook["entry"]).split()
    planner = Path(sys.executable).parent / entry[0]
    return subprocess.run([str(planner), *entry[1:], *files], cwd=repo, capture_output=True, text=True)


def test_the_program_hook_is_planner_plan_with_the_pulumi_extra() -> None:
    hook = _hook("planner-plan-program")
    assert hook["language"] == "python" and hook["pass_filenames"] and hook["entry"] == "planner plan --changed-files"
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert hook["additional_dependencies"] == extra["pulumi"]
    files = re.compile(str(hook["files"]))
    for name in (
        "__main__.py",
        "infra/cluster.py",
        "Pulumi.yaml",
        "infra/Pulumi.prod.yaml",
        "requirements.txt",
        "infra/pyproject.toml",
        "infra/settings.json",
    ):
        assert files.search(name), name
    for name in ("README.md", "docs/index.md", "LICENSE", "infra/Dockerfile"):
        assert not files.search(name), name


def test_the_program_hook_plans_the_program_when_its_files_change(tmp_path: Path) -> None:
    repo = program_repo(tmp_path, "infra")
    hook = _hook("planner-plan-program")
    for changed in (["infra/__main__.py"], ["infra/Pulumi.dev.yaml"], ["infra/Pulumi.yaml", "README.md"]):
        res = _run_hook(repo, hook, changed)
        assert res.returncode == 0, (changed, res.stderr)
        assert "Stack dev (infra/__main__.py, us-east-2)" in res.stdout and "for 48 h" in res.stdout
    # a finding at or above --fail-on stops the commit
    res = subprocess.run(
        [
            str(Path(sys.executable).parent / "planner"),
            "plan",
            "--changed-files",
            "--fail-on",
            "warning",
            "infra/__main__.py",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 1 and "efa-recommended" in res.stdout
    # files of no program: nothing to plan, the commit goes on
    (repo / "tools").mkdir()
    (repo / "tools" / "lint.py").write_text("print('lint')\n", encoding="utf-8")
    res = _run_hook(repo, hook, ["tools/lint.py"])
    assert res.returncode == 0 and "0 stacks" in res.stdout
    assert res.stderr.strip() == (
        "planner: info: nothing to plan: left out 1 changed file that belongs to no stack file or Python "
        "Pulumi program: tools/lint.py"
    )


def test_the_stack_file_hook_names_the_program_hook_for_a_programs_config(tmp_path: Path) -> None:
    """The base install has no pulumi (hidden here): the stack file hook, given a program's config, says
    which extra it needs and which hook to use, in one line."""
    repo = program_repo(tmp_path)
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name.startswith('pulumi') else real(name, *a)\n"
        "from planner.cli import main\n"
        "sys.exit(main(['plan', 'Pulumi.dev.yaml']))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    (line,) = res.stderr.splitlines()
    assert line.startswith(
        "planner: Pulumi.dev.yaml:3: planner:cluster: is the stack config of the Pulumi program of Pulumi.yaml"
    )
    assert "needs the [pulumi] extra" in line and "the hook planner-plan-program" in line


# --- the GitHub Action -------------------------------------------------------------------------------


def _log(res: dict[str, object], step: str) -> str:
    """What a step of the Action printed on standard output."""
    return next(out for name, _, out, _ in res["logs"] if name == step)  # type: ignore[attr-defined]


def test_the_action_plans_the_program_by_default(tmp_path: Path) -> None:
    """No `paths`, no `program`: the Action finds the project at the root, installs the [pulumi] extra
    (the `programs` output of its install step) and plans the program."""
    repo = program_repo(tmp_path)
    res = run_action(repo, tmp_path, github={"event_name": "push"})
    assert res["failed"] is None and res["outputs"]["exit-code"] == "0", res["logs"]
    assert res["context"]["steps"]["install"]["outputs"]["programs"] == "true"
    report = (tmp_path / "planner" / "plan.json").read_text(encoding="utf-8")
    assert _planned(report) == [("dev", "__main__.py", 48.0)]
    assert float(res["outputs"]["total-cost"]) > 0
    assert "title=efa-recommended::" in _log(res, "Plan")  # the annotation on the program's line


def test_the_action_refuses_a_found_program_in_a_single_job_on_a_pull_request(tmp_path: Path) -> None:
    repo = program_repo(tmp_path)
    res = run_action(repo, tmp_path, github={"event_name": "pull_request", "base_ref": "main"})
    assert res["outputs"]["exit-code"] == "2" and res["failed"] == "Gate"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert "which --no-programs refuses" in comment and "plan it with mode: plan" in comment
    # mode plan, the pull-request job: planned, and diffed against the base
    _double(repo / "__main__.py")
    res = run_action(repo, tmp_path, github={"event_name": "pull_request", "base_ref": "main"}, mode="plan")
    assert res["failed"] is None and "planner: exit code 0" in _log(res, "Plan"), res["logs"]
    diff = json.loads((tmp_path / "planner-artifact" / "diff.json").read_text(encoding="utf-8"))["diff"]
    (s,) = diff["stacks"]
    assert s["status"] == "changed" and s["total"]["change_usd"] > 0


def test_the_actions_changed_files_map_to_their_program(tmp_path: Path) -> None:
    """A list of changed files: a program's file stands for its project (the folder of Pulumi.yaml),
    planned whole; other files are left out; with only those, planner is not run."""
    repo = program_repo(tmp_path, "infra")
    (repo / "infra" / "nodes.py").write_text("SIZE = 2\n", encoding="utf-8")
    for changed in ("README.md\ninfra/nodes.py", "infra/gone.py\nREADME.md", "README.md\ninfra/Pulumi.dev.yaml"):
        res = run_action(repo, tmp_path, github={"event_name": "push"}, paths=changed)
        assert res["failed"] is None and res["outputs"]["exit-code"] == "0", (changed, res["logs"])
        assert res["context"]["steps"]["install"]["outputs"]["programs"] == "true"
        report = (tmp_path / "planner" / "plan.json").read_text(encoding="utf-8")
        assert _planned(report) == [("dev", "infra/__main__.py", 48.0)], changed
    paths_file = tmp_path / "changed"
    paths_file.write_bytes(b"README.md\0infra/nodes.py\0")
    res = run_action(repo, tmp_path, github={"event_name": "push"}, **{"paths-file": str(paths_file)})
    assert res["outputs"]["exit-code"] == "0" and res["outputs"]["total-cost"] not in ("", "unknown")
    res = run_action(repo, tmp_path, github={"event_name": "push"}, paths="README.md\ndocs/x.md")
    assert res["outputs"]["exit-code"] == "0" and res["outputs"]["total-cost"] == ""
    assert res["context"]["steps"]["install"]["outputs"]["programs"] == "false"


@pytest.mark.parametrize(
    "cluster",
    [
        {"schedule": {"hours": 48}},
        {"budget": {"total_usd": 100}, "suppress": [{"rule": "efa-recommended", "reason": "tests"}]},
        {"schedul": {"hours": 48}},
        {},
        {"availability_zone": "us-east-2b", "schedule": {"hours": 48}},
        {"node_groups": [{"name": "a", "instance_type": "trn2.48xlarge", "count": 2}]},
    ],
)
def test_the_editor_schema_tells_a_programs_config_as_planner_does(cluster: dict[str, object]) -> None:
    """The schema's `planner:cluster` is a program's planning keys exactly when planner reads it so
    (`config_kind`); planning keys alone validate, with no aws:region needed."""
    import jsonschema

    from planner.core.input import json_schema
    from planner.core.input.stack_files import config_kind

    validator = jsonschema.Draft7Validator(json_schema.build())
    doc = {"config": {"planner:cluster": cluster}}
    errors = [e.message for e in validator.iter_errors(doc)]
    if config_kind(doc) == "planning":
        assert errors == [] or errors == ["Additional properties are not allowed ('schedul' was unexpected)"]
    else:
        assert "'aws:region' is a required property" in errors
