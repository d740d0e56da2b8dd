"""No output points at files users do not have or uses this project's private words.

Every command, in every format, over the bundled stacks and the invalid example stacks: no
"the facts", no "seed" or "seeds", no "shared/seeds" or "shared/facts".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from moto import mock_aws
from test_preflight_helpers import isolate

from planner.core import rules
from tests.conftest import every_format, run_cli

PRIVATE = re.compile(r"the facts|shared/(seeds|facts)|\bseeds?\b", re.IGNORECASE)
BOOKS = ("current", "capacity-blocks-2024")
STACK_DIRS = ("stacks", "tests/invalid_stacks")
INVALID = sorted(
    str(p.relative_to(Path(__file__).parent.parent))
    for p in (Path(__file__).parent / "invalid_stacks").glob("Pulumi.*.yaml")
)


def private_words(text: str) -> list[str]:
    """The private words in `text`, with a little context each."""
    return [text[max(0, m.start() - 40) : m.end() + 40].replace("\n", " ") for m in PRIVATE.finditer(text)]


def _check(*args: str) -> None:
    res = run_cli(*args)
    assert res.code in (0, 1), (args, res.err)
    found = private_words(res.out) + private_words(res.err)
    assert not found, f"planner {' '.join(args)}: {found}"


def test_the_check_itself_finds_the_words() -> None:
    assert private_words("source: shared/seeds/000.txt") and private_words("as the facts say")
    assert private_words("the seeds' 83.2 PFLOPS") and private_words("seed 003's figure")
    assert private_words("price book seed-2024 (December 2024)")  # no name is excepted
    assert private_words("price book capacity-blocks-2024 (December 2024); seedless grapes") == []


@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "sarif", "github"])
@pytest.mark.parametrize("book", BOOKS)
@pytest.mark.parametrize("where", STACK_DIRS)
def test_plan(where: str, book: str, fmt: str) -> None:
    _check("plan", where, "--format", fmt, "--price-book", book)


def _check_every_format(*args: str, tmp: Path) -> None:
    """`_check` in each format, the command run once (the others rendered from its document)."""
    for fmt, res in every_format(*args, tmp=tmp).items():
        assert res.code in (0, 1), (args, fmt, res.err)
        found = private_words(res.out) + private_words(res.err)
        assert not found, f"planner {' '.join(args)} --format {fmt}: {found}"


@pytest.mark.parametrize("stack", ["trn2-dev", "ultraserver-prod", "p5en-train"])
def test_plan_program(stack: str, tmp_path: Path) -> None:
    _check_every_format("plan", "--program", ".", "--stack", stack, tmp=tmp_path)


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
@pytest.mark.parametrize("book", BOOKS)
def test_diff(book: str, fmt: str) -> None:
    for base, head in (
        ("stacks/Pulumi.trn2-dev.yaml", "stacks/Pulumi.ultraserver-prod.yaml"),
        ("stacks/Pulumi.p5en-train.yaml", "stacks/Pulumi.trn2-dev.yaml"),
        *(("stacks/Pulumi.trn2-dev.yaml", p) for p in INVALID),
    ):
        _check("diff", base, head, "--format", fmt, "--price-book", book)


@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("book", BOOKS)
@pytest.mark.parametrize("size", [("--instances", "16"), ("--deadline-hours", "720")])
def test_compare(size: tuple[str, str], book: str, fmt: str) -> None:
    for precision in ("bf16", "fp8"):
        _check(
            "compare",
            "--parameters",
            "70e9",
            "--tokens",
            "2e12",
            "--mfu",
            "0.35",
            "--precision",
            precision,
            *size,
            "--price-book",
            book,
            "--format",
            fmt,
        )


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_rules(fmt: str) -> None:
    _check("rules", "--format", fmt)


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_catalog(fmt: str) -> None:
    _check("catalog", "--format", fmt)


@pytest.mark.parametrize("where", STACK_DIRS)
def test_preflight(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str) -> None:
    isolate(monkeypatch, tmp_path)
    with mock_aws():
        _check_every_format("preflight", where, tmp=tmp_path)


def test_help_texts() -> None:
    for args in (
        ("--help",),
        ("plan", "--help"),
        ("diff", "--help"),
        ("compare", "--help"),
        ("rules", "--help"),
        ("catalog", "--help"),
        ("preflight", "--help"),
    ):
        res = run_cli(*args)
        assert res.code == 0 and not private_words(res.out + res.err), args


def test_no_rule_or_check_metadata_uses_private_words() -> None:
    for r in rules.known().values():
        text = " ".join((r.id, r.description, r.source, r.remediation))
        assert not private_words(text), (r.id, private_words(text))
