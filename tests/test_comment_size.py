"""The pull-request comment: under GitHub's size limit whatever the input, errors and totals
kept, what was left out named with where the full report is; it renders as GitHub renders it."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec.structs

from planner.core.document.build_diff import diff_section
from planner.core.input.stack_files import load_stack, load_stacks
from planner.core.planning.build_report import report
from planner.core.planning.pipeline import plan_stacks
from planner.core.render import diff_report, markdown
from planner.core.render.bounded import MAX_CHARS
from tests.conftest import document

ROOT = Path(__file__).resolve().parent.parent
GOOD = "      storage_capacity_gib: 1200\n"
BAD = "      storage_capacity_gib: 1000\n"  # not a size FSx for Lustre takes: a lustre-capacity error


def _many(tmp_path: Path, n: int, failing: set[int] = frozenset()) -> list:
    """`n` copies of the bundled trn2-dev stack, some of them (`failing`) with errors."""
    text = (ROOT / "stacks" / "Pulumi.trn2-dev.yaml").read_text(encoding="utf-8")
    assert GOOD in text
    for i in range(n):
        body = text if i not in failing else text.replace(GOOD, BAD)
        (tmp_path / f"Pulumi.s{i:03}.yaml").write_text(body, encoding="utf-8")
    return plan_stacks(load_stacks([str(tmp_path)]))


def test_a_plan_of_many_stacks_stays_under_the_limit_and_keeps_errors(tmp_path: Path) -> None:
    plans = _many(tmp_path, 300, failing={5, 250})
    text = markdown.render(document(plans))
    assert len(text) < MAX_CHARS
    assert text.startswith(markdown.MARKER + "\n## :x: planner: 300 stacks, ")  # the totals stay
    for name in ("s005", "s250"):  # the failing stacks come first, in full
        assert f"### `{name}`" in text and text.index(f"### `{name}`") < text.index("### `s000`")
    assert text.count("lustre-capacity") >= 2
    note = text.rstrip().splitlines()[-1]
    assert note.startswith("**Shortened to stay under GitHub's comment size limit**")
    assert "shown as one line only: `s" in note and "and " in note and "more" in note
    assert "`planner plan --format json`" in note and "SARIF" in note


def test_a_comment_of_many_stacks_keeps_every_row_and_the_grand_total(tmp_path: Path) -> None:
    """60 stacks, half of them failing, in a comment a third of GitHub's size: the overview table (a row
    per stack and their total) goes in before any stack in full; what did not fit is named."""
    plans = _many(tmp_path, 60, failing=set(range(0, 60, 2)))
    text = markdown.render(document(plans), limit=20_000)
    assert len(text) <= 20_000
    rows = [line for line in text.splitlines() if line.startswith("| `s")]
    assert len(rows) == 60
    (total,) = [line for line in text.splitlines() if line.startswith("| **total** (60 stacks)")]
    assert "| 30 |" in total  # the errors of every stack, counted
    assert text.index(rows[-1]) < text.index(total) < text.index("### `s000`")
    assert "left out (their rows above count them): `s" in text.rstrip().splitlines()[-1]


def test_when_even_errors_do_not_fit_they_are_counted(tmp_path: Path) -> None:
    plans = _many(tmp_path, 40, failing=set(range(40)))
    text = markdown.render(document(plans), limit=6_000)
    assert len(text) <= 6_000 and "## :x: planner: 40 stacks" in text
    assert "**Shortened to stay under GitHub's comment size limit**" in text


def test_a_small_plan_is_not_shortened() -> None:
    text = markdown.render(document(plan_stacks(load_stacks([str(ROOT / "stacks")]))))
    assert "Shortened" not in text and text.count("\n### ") == 3


def test_a_diff_of_many_stacks_stays_under_the_limit_and_puts_the_change_first(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "head").mkdir()
    base = _many(tmp_path / "base", 250)
    head = _many(tmp_path / "head", 250, failing={3})
    head_report = report("diff", head)
    result = msgspec.structs.replace(
        head_report, diff=diff_section(report("plan", base), head_report, "main", "working tree", "current")
    )
    text = diff_report.render_markdown(result)
    assert len(text) < MAX_CHARS
    assert "1 of 250 stacks changed or failing" in text.splitlines()[1]
    assert text.index("| s003 | changed |") < text.index("| s000 | unchanged |")
    assert text.index("**Changed line items**") < text.index("### `s003`")
    assert (
        "| s003 | lustre | changed | FSx for Lustre SCRATCH_2 1,200 GiB -&gt; FSx for Lustre SCRATCH_2 1,000 GiB |"
        in text
    )
    assert "Shortened" not in text and text.count("| unchanged |") == 249  # the others: one row each
    short = diff_report.render_markdown(result, limit=8_000)
    assert len(short) <= 8_000 and "| s003 | changed |" in short and "lustre-capacity" in short
    assert "unchanged stack rows" in short.splitlines()[-1] and "SARIF" in short.splitlines()[-1]


def test_source_urls_are_one_code_span_and_gpu_stacks_count_no_ultraservers() -> None:
    plan = plan_stacks([load_stack(str(ROOT / "stacks" / "Pulumi.p5en-train.yaml"))])
    text = markdown.render(document(plan))
    assert "`:`" not in text and re.search(r"`https://[^`\s]+`", text)
    assert "UltraServers" not in text.split("\n### ")[1].splitlines()[2]
    ultra = markdown.render(document(plan_stacks([load_stack(str(ROOT / "stacks" / "Pulumi.ultraserver-prod.yaml"))])))
    assert re.search(r"\d+ UltraServers, ", ultra)


def test_input_problems_stay_under_the_limit_and_say_how_many_were_left_out() -> None:
    from planner.core.document import InputProblem, Report

    problems = tuple(
        InputProblem(f"stacks/Pulumi.b{i:04}.yaml", 3, "planner:cluster", "missing required key 'x' " * 4)
        for i in range(3000)
    )
    text = markdown.render(Report("plan", problems=problems))
    assert len(text) < MAX_CHARS and "3000 input problems, nothing planned" in text.splitlines()[1]
    assert "| `stacks/Pulumi.b0000.yaml:3` |" in text and "input problem rows" in text.splitlines()[-1]
