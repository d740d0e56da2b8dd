"""The Action script handles file names as data (issue 32, docs/security.md): changed-file lists
are records (one a line, or NUL-delimited in `paths-file`), never split on spaces; names are
literal paths, never globs; every name printed is escaped for workflow commands; a report too
large to render fails the gate with a clear line."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.test_action import run_action

# the bundled p5en stack; `_failing_stack` gives it a budget it exceeds (an error: exit code 1)
STACK = ROOT / "stacks" / "Pulumi.p5en-train.yaml"


def _failing_stack(folder: Path, name: str = "Pulumi.prod.yaml") -> Path:
    """A stack file whose plan fails the gate (a budget far below its cost: budget-exceeded, an error)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = STACK.read_text(encoding="utf-8")
    assert "budget" not in text
    text = text.replace("  planner:cluster:\n", "  planner:cluster:\n    budget: {total_usd: 1}\n", 1)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _plan_log(res: dict) -> str:  # type: ignore[type-arg]
    return next(out + err for name, _, out, err in res["logs"] if name == "Plan")


def test_a_changed_stack_in_a_folder_with_a_space_is_planned(tmp_path: Path) -> None:
    repo = tmp_path / "infra"
    _failing_stack(repo / "prod stacks")
    (repo / "README.md").parent.mkdir(parents=True, exist_ok=True)
    (repo / "README.md").write_text("# infra\n", encoding="utf-8")
    res = run_action(repo, tmp_path, paths="README.md\nprod stacks/Pulumi.prod.yaml")
    assert res["outputs"]["exit-code"] == "1", res["logs"]  # planned, and its error fails the gate
    assert res["failed"] == "Gate"
    assert "budget-exceeded" in _plan_log(res)


def test_one_path_with_a_space_is_one_path(tmp_path: Path) -> None:
    repo = tmp_path / "infra"
    _failing_stack(repo / "prod stacks")
    res = run_action(repo, tmp_path, paths="prod stacks/")
    assert res["outputs"]["exit-code"] == "1", res["logs"]


def test_a_nul_delimited_list_of_changed_files(tmp_path: Path) -> None:
    repo = tmp_path / "infra"
    _failing_stack(repo / "a\nb")  # a line feed in a folder name: a record of its own all the same
    listing = tmp_path / "changed"
    listing.write_bytes(b"README.md\0a\nb/Pulumi.prod.yaml\0")
    res = run_action(repo, tmp_path, **{"paths-file": str(listing)})
    assert res["outputs"]["exit-code"] == "1", res["logs"]


def test_names_are_literal_paths_never_patterns(tmp_path: Path) -> None:
    """`st[a]cks/` is that folder: as a glob it matched `stacks/` and dropped the stack without a word."""
    repo = tmp_path / "infra"
    _failing_stack(repo / "st[a]cks")
    shutil.copy(STACK, repo / "README.md")  # something else that changed
    res = run_action(repo, tmp_path, paths="README.md\nst[a]cks/Pulumi.prod.yaml")
    assert res["outputs"]["exit-code"] == "1", res["logs"]
    assert "budget-exceeded" in _plan_log(res)


def test_a_name_with_a_line_break_cannot_start_a_workflow_command(tmp_path: Path) -> None:
    repo = tmp_path / "infra"
    repo.mkdir()
    hostile = "notes\r::error file=x::forged%0A.md"
    (repo / hostile).write_text("x", encoding="utf-8")
    res = run_action(repo, tmp_path, paths=f"README.md\n{hostile}")
    assert res["outputs"]["exit-code"] == "0", res["logs"]  # nothing to plan
    log = _plan_log(res)
    assert "notes%0D::error file=x::forged%250A.md)" in log
    assert not any(line.startswith("::") for line in re.split(r"[\r\n]", log))
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert "\r" not in comment


def test_a_report_too_large_to_render_fails_the_gate_with_a_line(tmp_path: Path) -> None:
    """`planner render` refuses the report (here: a stand-in that says what it says of a report over
    64 MiB); the gate fails, exit code 2, and the comment says why: never an empty comment and 0."""
    repo = tmp_path / "infra"
    (repo / "stacks").mkdir(parents=True)
    shutil.copy(STACK, repo / "stacks")
    wrapper = tmp_path / "bin"
    wrapper.mkdir()
    real = shutil.which("planner", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert real
    (wrapper / "planner").write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1" = render ]; then echo "planner: plan.json: more than 67108864 bytes; '
        'expected a planner JSON report" >&2; exit 2; fi\n'
        f'exec "{real}" "$@"\n',
        encoding="utf-8",
    )
    (wrapper / "planner").chmod(0o755)
    path = f"{wrapper}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    res = run_action(repo, tmp_path, env={"PATH": path})
    assert res["outputs"]["exit-code"] == "2", res["logs"]
    assert res["outputs"]["total-cost"] == ""
    assert res["failed"] == "Gate"
    comment = Path(res["outputs"]["comment-file"]).read_text(encoding="utf-8")
    assert "the report could not be rendered" in comment and "the gate fails" in comment
