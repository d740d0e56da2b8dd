"""Misspelt options, choices and instance types get a did-you-mean, like misspelt stack keys."""

from __future__ import annotations

import pytest

from tests.conftest import no_plan, run_cli


@pytest.mark.parametrize(
    "args,expected",
    [
        (("plan", "stacks", "--fromat", "json"), "unrecognized arguments: --fromat json (did you mean '--format'?)"),
        (
            ("diff", "a", "b", "--bse-ref", "HEAD"),
            "unrecognized arguments: --bse-ref HEAD (did you mean '--base-ref'?)",
        ),
        (("plan", "stacks", "--format", "jsn"), "invalid choice: 'jsn' (did you mean 'json'?)"),
        (("plna", "stacks"), "invalid choice: 'plna' (did you mean 'plan'?)"),
        (
            (
                "compare",
                "--parameters",
                "7e9",
                "--tokens",
                "1e12",
                "--mfu",
                "0.4",
                "--instances",
                "2",
                "--instance-type",
                "p5en.48xlarg",
            ),
            "unknown instance type 'p5en.48xlarg' (did you mean 'p5en.48xlarge'?)",
        ),
    ],
)
def test_a_misspelling_gets_a_did_you_mean(args: tuple[str, ...], expected: str) -> None:
    res = run_cli(*args)
    assert res.code == 2 and no_plan(res.out)
    (line,) = res.err.strip().splitlines()
    assert expected in line, line


def test_nothing_close_gets_no_guess() -> None:
    res = run_cli("plan", "stacks", "--format", "zzz")
    assert res.code == 2 and "did you mean" not in res.err
    res = run_cli("plan", "stacks", "--zzzzzz")
    assert res.code == 2 and "unrecognized arguments: --zzzzzz" in res.err and "did you mean" not in res.err
