"""Bad input is said once on a terminal: the one line per problem on standard error, exit 2.

The table report of the problems (what `--format table` writes when the run stops on its input)
would repeat each line on the same screen, so it is left out when standard output and standard
error are both a terminal; piped, redirected or written with `--output` it is written as always,
since there it goes somewhere the stderr lines do not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from planner.cli import main

STACK = "stacks/Pulumi.trn2-dev.yaml"
BAD = ("plan", STACK, "--suppress", "no-such-rule")
LINE = "planner: command line: --suppress: unknown rule 'no-such-rule'; `planner rules` lists the rule ids"


def _run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], out: bool, err: bool
) -> tuple[int, str, str]:
    """`planner ARGS` with standard output and standard error a terminal or not."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: out)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: err)
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_on_a_terminal_the_stderr_lines_alone(capsys, monkeypatch) -> None:
    code, out, err = _run(capsys, monkeypatch, BAD, out=True, err=True)
    assert (code, out, err.splitlines()) == (2, "", [LINE])


@pytest.mark.parametrize("out_tty, err_tty", [(False, True), (True, False), (False, False)])
def test_off_the_terminal_the_report_too(capsys, monkeypatch, out_tty: bool, err_tty: bool) -> None:
    """Piped stdout (the report goes on), or stderr elsewhere (the screen would show nothing)."""
    code, out, err = _run(capsys, monkeypatch, BAD, out=out_tty, err=err_tty)
    assert code == 2 and err.splitlines() == [LINE]
    assert "Input problems" in out and "no-such-rule" in out


def test_output_file_gets_the_report_on_a_terminal(capsys, monkeypatch, tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    code, out, err = _run(capsys, monkeypatch, (*BAD, "--output", str(target)), out=True, err=True)
    assert (code, out, err.splitlines()) == (2, "", [LINE])
    assert "Input problems" in target.read_text()


def test_other_formats_are_written_on_a_terminal(capsys, monkeypatch) -> None:
    code, out, err = _run(capsys, monkeypatch, (*BAD, "--format", "json"), out=True, err=True)
    assert code == 2 and err.splitlines() == [LINE]
    assert [p["key"] for p in json.loads(out)["problems"]] == ["--suppress"]


def test_compare_says_it_once_too(capsys, monkeypatch) -> None:
    args = ("compare", "--parameters", "70e9", "--tokens", "2e12", "--mfu", "2", "--instances", "4")
    code, out, err = _run(capsys, monkeypatch, args, out=True, err=True)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "--mfu" in err
    code, out, err = _run(capsys, monkeypatch, args, out=False, err=True)
    assert code == 2 and err.splitlines() and "--mfu" in out
