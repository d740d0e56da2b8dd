"""The documented examples are real output (the developers' guide): every `$ planner ...`
block of README.md and docs/ (not the generated reference), the policy pack page's snippet
output, the programs page's component error and the pull-request page's diagram are
produced again here and must be what the page shows. A change in prices, arithmetic or
wording that is not carried into the documentation fails the suite;
`.venv/bin/python -m tools.doc_examples` re-pastes them (the same code runs them here, with
the setup each page describes in prose: a git repository for `diff --base-ref`, the bad
price book file, moto for preflight, no credentials for `--live-prices` and preflight's
error). A block whose output has a line `...` (an elision) must show its other lines in
order. Blocks that are not run are listed in NOT_RUN, each with why.
"""

from __future__ import annotations

import subprocess

import pytest
from conftest import ROOT

from tools import doc_examples as de

BLOCKS = de.all_blocks()

# Plain, `text` and `console` blocks of the docs that are not run, each with why (page, first
# line's start). Every other such block is an example above and is run.
NOT_RUN: dict[tuple[str, str], str] = {
    ("docs/benchmarks.md", "planner benchmarks,"): "timings of one machine, written by `make bench`; not reproducible",
    ("docs/output.md", "planner: stacks/Pulumi.dev.yaml:4:"): (
        "error lines of four different inputs, abbreviated with (...); each is asserted in tests/test_output.py"
    ),
    ("docs/rules.md", "    info     unused suppression:"): (
        "an excerpt of the table for an illustrative Pulumi.dev.yaml; its lines are asserted in "
        "tests/test_unused_suppression.py"
    ),
    ("docs/tasks/compare.md", "planner compare --parameters N"): "usage synopsis, not output",
    ("docs/tasks/compare.md", "planner compare --model NAME|FILE"): "usage synopsis, not output",
    ("docs/tasks/compare.md", "planner diff BASE HEAD"): "usage synopsis, not output",
    ("docs/tasks/preflight.md", "planner preflight [PATH ...]"): "usage synopsis, not output",
    ("docs/tasks/find-capacity.md", "planner capacity [STACK_FILE]"): "usage synopsis, not output",
    ("docs/tasks/pull-requests.md", ".github/workflows/planner.yml"): "a program repository's files, not output",
}


def test_every_output_block_of_the_docs_is_run_or_listed() -> None:
    """Each plain, `text` or `console` block is an example that is run, or is in NOT_RUN with why."""
    run = {(b.page, b.start) for b in BLOCKS}
    unlisted, listed = [], set()
    for rel in de.pages():
        for f in de.fences(de.page_text(rel)):
            if f.lang not in ("", "text", "console") or (rel, f.start) in run:
                continue
            key = [k for k in NOT_RUN if k[0] == rel and f.body.startswith(k[1])]
            listed.update(key)
            if not key:
                unlisted.append(f"{rel}: {f.body.split(chr(10), 1)[0]}")
    assert unlisted == [], "run these in tools/doc_examples.py or list them in NOT_RUN with why"
    assert listed == set(NOT_RUN), "NOT_RUN names blocks that are gone"
    assert not any(b.page.startswith("docs/reference/") for b in BLOCKS)


def test_the_pages_have_their_examples() -> None:
    """The examples this suite exists for are still on their pages (a reworded fence would drop them)."""
    by_page: dict[str, list[list[str]]] = {}
    for b in BLOCKS:
        by_page.setdefault(b.page, []).extend(c.argv for c in b.commands)
    for page in ("README.md", "docs/getting-started.md"):  # the first stack's plan, priced
        assert by_page[page] == [["planner", "plan", "stacks/Pulumi.p5en-train.yaml"]]
    compare = [a[1] for a in by_page["docs/tasks/compare.md"]]
    # the December 2024 comparison under both books, the model's predicted run, the diff
    assert compare == ["compare", "compare", "compare", "diff"]
    assert ["echo", "$?"] in by_page["docs/rules.md"]
    assert ["planner", "preflight", "stacks/Pulumi.p5-research.yaml"] in by_page["docs/tasks/preflight.md"]
    for page in (
        "docs/cost.md",
        "docs/tasks/price-a-cluster.md",
        "docs/tasks/pull-requests.md",
        "docs/tasks/your-own-program.md",
        "docs/programs.md",
    ):
        assert by_page[page], page
    kinds = [b.kind for b in BLOCKS]
    assert kinds.count("policy-snippet") == 1 and kinds.count("component-error") == 1 and kinds.count("mermaid") == 1


