"""The README's cost and preflight examples are real output: each `$ planner ...` block is run
here and must print what the README shows, so a change in prices, arithmetic or wording
that is not carried into the README fails the suite.

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

README = (ROOT / "README.md").read_text(encoding="utf-8")
NEEDS_SETUP = ("--base-ref", "my-prices.yaml", "--live-prices")


def section(title: str) -> str:
    """The text of a `## title` section, up to the next level-2 heading."""
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


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


COST = [(argv, lines) for argv, lines in examples(section("Cost")) if not any(x in argv for x in NEEDS_SETUP)]


def test_the_cost_section_has_runnable_examples() -> None:
    commands = [argv[0] for argv, _ in COST]
    assert commands.count("compare") == 2 and "plan" in commands  # the seed comparison under both books, the estimate


@pytest.mark.parametrize(("argv", "expected"), COST, ids=[" ".join(a) for a, _ in COST])
def test_cost_example_is_what_the_command_prints(argv: list[str], expected: list[str]) -> None:
    res = run_cli(*argv)
    assert res.code == 0, res.err
    got = res.out.rstrip("\n").split("\n")
    assert matches(expected, got), "README.md, section Cost, is stale for `planner {}`; paste:\n{}".format(
        " ".join(argv), res.out)


def test_preflight_example_is_what_preflight_prints_against_moto(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The README's p5-research stack, written where its command expects it, checked in moto's account."""
    text = section("Preflight against the AWS account")
    stack = re.search(r"```yaml\n(# On-demand P5 and a Capacity Block.*?)```", text, flags=re.S)
    assert stack, "README.md: the preflight example's stack file is missing"
    ((argv, expected),) = [e for e in examples(text) if e[0][-1].endswith("p5-research.yaml")]
    (tmp_path / "stacks").mkdir()
    (tmp_path / argv[-1]).write_text(stack.group(1), encoding="utf-8")
    isolate(monkeypatch, tmp_path)
    with mock_aws():
        res = run_cli(*argv, cwd=tmp_path)
    assert res.code == 1, res.err
    assert res.out.rstrip("\n").split("\n") == expected, (
        "README.md, section Preflight, is stale; paste:\n" + res.out)
