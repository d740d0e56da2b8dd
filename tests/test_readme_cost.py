"""The documented cost and preflight examples are real output: each `$ planner ...` block of
the README and of the docs pages on cost, comparing and preflight is run here and must print
what the page shows, so a change in prices, arithmetic or wording that is not carried into
the documentation fails the suite.

Blocks that need a setup the README describes in prose (a modified git tree for `diff
--base-ref`, a user's price book file, no AWS credentials for `--live-prices`) are covered by
their own tests (test_diff.py, test_cost_book.py, test_live_prices.py) and skipped here. A
block whose output has a line `...` (an elision) must show its other lines in order.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from moto import mock_aws

from conftest import ROOT, run_cli
from test_preflight_helpers import isolate

NEEDS_SETUP = ("--base-ref", "my-prices.yaml", "--live-prices")
COST_PAGES = ("docs/cost.md", "docs/tasks/compare.md")
FIRST_STACK_PAGES = ("README.md", "docs/getting-started.md")
PREFLIGHT_PAGE = "docs/tasks/preflight.md"


def page(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def examples(text: str) -> list[tuple[list[str], list[str]]]:
    """(argv after `planner`, expected output lines) of every fenced block that starts with `$ planner`."""
    out = []
    for block in re.findall(r"```\n(\$ planner .*?)```", text, flags=re.S):
        lines = block.rstrip("\n").split("\n")
        command = lines.pop(0)
        while command.endswith("\\"):
            command = command[:-1] + lines.pop(0)
        out.append((shlex.split(command)[2:], lines))
    return out


def matches(expected: list[str], got: list[str]) -> bool:
    """Equal, or, when `expected` elides with `...` lines, its other lines in order within `got`."""
    if not any(line.strip() == "..." for line in expected):
        return expected == got
    rest = iter(got)
    return all(any(g == e for g in rest) for e in expected if e.strip() != "...")


COST = [(path, argv, lines) for path in COST_PAGES + FIRST_STACK_PAGES for argv, lines in examples(page(path))
        if not any(x in argv for x in NEEDS_SETUP)]


def test_the_cost_pages_have_runnable_examples() -> None:
    commands = [argv[0] for path, argv, _ in COST if path in COST_PAGES]
    assert commands.count("compare") == 2 and "plan" in commands  # the seed comparison under both books, the estimate
    for path in FIRST_STACK_PAGES:  # the first stack's plan, priced
        assert [argv for p, argv, _ in COST if p == path] == [["plan", "stacks/Pulumi.p5en-train.yaml"]]


@pytest.mark.parametrize(("path", "argv", "expected"), COST, ids=[f"{p}: " + " ".join(a) for p, a, _ in COST])
def test_cost_example_is_what_the_command_prints(path: str, argv: list[str], expected: list[str]) -> None:
    res = run_cli(*argv)
    assert res.code == 0, res.err
    got = res.out.rstrip("\n").split("\n")
    assert matches(expected, got), "{} is stale for `planner {}`; paste:\n{}".format(path, " ".join(argv), res.out)


def test_preflight_example_is_what_preflight_prints_against_moto(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The preflight page's p5-research stack, written where its command expects it, checked in moto's account."""
    text = page(PREFLIGHT_PAGE)
    stack = re.search(r"```yaml\n(# On-demand P5 and a Capacity Block.*?)```", text, flags=re.S)
    assert stack, f"{PREFLIGHT_PAGE}: the preflight example's stack file is missing"
    ((argv, expected),) = [e for e in examples(text) if e[0][-1].endswith("p5-research.yaml")]
    (tmp_path / "stacks").mkdir()
    (tmp_path / argv[-1]).write_text(stack.group(1), encoding="utf-8")
    isolate(monkeypatch, tmp_path)
    with mock_aws():
        res = run_cli(*argv, cwd=tmp_path)
    assert res.code == 1, res.err
    assert res.out.rstrip("\n").split("\n") == expected, (
        f"{PREFLIGHT_PAGE} is stale; paste:\n" + res.out)
