"""Human output reads like a tool people choose: it fits the terminal, has colour only on a
terminal, puts what matters first and ends with a summary line (issue 15)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from planner.core.text import numbers, terminal

ANSI = re.compile(r"\x1b\[[0-9;]*m")
P5EN, TRN2 = "stacks/Pulumi.p5en-train.yaml", "stacks/Pulumi.trn2-dev.yaml"
COMPARE = ("compare", "--parameters", "70e9", "--tokens", "2e12", "--mfu", "0.4")

# every command's human output (and help), as a user would type it
COMMANDS = [
    (),
    ("plan", "stacks"),
    ("plan",),
    ("plan", "stacks", "--suppress", "price-unknown"),
    ("rules",),
    ("catalog",),
    (*COMPARE, "--instances", "16"),
    (*COMPARE, "--deadline-hours", "2000"),
    ("diff", P5EN, TRN2),
    ("diff", "stacks", "stacks"),
    ("schema", "--help"),
    ("preflight", "--help"),
    ("prices", "refresh", "--help"),
    *[(c, "--help") for c in ("plan", "catalog", "rules", "compare", "diff")],
]


@pytest.mark.parametrize("columns", [80, 100])
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a) or "planner")
def test_no_line_is_wider_than_the_terminal(
    argv: tuple[str, ...], columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    res = run_cli(*argv)
    assert res.code in (0, 1), res.err
    lines = res.out.splitlines()
    assert len(lines) > 3
    wide = [ln for ln in lines if len(ANSI.sub("", ln)) > columns and not _a_whole_url(ANSI.sub("", ln), columns)]
    assert not wide, f"{len(wide)} line(s) wider than {columns}: {wide[0]!r}"


def _a_whole_url(line: str, columns: int = 40) -> bool:
    """A line that runs past the width only by a URL it ends with (perhaps in brackets, with its
    punctuation): the one kind let run past it, since a URL split over two lines can be neither
    clicked nor copied."""
    body = line.rstrip()
    begins = body.rfind(" ") + 1
    return begins <= columns and body[begins:].lstrip("([<'\"`").startswith(("http://", "https://"))


def test_wide_keeps_long_lines_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    res = run_cli("rules", "--wide")
    assert "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html" in res.out
    assert max(len(ln) for ln in res.out.splitlines()) > 80


def test_wrapping_cuts_nothing() -> None:
    """Every character of a long cell and a long line is still there, in order; a long word is
    split, a long URL is not (it ends the line it begins on, past the width)."""
    url = "https://example.com/" + "x" * 120
    long = "word " * 30 + url
    lines = terminal.fit(
        terminal.grid(("a", "b"), [("short", long)], width=40) + ["  " + long], terminal.Term(width=40)
    )
    assert all(len(ln) <= 40 or _a_whole_url(ln) for ln in lines)
    joined = "".join(ln.replace(" ", "") for ln in lines)
    assert long.replace(" ", "") in joined
    (over,) = [ln for ln in lines if len(ln) > 40]  # the long line's URL, whole; a table cell keeps its width,
    assert over.endswith(" " + url)
    assert any(ln.strip().startswith("https://example.com/x") for ln in lines[:-1])  # its URL starting a line
    split = terminal.fit(["  " + "word " * 30 + "x" * 120], terminal.Term(width=40))
    assert all(len(ln) <= 40 for ln in split)  # a long word that is not a URL is still split


def test_a_url_in_brackets_is_kept_whole_and_a_short_one_wraps_as_a_word() -> None:
    url = "https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/ebs.json"
    lines = terminal.fit(
        [f"    [2] read from a mirror of the AWS EBS pricing page's data ({url}), published 2024-07-18"],
        terminal.Term(width=60),
    )
    assert any(ln.rstrip().endswith(f"({url}),") for ln in lines)
    assert all(len(ln) <= 60 or _a_whole_url(ln, 60) for ln in lines)
    (label,) = terminal.fit([f"[27] {url}"], terminal.Term(width=60))  # a short label stays beside its URL
    assert label == f"[27] {url}"
    after_words = terminal.fit(
        ["  " + "word " * 10 + url], terminal.Term(width=60)
    )  # after a sentence, it starts a line
    assert after_words[-1] == "    " + url and all(len(ln) <= 60 for ln in after_words[:-1])
    short = terminal.fit(["see https://e.com/a " + "word " * 12], terminal.Term(width=40))
    assert short[0] == "see https://e.com/a word word word word"


def test_records_when_columns_cannot_fit() -> None:
    lines = terminal.fit(
        terminal.grid(tuple(f"column{i}" for i in range(12)), [tuple("x" * 9 for _ in range(12))], width=40),
        terminal.Term(width=40),
    )
    assert lines[0].startswith("- column0") and all(len(ln) <= 40 for ln in lines)


def test_numbers_and_money_have_one_style() -> None:
    assert numbers.usd(1234567.891) == "$1,234,567.89" and numbers.usd(None) == "unknown"
    assert numbers.usd_rate(63.158) == "$63.16/h" and numbers.usd_rate(0.145, "GB-month") == "$0.145/GB-month"
    assert numbers.count(70e9, "parameters") == "70 B parameters" and numbers.count(15e12, "tokens") == "15 T tokens"
    assert numbers.count(1200) == "1,200"


def test_plan_table_ends_with_a_summary_line() -> None:
    res = run_cli("plan", "stacks")
    last = res.out.rstrip("\n").split("\n")[-2:]
    # trn2-dev's on-demand trn2.48xlarge has no price (the book says why: price-unknown, a warning)
    assert " ".join(s.strip() for s in last).strip().startswith("3 stacks, 0 errors, 1 warning; cost at least $")
    assert "exit 0 (no unsuppressed errors)" in " ".join(s.strip() for s in last)


def unpriced(tmp_path: Path) -> str:
    """trn2-dev with a SCRATCH_1 file system, which has no price in the default book
    (tests/test_price_coverage.py lists the gap), nor has its on-demand trn2.48xlarge (the book says why):
    a stack whose cost is unknown, with warnings."""
    path = tmp_path / "Pulumi.unpriced.yaml"
    path.write_text((ROOT / TRN2).read_text().replace("SCRATCH_2", "SCRATCH_1"), encoding="utf-8")
    return str(path)


def test_unknown_cost_is_said_once_with_the_priced_part(tmp_path: Path) -> None:
    res = run_cli("plan", unpriced(tmp_path))
    cost = next(ln for ln in res.out.splitlines() if ln.strip().startswith("cost:"))
    # a lower bound, said once: the root volumes are priced, the instances and the file system are not
    assert cost.count("at least") == 1 and "at least $18.41 for" in cost and "no price for trainers, lustre" in cost


def _stack(tmp_path: Path, body: str, name: str = "t") -> Path:
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(body, encoding="utf-8")
    return path


SIX_GROUPS = (
    """config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2b
    schedule:
      hours: 168
    node_groups:
