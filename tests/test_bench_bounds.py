"""`make bench`'s bounds (bench/bounds.py): the hostile documents are what they claim, and a
bound is judged on the answer as well as on the time, so a fast wrong answer is a FAIL."""

from __future__ import annotations

from bench import bounds, hostile
from planner.core.reading import yaml_lines as yamlload


def test_a_bound_passes_only_in_time_and_with_the_right_answer() -> None:
    assert bounds._row("x", 0.5, 5.0, 2, (2,), "planner: f: refused", "refused")["result"] == "PASS"
    assert bounds._row("x", 5.0, 5.0, 2, (2,), "planner: f: refused", "refused")["result"] == "FAIL"
    wrong = bounds._row("x", 0.1, 5.0, 0, (2,), "", "refused")
    assert wrong["result"] == "FAIL" and wrong["wrong_answer"] == ["exit 0"]
    assert bounds._row("x", 0.1, 5.0, 2, (2,), "planner: f: other", "refused")["result"] == "FAIL"


def test_hostile_documents_sit_where_they_claim() -> None:
    assert len(hostile.over_the_size_limit()) > yamlload.MAX_BYTES
    assert len(hostile.large_valid()) < yamlload.MAX_BYTES
    assert all(len(hostile.dense(body).encode()) < yamlload.MAX_BYTES for body in hostile.DENSE.values())
    small, large = hostile.MANY_GROUPS
    assert small * 4 < yamlload.MAX_NODES < large * 4  # one under the value budget, one past it
    bomb = hostile.laughs(10, 10, "list")
    assert bomb.count("*a8") == 10 and "planner:cluster: *a9" in bomb
    assert hostile.deep(5000, "flow-list").count("[") == 5000


def test_no_test_compares_elapsed_time() -> None:
    """Speed belongs in `make bench`: a test that compares a clock fails on a loaded CI runner."""
    import re

    from tests.conftest import ROOT

    clock = r"(?:perf_counter|monotonic|time\.time|process_time)\(\)"
    elapsed = re.compile(rf"{clock}\s*-\s*[A-Za-z_][\w.]*\s*[<>]|{clock}\s*[<>]|[<>]=?\s*{clock}")
    found = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in sorted((ROOT / "tests").rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if elapsed.search(line)
    ]
    assert not found, found
