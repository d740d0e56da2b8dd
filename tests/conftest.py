"""Shared test helpers: run the CLI in-process or as a process, write stack files."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Outputs are checked at planner's default width (100, when COLUMNS is unset and stdout is no
# terminal): not at the developer's terminal, nor at the COLUMNS=80 that pytest-xdist's workers get.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


class Result:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err


def run_cli(*args: str, cwd: Path | None = None) -> Result:
    """Run `planner ARGS` in this process (fast); cwd defaults to the repository root."""
    from planner.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse usage errors
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(old)
    return Result(code, out.getvalue(), err.getvalue())


FORMATS = ("table", "json", "markdown", "sarif", "github")


def every_format(*args: str, tmp: Path, formats: tuple[str, ...] = FORMATS) -> dict[str, Result]:
    """`planner ARGS` in each format, from one run: the command writes its JSON document once and
    `planner render` gives the others (every format is a pure function of that document, which
    tests/test_reports.py holds). Each result keeps the run's exit code and its standard error, so
    a program or an AWS call is run once, not once a format."""
    report = tmp / "report.json"
    run = run_cli(*args, "--format", "json", "--output", str(report))
    out: dict[str, Result] = {}
    for fmt in formats:
        if not report.exists():  # nothing was written (unusable input): the run's own answer
            out[fmt] = run
            continue
        rendered = run_cli("render", str(report), "--format", fmt)
        assert rendered.code == 0, rendered.err
        out[fmt] = Result(run.code, rendered.out, run.err + rendered.err)
    return out


def document(plans, command: str = "plan"):  # noqa: ANN001, ANN201 - list[StackPlan] -> Report
    """The document of `plans`, as `planner plan` (or `command`) builds it: what renderers take."""
    from planner.core.planning.build_report import report

    return report(command, plans)  # type: ignore[arg-type]


def no_plan(out: str) -> bool:
    """What a command writes on unusable input: nothing (a run that could not start) or the
    report of the input problems alone, in whichever format (never a plan, comparison or search)."""
    import json

    if out == "":
        return True
    if out.startswith("{"):
        doc = json.loads(out)
        if "runs" in doc:  # SARIF: only invalid-input results
            results = doc["runs"][0]["results"]
            return bool(results) and all(r["ruleId"] == "invalid-input" for r in results)
        return doc["stacks"] == [] and bool(doc["problems"])
    lines = out.splitlines()
    verdicts = ("nothing planned", "nothing compared", "nothing searched")  # plan, preflight, diff; compare; capacity
    return any(v in lines[-1] or (len(lines) > 1 and v in lines[1]) for v in verdicts)  # table, github; markdown


def run_process(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
    """Run `python -m planner ARGS` as a separate process, as users and CI do."""
    full_env = dict(os.environ, PYTHONPATH=str(ROOT))
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "planner", *args],
        cwd=cwd or ROOT,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def stack_file(tmp_path: Path):
    """Write a stack file from a `planner:cluster` YAML snippet; returns its path."""

    def write(cluster_yaml: str, region: str = "us-east-2", name: str = "test") -> Path:
        body = "\n".join("    " + line if line.strip() else line for line in cluster_yaml.strip("\n").splitlines())
        path = tmp_path / f"Pulumi.{name}.yaml"
        path.write_text(f"config:\n  aws:region: {region}\n  planner:cluster:\n{body}\n", encoding="utf-8")
        return path

    return write


@pytest.fixture
def no_stack_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """No `planner:cluster` in the stack config a read-back test's program runs with (the developer's own
    Pulumi config stays out of it); other keys are Pulumi's. The read-back tests use it for every test
    (`pytestmark = pytest.mark.usefixtures("no_stack_config")`)."""
    import pulumi.runtime

    real = pulumi.runtime.get_config
    monkeypatch.setattr(pulumi.runtime, "get_config", lambda key: None if key == "planner:cluster" else real(key))


@pytest.fixture
def isolated_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Fake credentials and config in tmp_path, no real profile (the AWS tests use it for every test)."""
    from test_preflight_helpers import isolate

    isolate(monkeypatch, tmp_path)


@pytest.fixture
def moto():  # noqa: ANN201 - a generator fixture
    """Every boto3 call of the test answered by moto's in-memory AWS."""
    from moto import mock_aws

    with mock_aws():
        yield


def said_fix(plan: Any, finding: Any) -> str | None:
    """A finding's fix as its stack's outputs say it (the stack file's keys, a program's properties): the
    text the document carries (`planner.core.input.locations.fix_text`)."""
    from planner.core.input.locations import fix_text

    return None if finding.fix is None else fix_text(plan.stack, finding.fix)


def fix_words(finding: Any) -> str | None:
    """A stack file's finding's fix in that file's words (the stack read again from `finding.file`)."""
    from planner.core.input.locations import fix_text
    from planner.core.input.stack_files import load_stack

    return None if finding.fix is None else fix_text(load_stack(finding.file), finding.fix)