@pytest.mark.parametrize("block", BLOCKS, ids=[b.title for b in BLOCKS])
def test_example_is_what_it_prints(block: de.Block) -> None:
    got = de.render(block)
    assert de.matches(block.shown, got.rstrip("\n").split("\n")), (
        f"{block.title} is stale; run `.venv/bin/python -m tools.doc_examples`. It prints:\n{got}"
    )


def test_preflight_example_runs_in_moto_and_reports_errors() -> None:
    """The preflight page's stack in moto's account: the AWS errors and checks it shows are found (exit 1)."""
    (block,) = [
        b for b in BLOCKS if b.title == "docs/tasks/preflight.md: planner preflight stacks/Pulumi.p5-research.yaml"
    ]
    with de.setup_for(block)() as cwd:
        code, out = de.run_planner(block.commands[0].argv[1:], cwd)
    assert code == 1 and "preflight-offering" in out


def test_rules_page_exit_code_is_the_commands() -> None:
    (block,) = [
        b for b in BLOCKS if b.title == "docs/rules.md: planner plan tests/invalid_stacks/Pulumi.lustre-capacity.yaml"
    ]
    assert block.commands[1].shown == ["1"]
    assert de.run_planner(block.commands[0].argv[1:], ROOT)[0] == 1


def test_diff_example_runs_on_the_edits_the_page_describes() -> None:
    (block,) = [b for b in BLOCKS if "--base-ref" in b.title and "infra" not in b.title]
    with de.setup_for(block)() as repo:
        names = sorted(p.name for p in (repo / "stacks").iterdir())
        assert "Pulumi.trn2-dev.yaml" not in names and "Pulumi.p5en-train.yaml" in names
        assert "count: 16" in (repo / "stacks/Pulumi.p5en-train.yaml").read_text(encoding="utf-8")


def test_program_diff_example_runs_on_the_program_and_the_edit_the_page_describes() -> None:
    block = next(b for b in BLOCKS if "--base-ref" in b.title and "infra" in b.title)
    with de.setup_for(block)() as repo:
        main = (repo / "infra" / "__main__.py").read_text(encoding="utf-8")
        assert de.PROGRAM_EDIT[1] in main and de.PROGRAM_EDIT[0] not in main
        committed = subprocess.run(
            ["git", "show", "HEAD:infra/__main__.py"], cwd=repo, capture_output=True, text=True
        ).stdout
        assert de.PROGRAM_EDIT[0] in committed
        assert "hours: 336" in (repo / "infra" / "Pulumi.test.yaml").read_text(encoding="utf-8")


def test_reelide_keeps_elisions_between_the_lines_around_them() -> None:
    old = ["Stack a", "  ...", "  findings: 1 error", "    error x", "done"]
    new = ["Stack a", "  table", "  cost", "  findings: 2 errors", "    error x", "    error y", "done"]
    assert de.reelide(old, new) == ["Stack a", "  ...", "  findings: 2 errors", "    error x", "    error y", "done"]
    assert de.reelide(["a", "..."], ["a", "b", "c"]) == ["a", "..."]
    # A line next to an elision that changed (a wider column) is found by similarity.
    old = ["$ planner plan x", "  ...", "    name          resource   total", "  ...", "  findings: none"]
    new = ["$ planner plan x", "  table", "    name               resource   total", "    row", "  findings: none"]
    assert de.reelide(old, new) == [
        "$ planner plan x",
        "  ...",
        "    name               resource   total",
        "  ...",
        "  findings: none",
    ]
    assert de.matches(["a", "...", "c"], ["a", "b", "c"]) and not de.matches(["a", "...", "d"], ["a", "b", "c"])
