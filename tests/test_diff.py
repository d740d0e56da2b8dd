"""planner diff: cost before/after and findings added/resolved, between paths or against a git ref."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cost_support import write_book

from tests.conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed for --base-ref")

STACK = """\
config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2a
    node_groups:
      - {{name: a, instance_type: trn2.48xlarge, count: {count}}}
    schedule: {{hours: 100}}
    budget: {{total_usd: 3100}}
    suppress:
      - {{rule: purchase-not-sold, reason: "priced by the test book; these tests count budget findings"}}
"""


def _write(folder: Path, name: str, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"Pulumi.{name}.yaml"
    path.write_text(STACK.format(count=count), encoding="utf-8")
    return path


def test_two_folders_cost_change_and_findings(tmp_path: Path) -> None:
    book = write_book(tmp_path)
    _write(tmp_path / "base", "train", 2)  # 2 x 100 h x ($10 + $0.05 root volume) = $2,010
    _write(tmp_path / "head", "train", 4)  # $4,020: over the $3,100 budget
    res = run_cli("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--price-book", str(book), "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)["diff"]
    (s,) = data["stacks"]
    assert s["status"] == "changed"
    assert s["total"] == {"before_usd": 2010, "after_usd": 4020, "change_usd": 2010, "change_percent": 100.0}
    assert s["monthly"]["change_usd"] == pytest.approx(20.1 * 730)
    assert [f["rule"] for f in s["findings_added"]] == ["budget-exceeded"] and s["findings_resolved"] == []
    assert data["total"]["change_usd"] == 2010 and data["total"]["findings_added"] == 1
    failing = run_cli(
        "diff", str(tmp_path / "base"), str(tmp_path / "head"), "--price-book", str(book), "--fail-on", "error"
    )
    assert failing.code == 1
    assert "+$2,010.00 (+100.0%)" in failing.out
    back = run_cli(
        "diff", str(tmp_path / "head"), str(tmp_path / "base"), "--price-book", str(book), "--format", "json"
    )
    s = json.loads(back.out)["diff"]["stacks"][0]
    assert s["total"]["change_percent"] == -50.0 and [f["rule"] for f in s["findings_resolved"]] == ["budget-exceeded"]


@pytest.mark.parametrize(("before", "after"), [(4, 5), (5, 4)])
def test_a_budget_already_broken_is_not_new_when_its_figure_moves(tmp_path: Path, before: int, after: int) -> None:
    """Over the $3,100 budget on both sides: the reworded finding is added and resolved, and --fail-on passes."""
    book = write_book(tmp_path)
    _write(tmp_path / "base", "train", before)
    _write(tmp_path / "head", "train", after)
    args = ("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--price-book", str(book))
    (s,) = json.loads(run_cli(*args, "--format", "json").out)["diff"]["stacks"]
    assert (
        [f["rule"] for f in s["findings_added"]] == ["budget-exceeded"] == [f["rule"] for f in s["findings_resolved"]]
    )
    assert f"${after * 1005:,}.00 exceeds" in s["findings_added"][0]["message"]
    assert run_cli(*args, "--fail-on", "error").code == 0
    _write(tmp_path / "head", "other", 5)  # a second stack over its budget: that one is new
    assert run_cli(*args, "--fail-on", "error").code == 1


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.test", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_base_ref_in_a_temporary_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _write(repo / "stacks", "train", 2)
    _write(repo / "stacks", "old", 1)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _write(repo / "stacks", "train", 3)  # $2,010 -> $3,015 ($1,005 an instance with its root volume)
    (repo / "stacks" / "Pulumi.old.yaml").unlink()  # removed: $1,005 -> nothing
    _write(repo / "stacks", "new", 1)  # added: nothing -> $1,005
    book = write_book(tmp_path)
    res = run_cli("diff", "--base-ref", "HEAD", "--price-book", str(book), "--format", "json", cwd=repo)
    assert res.code == 0, res.err
    data = json.loads(res.out)["diff"]
    by = {s["stack"]: s for s in data["stacks"]}
    assert {k: v["status"] for k, v in by.items()} == {"new": "added", "old": "removed", "train": "changed"}
    assert by["train"]["total"]["change_usd"] == 1005 and by["train"]["total"]["change_percent"] == 50.0
    assert by["train"]["base_file"] == "HEAD:stacks/Pulumi.train.yaml"
    assert by["new"]["total"] == {"before_usd": None, "after_usd": 1005, "change_usd": 1005, "change_percent": None}
    assert by["old"]["total"]["change_usd"] == -1005
    assert data["total"] == {
        "before_usd": 3015,
        "after_usd": 4020,
        "change_usd": 1005,
        "change_percent": 33.33,
        "monthly_change_usd": 7336.5,
        "findings_added": 0,
        "findings_resolved": 0,
    }
    md = run_cli("diff", "--base-ref", "HEAD", "stacks", "--price-book", str(book), "--format", "markdown", cwd=repo)
    assert md.code == 0
    assert "| Stack | Status | Before | After | Change | Findings added / resolved |" in md.out
    assert "| train | changed | $2,010.00 | $3,015.00 | +$1,005.00 (+50.0%) | +0 / -0 |" in md.out
    # the changed stacks in full, after the cost change: their heading, what changed, both sides
    assert "### `new`" in md.out and "**Added:** +$1,005.00" in md.out
    assert md.out.index("| train | changed |") < md.out.index("### `new`")
    assert (
        "| train | a | changed | EC2 instances trn2.48xlarge x 2 (on-demand) -&gt; EC2 instances trn2.48xlarge x 3 (on-demand) |"
        in md.out
    )
    assert (
        md.out
        == run_cli(
            "diff", "--base-ref", "HEAD", "stacks", "--price-book", str(book), "--format", "markdown", cwd=repo
        ).out
    )
    one = run_cli(
        "diff",
        "--base-ref",
        "HEAD",
        "stacks/Pulumi.train.yaml",
        "--price-book",
        str(book),
        "--format",
        "json",
        cwd=repo,
    )
    assert [s["stack"] for s in json.loads(one.out)["diff"]["stacks"]] == ["train"]


def test_unknown_prices_show_the_change_of_priced_items(tmp_path: Path) -> None:
    for folder, count in (("base", 2), ("head", 4)):  # current book: trn2 on demand in ap-south-2 has no price
        path = _write(tmp_path / folder, "train", count)
        path.write_text(path.read_text().replace("us-east-2", "ap-south-2"), encoding="utf-8")
    res = run_cli("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--format", "json")
    s = json.loads(res.out)["diff"]["stacks"][0]
    # only the root volumes are priced, at gp3 in ap-south-2 ($0.0912): $24.99 for 4 instances less $12.49 for 2
    # the same thing is unpriced on both sides (trn2 on demand there), so the priced items are compared like for like
    assert s["total"]["change_usd"] is None and s["total"]["priced_change_usd"] == 12.5
    assert s["total"]["unknown_because"] == ["no price for a (trn2.48xlarge) on both sides"]
    out = run_cli("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--wide").out
    assert "unknown (no price for a (trn2.48xlarge) on both sides; priced items +$12.50)" in out


@pytest.mark.parametrize(
    "args",
    [
        ("diff", "only-one-path"),
        ("diff", "missing-a", "missing-b"),
        ("diff", "--base-ref", "no-such-ref"),
    ],
)
def test_unusable_input_exits_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _write(repo / "stacks", "train", 2)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    res = run_cli(*args, cwd=repo)
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1, (res.code, res.err)
    assert res.out.startswith("Input problems\n") and "nothing planned; exit 2" in res.out  # the report says it too


def _program_repo(tmp_path: Path) -> Path:
    """A git repository holding a corpus program (an EKS managed node group of p5e on a Capacity Block)
    with 336 hours in its stack config, committed: the base of the change."""
    repo = tmp_path / "repo"
    shutil.copytree(Path(__file__).parent / "corpus" / "eks-p5e-capacity-block-managed", repo / "infra")
    config = repo / "infra" / "Pulumi.test.yaml"
    config.write_text(config.read_text() + "  planner:cluster:\n    schedule: {hours: 336}\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    return repo


def test_diff_of_a_program_against_a_git_ref(tmp_path: Path) -> None:
    """The node group doubled in the working tree: the changed line item with both sides, the cost
    difference, and the Markdown comment puts the change first."""
    repo = _program_repo(tmp_path)
    main = repo / "infra" / "__main__.py"
    text = main.read_text()
    main.write_text(
        text.replace(
            'instance_types=["p5e.48xlarge"],\n    capacity_type="CAPACITY_BLOCK",\n    '
            'scaling_config={"min_size": 2, "max_size": 2, "desired_size": 2}',
            'instance_types=["p5e.48xlarge"],\n    capacity_type="CAPACITY_BLOCK",\n    '
            'scaling_config={"min_size": 4, "max_size": 4, "desired_size": 4}',
        ),
        encoding="utf-8",
    )
    assert main.read_text() != text
    args = ("diff", "--program", "infra", "--stack", "test", "--base-ref", "HEAD")
    res = run_cli(*args, "--format", "json", cwd=repo)
    assert res.code == 0, res.err
    data = json.loads(res.out)["diff"]
    (s,) = data["stacks"]
    assert (
        s["status"] == "changed"
        and s["base_file"] == "HEAD:infra/__main__.py"
        and s["head_file"] == "infra/__main__.py"
    )
    (item,) = [i for i in s["line_items"] if i["name"] == "cbr"]
    assert item["status"] == "changed" and (item["before"]["instances"], item["after"]["instances"]) == (2, 4)
    assert item["total_change_usd"] == round(item["total_after_usd"] - item["total_before_usd"], 2) > 0
    # the root volumes have no size in the launch template: left out on both sides alike, so the totals are
    # lower bounds and the priced items are compared like for like
    assert s["total"]["change_usd"] is None and s["total"]["priced_change_usd"] == item["total_change_usd"]
    assert (
        data["total"]["monthly_change_usd"] is None
        and data["total"]["monthly_priced_change_usd"] == item["monthly_change_usd"] > 0
    )
    assert data["base_label"] == "HEAD:infra" and data["base"]["stacks"][0]["file"] == "HEAD:infra/__main__.py"
    md = run_cli(*args, "--format", "markdown", cwd=repo).out
    assert md.index("**Changed line items**") < md.index("### `test`")
    assert "EC2 Capacity Block p5e.48xlarge x 2 -&gt; EC2 Capacity Block p5e.48xlarge x 4" in md
    table = run_cli(*args, cwd=repo).out
    assert "~ cbr: EC2 Capacity Block p5e.48xlarge x 2 -> EC2 Capacity Block p5e.48xlarge x 4" in table.replace(
        "\n    ", " "
    )
    listing = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True).stdout
    assert len(listing.strip().splitlines()) == 1  # the temporary worktree is gone


def test_diff_of_a_program_needs_a_ref_and_a_stack(tmp_path: Path) -> None:
    repo = _program_repo(tmp_path)
    for args, expected in (
        (("--program", "infra", "--stack", "test"), "--base-ref: --program needs --base-ref REF"),
        (("--program", "infra", "--stack", "test", "--base-ref", "nope"), "'nope' is not a commit"),
    ):
        res = run_cli("diff", *args, cwd=repo)
        assert res.code == 2 and expected in res.err and len(res.err.strip().splitlines()) == 1, res.err
        assert res.out.startswith("Input problems\n") and "nothing planned; exit 2" in res.out


def test_a_program_new_at_head_is_added(tmp_path: Path) -> None:
    repo = _program_repo(tmp_path)
    shutil.copytree(repo / "infra", repo / "more")
    res = run_cli("diff", "--program", "more", "--stack", "test", "--base-ref", "HEAD", "--format", "json", cwd=repo)
    assert res.code == 0, res.err
    assert [s["status"] for s in json.loads(res.out)["diff"]["stacks"]] == ["added"]


def test_a_program_failing_at_the_base_is_named_at_the_ref(tmp_path: Path) -> None:
    repo = _program_repo(tmp_path)
    main = repo / "infra" / "__main__.py"
    good = main.read_text(encoding="utf-8")
    main.write_text(good + "raise ValueError('broken at the base')\n", encoding="utf-8")
    _git(repo, "commit", "-qam", "broken")
    main.write_text(good, encoding="utf-8")
    res = run_cli("diff", "--program", "infra", "--stack", "test", "--base-ref", "HEAD", cwd=repo)
    assert res.code == 2 and "HEAD:infra/__main__.py:" in res.out  # the problem, in the report asked for (a table)
    (line,) = res.err.strip().splitlines()
    assert (
        line.startswith("planner: HEAD:infra/__main__.py:")
        and "the program failed: ValueError: broken at the base" in line
    )
    assert "planner-base-" not in line


def test_fail_on_incomplete_cost_as_in_plan() -> None:
    """`diff --fail-on-incomplete-cost` makes an incomplete estimate the same error as `plan`'s:
    the change to a stack with a price unknown adds budget-incomplete-cost, and `--fail-on error` fails on it."""
    base, head = "stacks/Pulumi.p5en-train.yaml", "tests/invalid_stacks/Pulumi.price-unknown.yaml"
    plain = run_cli("diff", base, head, "--format", "json", "--fail-on", "error")
    assert plain.code == 0, plain.err
    assert not [
        f for f in json.loads(plain.out)["diff"]["stacks"][0]["findings_added"] if f["rule"] == "budget-incomplete-cost"
    ]
    res = run_cli("diff", base, head, "--format", "json", "--fail-on", "error", "--fail-on-incomplete-cost")
    assert res.code == 1, res.err
    (added,) = [
        f for f in json.loads(res.out)["diff"]["stacks"][0]["findings_added"] if f["rule"] == "budget-incomplete-cost"
    ]
    plan = run_cli("plan", head, "--format", "json", "--fail-on-incomplete-cost")
    (planned,) = [f for f in json.loads(plan.out)["stacks"][0]["findings"] if f["rule"] == "budget-incomplete-cost"]
    assert added["severity"] == "error" and added["message"] == planned["message"]


def test_a_saved_diff_renders_as_the_run(tmp_path: Path) -> None:
    """`planner render` of the saved JSON prints the table and the pull-request comment diff printed."""
    book = write_book(tmp_path)
    _write(tmp_path / "base", "train", 2)
    _write(tmp_path / "head", "train", 4)
    _write(tmp_path / "head", "new", 1)
    args = ("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--price-book", str(book))
    saved = tmp_path / "diff.json"
    assert run_cli(*args, "--format", "json", "--output", str(saved)).code == 0
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert [s["stack"] for s in data["stacks"]] == ["new", "train"]  # the head side, as plan reports it
    assert [s["stack"] for s in data["diff"]["base"]["stacks"]] == ["train"]  # the base side
    for fmt in ("table", "markdown", "json"):
        assert run_cli("render", "--format", fmt, str(saved)).out == run_cli(*args, "--format", fmt).out


def test_a_broken_stack_file_is_in_the_comment_and_the_json(tmp_path: Path) -> None:
    """Unusable input on either side: the report asked for holds the problem (the pull-request comment
    names the file and line), exit 2, and the one line on standard error stays."""
    _write(tmp_path / "base", "train", 2)
    head = _write(tmp_path / "head", "train", 2)
    head.write_text(head.read_text(encoding="utf-8").replace("count: 2", "count: lots"), encoding="utf-8")
    args = ("diff", str(tmp_path / "base"), str(tmp_path / "head"))
    md = run_cli(*args, "--format", "markdown")
    assert md.code == 2 and len(md.err.strip().splitlines()) == 1
    assert "input problem" in md.out and f"{head}:6" in md.out
    doc = json.loads(run_cli(*args, "--format", "json").out)
    assert doc["command"] == "diff" and "diff" not in doc and doc["problems"][0]["line"] == 6


def test_a_priced_type_swapped_for_an_unpriced_one_is_unknown_never_a_decrease(tmp_path: Path) -> None:
    """Two trn2 priced before (the test book, us-east-2); four after where trn2 on demand has no price
    (ap-south-2). The priced items alone fall by the whole instance cost, but the change is unknown: it is
    said so, naming what has no price, and no figure suggests the cost went down."""
    book = write_book(tmp_path)
    _write(tmp_path / "base", "train", 2)
    head = _write(tmp_path / "head", "train", 4)
    head.write_text(head.read_text().replace("us-east-2", "ap-south-2"), encoding="utf-8")
    args = ("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--price-book", str(book))
    whole = json.loads(run_cli(*args, "--format", "json").out)
    data = whole["diff"]
    (s,) = data["stacks"]
    assert s["total"]["change_usd"] is None and "priced_change_usd" not in s["total"]
    # the after side's "at least" figures, in the JSON as in the table: the priced root volumes' rate and total
    after = whole["stacks"][0]["cost"]
    assert after["hourly_usd"] is None and after["known_hourly_usd"] > 0 and after["known_total_usd"] > 0
    assert s["total"]["unknown_because"] == ["after: no price for a (trn2.48xlarge)"]
    # the after side costs at least its priced part (the root volumes): a bound, but not one that says which way
    assert s["total"]["at_least_usd"] < 0 and "at_most_usd" not in s["total"]
    out = run_cli(*args, "--wide").out
    assert "unknown (after: no price for a (trn2.48xlarge))" in out
    assert "priced items" not in out
    md = run_cli(*args, "--format", "markdown").out
    # the headline counts the incomplete stacks; the stack's row says what it lacks
    assert "cost change unknown (1 stack incomplete)" in md.splitlines()[1] and "priced items" not in md
    assert "unknown (after: no price for a (trn2.48xlarge))" in md