"""
    + "".join(
        f"""      - name: g{i}
        instance_type: p5.48xlarge
        count: 2
        purchase: capacity-block
"""
        for i in range(3)
    )
    + """      - name: bad
        instance_type: p5.48xlarge
        count: 2
        purchase: spot
"""
)


def test_findings_most_important_first_and_repeats_collapsed(tmp_path: Path) -> None:
    res = run_cli("plan", str(_stack(tmp_path, SIX_GROUPS)))
    heads = [ln.split()[:2] for ln in res.out.splitlines() if re.match(r"    (error|warning|info) ", ln)]
    severities = [h[0] for h in heads]
    assert severities == sorted(severities, key=["error", "warning", "info"].index), res.out
    reservation = [ln for ln in res.out.splitlines() if "names no capacity_reservation_id" in ln]
    assert len(reservation) == 1 and "node groups 'g0', 'g1' and 'g2'" in reservation[0], res.out
    assert sum(1 for h in heads if h[1] == "capacity-block-reservation") == 1


MOOT = """config:
  aws:region: us-east-1
  planner:cluster:
    availability_zone: us-east-1-dfw-2a
    schedule:
      hours: 168
    node_groups:
      - name: us
        instance_type: p6e-gb200.36xlarge
        ultraserver_type: u-p6e-gb200x36
        ultraservers: 1
        purchase: spot
