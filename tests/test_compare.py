"""planner compare: cost and duration per priced type, checked by arithmetic on the test book."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from cost_support import make_book, write_book

from planner.core.catalogue import instance_types as catalogue
from planner.core.cost.price_performance import Job
from planner.core.cost.price_performance import compare as compare_section
from planner.core.document import codec
from tests.conftest import run_cli

P, T = 8e9, 1e11  # 4.8e21 FLOPs
CAT = catalogue.load()


def compare(*args: Any) -> dict[str, Any]:
    """The compare section as JSON (`--format json`'s "compare"): the form these tests read."""
    return codec.dump(compare_section(*args))


def _hours(itype: str, n: int, mfu: float, precision: str = "bf16") -> float:
    peak = CAT.instance_types[itype].peak_pflops(f"{precision}_dense")
    return 6 * P * T / (n * peak * 1e15 * mfu) / 3600


def _by(result: dict, itype: str, purchase: str) -> dict:
    return next(c for c in result["candidates"] if c["instance_type"] == itype and c["purchase"] == purchase)


def test_fixed_instances_every_priced_type_and_purchase() -> None:
    result = compare(Job(P, T, "bf16", {"*": 0.4}, "us-east-2", instances=4), make_book(), CAT)
    keys = {(c["instance_type"], c["purchase"]) for c in result["candidates"]}
    assert keys == {
        ("trn2.48xlarge", "on-demand"),
        ("trn2.48xlarge", "capacity-block"),
        ("p5en.48xlarge", "on-demand"),
        ("p5en.48xlarge", "capacity-block"),
        ("trn2u.48xlarge", "capacity-block"),
    }
    od = _by(result, "p5en.48xlarge", "on-demand")
    h = _hours("p5en.48xlarge", 4, 0.4)
    assert od["run_hours"] == pytest.approx(h, abs=1e-3) and od["billed_hours"] == od["run_hours"]
    assert od["total_usd"] == pytest.approx(4 * h * 12.0, abs=0.01)
    assert od["usd_per_dense_pflop_hour"] == pytest.approx(
        12.0 / CAT.instance_types["p5en.48xlarge"].peak_pflops("bf16_dense"), abs=1e-4
    )
    cb = _by(result, "trn2.48xlarge", "capacity-block")
    run = _hours("trn2.48xlarge", 4, 0.4)
    billed = 24 * math.ceil(run / 24)
    assert run < 14 * 24 and cb["billed_hours"] == billed
    assert cb["total_usd"] == pytest.approx(4 * billed * 8.0)
    totals = [c["total_usd"] for c in result["candidates"]]
    assert totals == sorted(totals)


def test_instances_round_up_to_whole_ultraservers() -> None:
    result = compare(Job(P, T, "bf16", {"*": 0.4}, "us-east-2", instances=5), make_book(), CAT)
    us = _by(result, "trn2u.48xlarge", "capacity-block")
    assert us["instances"] == 8 and "whole UltraServers of 4" in us["notes"][0]
    assert _by(result, "trn2.48xlarge", "on-demand")["instances"] == 5


@pytest.mark.parametrize("deadline", [24.0, 100.0, 500.0])
def test_deadline_gives_the_smallest_count_that_finishes(deadline: float) -> None:
    job = Job(P, T, "fp8", {"trn2": 0.3, "p5en": 0.45}, "us-east-2", deadline_hours=deadline)
    result = compare(job, make_book(), CAT)
    for itype, mfu in (("trn2.48xlarge", 0.3), ("p5en.48xlarge", 0.45)):
        c = _by(result, itype, "on-demand")
        n = c["instances"]
        assert _hours(itype, n, mfu, "fp8") <= deadline
        assert n == 1 or _hours(itype, n - 1, mfu, "fp8") > deadline
    us = _by(result, "trn2u.48xlarge", "capacity-block")
    n = us["instances"]
    assert n % 4 == 0 and _hours("trn2u.48xlarge", n, 0.3, "fp8") <= deadline
    assert n == 4 or _hours("trn2u.48xlarge", n - 4, 0.3, "fp8") > deadline


def test_families_without_mfu_are_left_out_and_said() -> None:
    result = compare(Job(P, T, "bf16", {"trn2": 0.3}, "us-east-2", instances=1), make_book(), CAT)
    assert {c["instance_type"] for c in result["candidates"]} == {"trn2.48xlarge", "trn2u.48xlarge"}
    assert any("no --mfu" in n and "p5en.48xlarge" in n for n in result["notes"])


def test_cli_json_and_sparse_headline_notes(tmp_path) -> None:
    book = write_book(tmp_path)
    args = (
        "compare",
        "--parameters",
        "8e9",
        "--tokens",
        "1e11",
        "--mfu",
        "0.35,p5en=0.4",
        "--instances",
        "2",
        "--instance-type",
        "trn2.48xlarge",
        "--instance-type",
        "p5en.48xlarge",
        "--price-book",
        str(book),
    )
    res = run_cli(*args, "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)["compare"]
    for c in data["candidates"]:
        assert set(c) >= {
            "instance_type",
            "purchase",
            "instances",
            "run_hours",
            "billed_hours",
            "total_usd",
            "usd_per_dense_pflop_hour",
        }
    p5en = _by(data, "p5en.48xlarge", "on-demand")
    assert p5en["mfu"] == 0.4 and p5en["total_usd"] == pytest.approx(
        2 * _hours("p5en.48xlarge", 2, 0.4) * 12.0, abs=0.01
    )
    assert _by(data, "trn2.48xlarge", "on-demand")["mfu"] == 0.35
    notes = " ".join(data["notes"])
    assert "83.2" in notes and "3.96" in notes and "sparse" in notes
    assert run_cli(*args, "--format", "json").out == res.out
    table = run_cli(*args).out
    assert "USD per" in table and "PF-h" in table and "trn2.48xlarge" in table and "Dense peaks only" in table


@pytest.mark.parametrize(
    "bad",
    [
        ("--mfu", "1.5"),
        ("--mfu", "trn9=0.3"),
        ("--mfu", "abc"),
        ("--instances", "0"),
        ("--instance-type", "x9.large"),
        ("--region", "us-east2"),
        ("--region", "mars-1"),
        ("--mfu", "0.4,0.5"),
        ("--mfu", "trn2=0.3,trn2=0.4"),
    ],
)
def test_bad_input_exits_2(bad: tuple[str, str]) -> None:
    args = {"--parameters": "8e9", "--tokens": "1e11", "--mfu": "0.4", "--instances": "2"}
    args[bad[0]] = bad[1]
    res = run_cli("compare", *[x for kv in args.items() for x in kv])
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1, res.err


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_bad_input_is_the_report_in_the_format_asked_for(tmp_path, fmt: str) -> None:
    """As plan: unusable input is written as the report of its problems (to --output here for json),
    the one line on standard error stays, exit 2."""
    argv = ["compare", "--parameters", "8e9", "--tokens", "1e11", "--mfu", "1.5", "--instances", "2", "--format", fmt]
    saved = tmp_path / "report.json"
    res = run_cli(*argv, *(["--output", str(saved)] if fmt == "json" else []))
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1, res.err
    message = "expected a fraction of peak between 0.01 and 1 (such as 0.4), got '1.5'"
    assert message in res.err
    if fmt == "json":
        assert res.out == ""
        doc = json.loads(saved.read_text(encoding="utf-8"))
        assert (doc["command"], "compare" in doc) == ("compare", False)
        assert doc["problems"] == [{"file": "<command line>", "line": None, "key": "--mfu", "message": message}]
    else:
        assert (
            message in " ".join(res.out.split())
            and "1 input problem, nothing compared" in res.out
            and "nothing planned" not in res.out
        )


def test_instances_and_deadline_are_exclusive() -> None:
    res = run_cli(
        "compare",
        "--parameters",
        "8e9",
        "--tokens",
        "1e11",
        "--mfu",
        "0.4",
        "--instances",
        "2",
        "--deadline-hours",
        "5",
    )
    assert res.code == 2 and "not allowed with" in res.err


def test_capacity_block_counts_above_the_block_and_account_limits_are_said() -> None:
    """64 instances fit one block; 65 need several; above 256 the default account limit is passed."""
    book, itype = make_book(), "trn2.48xlarge"
    for n, expected in ((64, None), (65, "several Capacity Blocks"), (257, "above the default account limit")):
        cb = _by(
            compare(Job(P, T, "bf16", {"*": 0.4}, "us-east-2", instances=n), book, CAT, (itype,)),
            itype,
            "capacity-block",
        )
        said = [x for x in cb["notes"] if "instances:" in x]
        assert (said == []) if expected is None else (len(said) == 1 and expected in said[0]), said


def test_the_count_column_is_always_shown() -> None:
    """One candidate left (or --instances N) still shows how many instances it is priced for."""
    out = run_cli(
        "compare",
        "--parameters",
        "70e9",
        "--tokens",
        "1e12",
        "--mfu",
        "0.4",
        "--instances",
        "4",
        "--instance-type",
        "p5en.48xlarge",
        "--wide",
    ).out.splitlines()
    header = next(line for line in out if line.startswith("type"))
    assert "count" in header.split()
    row = next(line for line in out if line.split()[:2] == ["p5en.48xlarge", "on-demand"])
    assert row.split()[2] == "4"
    assert out[-1].startswith("2 candidates; cheapest p5en.48xlarge ") and out[-1].endswith(" (4 instances); exit 0")


def test_the_summary_names_the_smallest_count_when_it_is_not_the_cheapest() -> None:
    res = run_cli(
        "compare", "--parameters", "70e9", "--tokens", "1e12", "--mfu", "0.4", "--deadline-hours", "720", "--wide"
    )
    data = json.loads(
        run_cli(
            "compare",
            "--parameters",
            "70e9",
            "--tokens",
            "1e12",
            "--mfu",
            "0.4",
            "--deadline-hours",
            "720",
            "--format",
            "json",
        ).out
    )["compare"]
    priced = [c for c in data["candidates"] if c["total_usd"] is not None]
    best = min(priced, key=lambda c: c["total_usd"])
    fewest = min(data["candidates"], key=lambda c: c["instances"])
    assert fewest["instances"] < best["instances"]  # the job this test is about
    last = res.out.splitlines()[-1]
    assert f"({best['instances']:,} instances)" in last
    assert f"fewest instances: {fewest['instances']:,} x {fewest['instance_type']} {fewest['purchase']}" in last


def test_a_saved_report_renders_as_the_run(tmp_path) -> None:
    """`planner render` of the saved JSON prints what compare printed, in each of its formats."""
    args = ("compare", "--parameters", "70e9", "--tokens", "1e12", "--mfu", "0.4", "--deadline-hours", "720")
    saved = tmp_path / "compare.json"
    assert run_cli(*args, "--format", "json", "--output", str(saved)).code == 0
    for fmt in ("table", "markdown", "json"):
        assert run_cli("render", "--format", fmt, str(saved)).out == run_cli(*args, "--format", fmt).out
    res = run_cli("render", "--format", "github", str(saved))
    assert res.code == 2 and "a compare report renders as table, json, markdown; got github" in res.err
