"""`planner plan` starts without pulumi, boto3 or botocore.

Those SDKs take seconds to import; the CLI runs on every pull request and only reads
YAML, so the core must never pull them in (not through a report, a rule or a command
module). Checked two ways: the modules loaded after the CLI's `main` returns, for every
output format, and `python -X importtime`, which the benchmark uses too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from test_determinism import FORMATS

from bench import startup

_WRAPPER = """
import json, sys
from planner.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:  # argparse's --version and --help end the run this way
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _modules_after_main(*args: str, printed: list[str] | None = None) -> tuple[int, list[str]]:
    """The exit code and the modules loaded once `main(args)` returned; `printed` receives what it printed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *args],
        cwd=ROOT,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    if printed is not None:
        printed.extend(lines[:-1])
    last = json.loads(lines[-1])
    return last["code"], last["modules"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_plan_imports_no_heavy_sdk(fmt: str) -> None:
    code, modules = _modules_after_main("plan", "stacks", "--format", fmt, "-o", os.devnull)
    assert code in (0, 1)
    assert "planner.core.input.stack_files" in modules  # the wrapper really ran the plan
    assert startup.heavy(modules) == []


def test_catalog_imports_no_heavy_sdk() -> None:
    code, modules = _modules_after_main("catalog", "--format", "json")
    assert code == 0 and startup.heavy(modules) == []
    assert "planner.core.document.catalogue_listing" in modules  # the listing, written by the codec


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_rules_imports_no_heavy_sdk(fmt: str) -> None:
    code, modules = _modules_after_main("rules", "--format", fmt)
    assert code == 0 and startup.heavy(modules) == []
    # the listing's types load for its JSON only; the table and the reference read the registry
    assert ("planner.core.document.rules_listing" in modules) is (fmt == "json")


def test_catalog_table_reads_the_catalogue_not_the_document() -> None:
    """The table reads the catalogue's records: neither the listing's types nor the report's load."""
    code, modules = _modules_after_main("catalog")
    assert code == 0 and startup.heavy(modules) == []
    assert not [m for m in modules if m.startswith(("planner.core.document", "planner.core.render"))]


def test_importtime_of_the_cli() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    floor = startup.imported_modules(["-c", "pass"], env, str(ROOT))
    modules = startup.imported_modules(["-m", "planner", "plan", "stacks"], env, str(ROOT))
    assert "planner.cli" in modules and "yaml" in modules
    assert startup.heavy(modules) == []
    assert "yaml" in startup.third_party(modules, floor)


def test_importtime_reader_sees_heavy_modules_when_they_are_imported() -> None:
    """The check above is not vacuous: importing pulumi is reported."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    modules = startup.imported_modules(["-c", "import pulumi"], env, str(ROOT))
    assert "pulumi" in startup.heavy(modules)


def test_plan_reads_yaml_with_the_c_parser_only() -> None:
    """PyYAML's pure-Python scanner is ~10x slower than libyaml (9 ms for the 2 KB FSx
    table, a tenth of the start-up budget); every YAML file on the plan path goes through
    `planner.core.reading.yaml_lines` or a `CSafeLoader`, never `yaml.safe_load`."""
    wrapper = (
        "import sys, yaml.scanner\n"
        "def refuse(*a, **k): raise AssertionError('pure-Python YAML scanner used')\n"
        "yaml.scanner.Scanner.__init__ = refuse\n" + _WRAPPER
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for fmt in FORMATS:
        proc = subprocess.run(
            [sys.executable, "-c", wrapper, "plan", "stacks", "--format", fmt, "-o", os.devnull],
            cwd=ROOT,
            env=env,
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0 and json.loads(proc.stdout.splitlines()[-1])["code"] in (0, 1), proc.stderr


def test_table_plan_loads_neither_the_preflight_checks_nor_importlib_resources() -> None:
    """Both cost milliseconds on every run and a plan needs neither (data files are read
    from beside the package; rule look-ups try the rules before the preflight checks)."""
    code, modules = _modules_after_main("plan", "stacks", "-o", os.devnull)
    assert code in (0, 1) and "planner.core.rules" in modules
    assert not [m for m in modules if m.startswith("planner.aws")]
    assert "importlib.resources" not in modules


def test_version_alone_imports_no_command() -> None:
    """`planner --version` answers from the top-level parser: no command module is imported
    (a CI step that logs the version pays for nothing else)."""
    printed: list[str] = []
    code, modules = _modules_after_main("--version", printed=printed)
    assert code == 0 and printed[0].startswith("planner ") and printed[0].split()[1][0].isdigit()
    assert not [m for m in modules if m.startswith("planner.commands.")]