"""


def test_price_unknown_is_left_out_where_an_error_rules_the_part_out(tmp_path: Path) -> None:
    """p6e-gb200.36xlarge is not offered as Spot (an error), so its missing Spot price is not the thing to fix."""
    from conftest import document

    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack
    from planner.core.render.findings_for_people import for_people, moot

    path = _stack(tmp_path, MOOT)
    report = document([plan_stack(load_stack(str(path)))])
    p = report.stacks[0]
    found = [f for f in p.findings if f.rule != "local-zone-opt-in"]  # an info on the Dallas Local Zone
    assert {f.rule for f in found} == {"price-unknown", "spot-unsupported"}
    assert {f.parts for f in found} == {(0,)}  # both on the one node group's lines
    assert [f.rule for f in moot(p)] == ["price-unknown"]
    assert [s.finding.rule for s in for_people(p, report)] == ["spot-unsupported", "local-zone-opt-in"]
    res = run_cli("plan", str(path))
    assert "    warning  price-unknown" not in res.out and "1 price-unknown not shown" in res.out
    assert '"rule": "price-unknown"' in run_cli("plan", str(path), "--format", "json").out  # the document keeps it


def test_misspelt_region_is_named_with_a_suggestion(tmp_path: Path) -> None:
    body = (ROOT / P5EN).read_text(encoding="utf-8").replace("us-east-1", "us-esat-1")
    res = run_cli("plan", str(_stack(tmp_path, body)))
    assert res.code == 2 and res.out.startswith("Input problems\n")  # the report holds the problem, no plan
    assert res.err.splitlines() == [
        f"planner: {tmp_path}/Pulumi.t.yaml:4: aws:region: unknown region 'us-esat-1' (did you mean 'us-east-1'?)"
    ]


def test_tab_indentation_is_named(tmp_path: Path) -> None:
    res = run_cli("plan", str(_stack(tmp_path, "config:\n\taws:region: us-east-1\n")))
    assert res.code == 2 and res.err.strip().endswith(
        ":2: YAML syntax error: tabs cannot indent YAML; indent with spaces"
    )


def test_project_file_is_not_a_stack_file() -> None:
    res = run_cli("plan", "Pulumi.yaml")
    assert res.code == 2 and res.err.startswith("planner: Pulumi.yaml: is the Pulumi project file, not a stack file")
    assert len(res.err.splitlines()) == 1


def test_usage_errors_share_the_prefix() -> None:
    res = run_cli("plan", "--format", "yaml")
    assert res.code == 2 and res.err.startswith("planner: plan: argument --format: invalid choice")


def test_bare_planner_prints_the_commands() -> None:
    res = run_cli()
    assert res.code == 0
    for command in ("plan", "catalog", "rules", "compare", "diff", "preflight", "prices", "schema"):
        assert re.search(rf"^    {command}\b", res.out, flags=re.M), command


def test_plan_with_no_path_reads_the_projects_stack_config_dir(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "Pulumi.yaml").write_text("name: demo\nruntime: python\nstackConfigDir: config\n", encoding="utf-8")
    (tmp_path / "config" / "Pulumi.gpu.yaml").write_text((ROOT / P5EN).read_text(encoding="utf-8"), encoding="utf-8")
    res = run_cli("plan", "--format", "json", cwd=tmp_path)
    assert res.code == 0, res.err
    assert '"file": "config/Pulumi.gpu.yaml"' in res.out
    (tmp_path / "Pulumi.yaml").write_text(
        "name: demo\nruntime: python\n", encoding="utf-8"
    )  # no stackConfigDir: the project folder
    (tmp_path / "Pulumi.top.yaml").write_text((ROOT / P5EN).read_text(encoding="utf-8"), encoding="utf-8")
    res = run_cli("plan", "--format", "json", cwd=tmp_path)
    assert res.code == 0 and '"file": "Pulumi.top.yaml"' in res.out and "Pulumi.gpu" not in res.out


def test_plan_with_no_path_and_no_project_says_so(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    res = run_cli("plan", cwd=tmp_path)
    assert (
        res.code == 2
        and res.err
        == "planner: Pulumi.yaml: not found: no Pulumi project in this folder; name stack files or folders instead (planner plan PATH)\n"
    )


def test_compare_markdown_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "compare.md"
    res = run_cli(*COMPARE, "--instances", "16", "--format", "markdown", "--output", str(out))
    assert res.code == 0 and res.out == ""
    md = out.read_text(encoding="utf-8")
    assert md.startswith("**Training job: 70 B parameters x 2 T tokens") and "| trn1.32xlarge | capacity-block |" in md


def test_diff_of_two_named_files_pairs_them_whatever_their_names() -> None:
    res = run_cli("diff", P5EN, TRN2, "--format", "json")
    import json

    stacks = json.loads(res.out)["diff"]["stacks"]
    assert [(s["stack"], s["status"]) for s in stacks] == [("p5en-train -> trn2-dev", "changed")]


# --- colour on a terminal -------------------------------------------------------------


def _in_pty(argv: list[str], env: dict[str, str]) -> str:
    """What `python -m planner ARGV` writes to a pseudo-terminal."""
    master, slave = pty.openpty()
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    full.update(env, PYTHONPATH=str(ROOT), TERM="xterm")
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner", *argv],
        cwd=ROOT,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=full,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_on_a_terminal_and_no_color_removes_it(tmp_path: Path) -> None:
    stacks = ["stacks", unpriced(tmp_path)]  # the unpriced one has a warning
    coloured = _in_pty(["plan", *stacks], {})
    assert "\x1b[33mwarning" in coloured  # severity in colour
    plain = _in_pty(["plan", *stacks], {"NO_COLOR": "1"})
    assert "\x1b[" not in plain and "warning" in plain
    assert "\x1b[" not in _in_pty(["plan", *stacks, "--no-color"], {})
    assert ANSI.sub("", coloured).replace("\r\n", "\n") == plain.replace("\r\n", "\n")


def test_no_colour_when_piped_unless_forced(tmp_path: Path) -> None:
    from conftest import run_process

    stacks = ("stacks", unpriced(tmp_path))
    assert "\x1b[" not in run_process("plan", *stacks, env={"NO_COLOR": "", "FORCE_COLOR": ""}).out
    assert "\x1b[33mwarning" in run_process("plan", *stacks, env={"NO_COLOR": "", "FORCE_COLOR": "1"}).out


def test_term_from_env_reads_columns_then_defaults_to_100() -> None:
    class Pipe:
        def isatty(self) -> bool:
            return False

    assert terminal.term_from_env(Pipe(), env={}) == terminal.Term(100, False)
    assert terminal.term_from_env(Pipe(), env={"COLUMNS": "72"}).width == 72
    assert terminal.term_from_env(Pipe(), env={"FORCE_COLOR": "1"}).color
    assert not terminal.term_from_env(Pipe(), env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).color


# --- fixes for the case at hand -------------------------------------------------------


def test_fix_names_the_key_and_value_for_this_stack(tmp_path: Path) -> None:
    body = SIX_GROUPS.replace("count: 2\n        purchase: spot", "count: 6\n        purchase: spot").replace(
        "p5.48xlarge\n        count: 6", "trn2u.48xlarge\n        count: 6"
    )
    res = run_cli("plan", str(_stack(tmp_path, body)), "--format", "json")
    import json

    fixes = {f["rule"]: f["fix"]["text"] for f in json.loads(res.out)["stacks"][0]["findings"] if "fix" in f}
    assert "spot-unsupported" not in fixes  # DescribeInstanceTypes lists spot for trn2u.48xlarge
    assert fixes["ultraserver-purchase"] == (
        "in node group 'bad', set purchase: capacity-block, or confirm Spot UltraServer capacity with AWS"
    )
    assert fixes["ultraserver-whole-units"] == (
        "in node group 'bad', set count: 8 (the 2 UltraServers you pay for), or set count: 4, or set ultraservers: 2"
    )
    assert fixes["capacity-block-reservation"] == (
        "in node group 'g2', set capacity_reservation_id: cr-... (the block's reservation id) (book the block first)"
    )
    table = run_cli("plan", str(_stack(tmp_path, body)), "--wide").out
    assert "fix: in node group 'bad', set purchase: capacity-block, or confirm Spot UltraServer capacity" in table
    flat = " ".join(table.split())  # one collapsed finding: each group's own fix
    assert (
        "fix: in node group 'g0', set capacity_reservation_id: cr-... (the block's reservation id) (book the block "
        "first); in node group 'g1', set capacity_reservation_id: cr-..."
    ) in flat


def test_fix_for_a_bookable_duration_is_the_next_one_up(tmp_path: Path) -> None:
    res = run_cli("plan", str(_stack(tmp_path, SIX_GROUPS.replace("hours: 168", "hours: 100"))), "--format", "json")
    import json

    fixes = [
        f["fix"]["text"] for f in json.loads(res.out)["stacks"][0]["findings"] if f["rule"] == "capacity-block-duration"
    ]
    assert fixes and fixes[0].startswith("set schedule.hours: 120")


def test_every_human_report_ends_with_a_summary_line() -> None:
    assert re.match(
        r"\d+ candidates; cheapest \S+ \S+ at \$[\d,]+\.\d\d \(16 instances\); exit 0$",
        run_cli(*COMPARE, "--instances", "16").out.splitlines()[-1],
    )
    assert run_cli("catalog").out.splitlines()[-1].endswith("UltraServer types (2 not declarable yet)")
    assert run_cli("rules").out.splitlines()[-1].endswith(" rules")
    assert run_cli("diff", P5EN, TRN2).out.splitlines()[-1].startswith("1 stack: change ")
