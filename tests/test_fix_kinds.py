"""A fix is edits; the few that cannot be are named (`Fix.outside`: quota, purchase, price, ...).

Every `Fix(...)` planner builds passes edits or alternatives, and every fix in words is made with
`outside(kind, ...)`, a kind of `OUTSIDE` (read statically, from the source), so that a new fix in words
without edits fails here; and every finding of the bundled stacks and the invalid-stack corpus carries
edits, alternatives or a kind.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from planner.core.input.stack_files import load_stack
from planner.core.model.findings import OUTSIDE, OUTSIDE_KINDS, Fix
from planner.core.planning.pipeline import plan_stack

ROOT = Path(__file__).parent.parent
SOURCES = sorted((ROOT / "planner").rglob("*.py"))
STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml")) + sorted(
    (ROOT / "tests" / "invalid_stacks").glob("Pulumi.*.yaml")
)


def _calls(name: str) -> list[tuple[str, ast.Call]]:
    out = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if called == name:
                    out.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return out


def test_every_fix_planner_builds_has_edits_or_alternatives() -> None:
    """`Fix(reason)` alone is a fix in words: made with `outside(kind, reason)` instead."""
    words = [
        where
        for where, call in _calls("Fix")
        if len(call.args) < 2 and not {k.arg for k in call.keywords} & {"edits", "alternatives"}
    ]
    assert words == []


def test_every_fix_in_words_names_a_kind_of_the_small_set() -> None:
    calls = _calls("outside")
    assert len(calls) >= 20
    for where, call in calls:
        kind = call.args[0] if call.args else None
        # a literal kind, or a parameter typed `Outside` (which mypy holds to the same set)
        assert isinstance(kind, ast.Name) or (isinstance(kind, ast.Constant) and kind.value in OUTSIDE), where
    assert set(OUTSIDE) == set(OUTSIDE_KINDS) and all(OUTSIDE.values())
    assert not [w for w, _ in _calls("advice")]


def _carried(fix: Fix) -> bool:
    return bool(fix.edits or fix.alternatives) or (fix.outside in OUTSIDE and bool(fix.reason))


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_every_finding_of_the_stacks_carries_its_fix_as_edits_or_a_named_kind(path: Path) -> None:
    for f in plan_stack(load_stack(str(path))).findings:
        if f.fix is not None:
            assert _carried(f.fix), (path.name, f.rule, f.fix)


def test_the_json_report_says_the_kind_of_a_fix_in_words_and_the_docs_name_every_kind() -> None:
    """A reader of the JSON learns why a fix has no edits from `outside`, a word docs/output.md explains."""
    import json

    from conftest import run_cli

    doc = json.loads(run_cli("plan", "stacks", "tests/invalid_stacks", "--format", "json").out)
    fixes = [f["fix"] for s in doc["stacks"] for f in s["findings"] if f.get("fix")]
    said = [f for f in fixes if "outside" in f]
    assert said and all(f["outside"] in OUTSIDE and f["reason"] for f in said)
    assert all(f["edits"] or f.get("alternatives") or "outside" in f for f in fixes)
    output = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
    assert all(f"`{kind}`:" in output for kind in OUTSIDE_KINDS)
