"""What `planner plan` leaves out at start-up (issue 23): the other commands' modules, the
parsing of the shipped YAML (its generated literals are used), and the standard-library
modules only some paths need. Modules are read after the CLI's `main` returns, in a fresh
process; no time is measured here (that is `make bench`)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from test_startup import _WRAPPER, _modules_after_main

from planner import cli


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_plan_imports_only_its_own_command_and_no_archive_or_tempfile_modules(fmt: str) -> None:
    code, modules = _modules_after_main("plan", "stacks", "--format", fmt)
    assert code in (0, 1) and "planner.commands.plan" in modules
    assert [m for m in modules if m.startswith("planner.commands.")] == ["planner.commands.plan"]
    assert not {"shutil", "tempfile", "bz2", "lzma", "fnmatch"} & (set(modules) - _at_start())


def _at_start() -> set[str]:
    """The modules Python has loaded before planner runs (here the editable install's finder loads some)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", "import sys, json; print(json.dumps(sorted(sys.modules)))"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    return set(json.loads(out)) - {"json", "json.decoder", "json.scanner", "json.encoder"}


def test_the_whole_parser_is_built_when_no_command_is_named() -> None:
    code, modules = _modules_after_main()  # bare `planner`: the list of commands
    assert code == 0 and {f"planner.commands.{c}" for c in cli.COMMANDS} <= set(modules)


def test_plan_does_not_parse_the_shipped_yaml() -> None:
    """Every shipped file planning reads comes from the literals: parsing one fails the run here."""
    wrapper = (
        "import planner.core.reading.yaml_lines\n"
        "def refuse(name): raise AssertionError(f'shipped {name} parsed as YAML')\n"
        "planner.core.reading.yaml_lines.load_data = refuse\n" + _WRAPPER
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", wrapper, "plan", "stacks", "--format", "json"],
        cwd=ROOT,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["code"] in (0, 1)


@pytest.mark.parametrize("columns", [None, "57", "0", "wide", "-3"])
def test_help_is_as_wide_as_argparse_would_make_it(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._columns() == shutil.get_terminal_size().columns
    ours = _plan_parser()
    stock = _plan_parser()
    stock.formatter_class = argparse.HelpFormatter  # argparse's own, which asks shutil for the width
    assert ours.formatter_class is not argparse.HelpFormatter
    assert ours.format_help() == stock.format_help() and ours.format_usage() == stock.format_usage()


def _plan_parser() -> argparse.ArgumentParser:
    parser = cli.build_parser("plan")
    return parser._defaults["_commands"]["plan"]  # type: ignore[no-any-return]
