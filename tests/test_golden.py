"""rules and catalog print what tests/golden holds (`python -m tools.golden`
rewrites them after an intended change, so each change to an interface is a reviewed diff)."""

from __future__ import annotations

import pytest

from tools import golden


@pytest.mark.parametrize("name", sorted(golden.CASES))
def test_output_is_the_golden_file(name: str) -> None:
    columns, argv = golden.CASES[name]
    path = golden.GOLDEN / name
    assert path.is_file(), f"{path} missing: run python -m tools.golden"
    assert golden.render(columns, argv) == path.read_text(encoding="utf-8"), (
        f"planner {' '.join(argv)} no longer prints {path.name}; if intended, run python -m tools.golden and review the diff"
    )
