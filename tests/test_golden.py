"""Every output format for the bundled stacks is what tests/golden holds (`python -m tools.golden`
rewrites them after an intended change, so each change to an interface is a reviewed diff)."""

from __future__ import annotations

import json

import pytest

from tools import golden


@pytest.mark.parametrize("name", sorted(golden.CASES))
def test_output_is_the_golden_file(name: str) -> None:
    columns, argv = golden.CASES[name]
    path = golden.GOLDEN / name
    assert path.is_file(), f"{path} missing: run python -m tools.golden"
    assert golden.render(columns, argv) == path.read_text(encoding="utf-8"), (
        f"planner {' '.join(argv)} no longer prints {path.name}; if intended, run python -m tools.golden and review the diff")


def test_every_plan_format_has_a_golden_file() -> None:
    from test_determinism import FORMATS

    covered = {argv[argv.index("--format") + 1] if "--format" in argv else "table"
               for argv in (case for _, case in golden.CASES.values()) if argv[0] == "plan"}
    assert covered == set(FORMATS)


def test_the_json_plan_document_is_versioned() -> None:
    doc = json.loads((golden.GOLDEN / "plan.json").read_text(encoding="utf-8"))
    assert doc["version"] == 1 and [s["stack"] for s in doc["stacks"]] == ["p5en-train", "trn2-dev", "ultraserver-prod"]
