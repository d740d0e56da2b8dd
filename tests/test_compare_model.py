"""`planner compare --model`: each candidate's run predicted on its own topology (layout, speed,
error band), counts found for a deadline by the prediction, a chart of run time against cost."""

from __future__ import annotations

import json
import re

import pytest

from planner.core.catalogue.model_configs import presets
from planner.core.runtime_model.run_prediction import estimate
from planner.core.runtime_model.step import Run
from tests.conftest import run_cli

TYPES = ("trn2.48xlarge", "trn2u.48xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge")
ASK = ("compare", "--model", "llama3-70b", "--tokens", "2e12", "--region", "us-east-2")
WITH_TYPES = tuple(x for t in TYPES for x in ("--instance-type", t))
RUN = Run(4096, 1024)
UNIT = {"trn2u.48xlarge": ("u-trn2x64", 4)}


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    r = run_cli(*args, "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)["compare"]


@pytest.fixture(scope="module")
def deadline() -> dict:  # type: ignore[type-arg]
    return _json(*ASK, *WITH_TYPES, "--deadline-hours", "720", "--budget-usd", "3500000")


def test_every_type_is_ranked_by_its_predicted_run_for_the_deadline(deadline) -> None:  # noqa: ANN001
    cands = deadline["candidates"]
    assert {c["instance_type"] for c in cands} == set(TYPES)
    totals = [c["total_usd"] for c in cands]
    assert totals == sorted(totals)  # cheapest first
    model = presets()["llama3-70b"]
    for c in cands:
        rt = c["run_time"]
        assert set(rt) >= {"tokens_per_second", "step_seconds", "mfu", "layout", "breakdown_seconds", "error_band"}
        assert set(rt["layout"]) >= {"tp", "pp", "dp", "cp", "ep", "micro_batch"}
        ultra, unit = UNIT.get(c["instance_type"], (None, 1))
        n = c["instances"]
        e = estimate(model, c["instance_type"], n, RUN, 2e12, ultra)
        assert e is not None and c["run_hours"] == pytest.approx(e.run_hours, abs=1e-3)
        assert c["mfu"] == round(e.mfu, 3) and rt["layout"]["tp"] == e.layout.tp
        if c["purchase"] == "capacity-block" and c["instances"] != c["smallest_instances"]:
            continue  # a larger count on a shorter block, said in its note
        assert c["run_hours"] <= 720
        # the count is the smallest that meets it: one UltraServer (or instance) fewer does not
        fewer = estimate(model, c["instance_type"], n - unit, RUN, 2e12, ultra)
        assert fewer is None or fewer.run_hours > 720


def test_an_mfu_given_for_a_family_overrides_its_prediction() -> None:
    result = _json(
        *ASK,
        "--instance-type",
        "trn2.48xlarge",
        "--instance-type",
        "p5en.48xlarge",
        "--instances",
        "16",
        "--mfu",
        "trn2=0.3",
    )
    for c in result["candidates"]:
        if c["instance_type"] == "trn2.48xlarge":
            assert "run_time" not in c and c["mfu"] == 0.3
            flops = presets()["llama3-70b"].model_flops_per_token(4096) * 2e12
            assert c["run_hours"] == pytest.approx(
                flops / (16 * c["dense_pflops_per_instance"] * 1e15 * 0.3) / 3600, rel=1e-3
            )
        else:
            assert c["run_time"]["mfu"] == c["mfu"]


def test_an_ultraserver_count_is_rounded_to_whole_ultraservers_and_predicted_there() -> None:
    result = _json(*ASK, "--instance-type", "trn2u.48xlarge", "--instances", "6")
    row = result["candidates"][0]
    assert row["instances"] == 8 and any("whole UltraServers of 4" in n for n in row["notes"])
    e = estimate(presets()["llama3-70b"], "trn2u.48xlarge", 8, RUN, 2e12, "u-trn2x64")
    assert e is not None and row["run_hours"] == pytest.approx(e.run_hours, abs=1e-3)


@pytest.mark.parametrize(
    ("args", "flag", "says"),
    [
        (("compare", "--tokens", "2e12", "--instances", "4"), "--parameters", "expected --model"),
        (("compare", "--parameters", "7e10", "--tokens", "2e12", "--instances", "4"), "--mfu", "expected --model"),
        ((*ASK, "--parameters", "7e10", "--instances", "4"), "--parameters", "the model says its parameters"),
        (
            (
                "compare",
                "--parameters",
                "7e10",
                "--mfu",
                "0.4",
                "--tokens",
                "2e12",
                "--instances",
                "4",
                "--sequence-length",
                "8192",
            ),
            "--sequence-length",
            "applies with --model",
        ),
        ((*ASK, "--instances", "4", "--global-batch-tokens", "5000"), "--global-batch-tokens", "expected a multiple"),
        (("compare", "--model", "llama-70b", "--tokens", "2e12", "--instances", "4"), "--model", "expected one of"),
    ],
)
def test_a_model_question_that_cannot_be_asked_is_one_line_and_exit_2(args, flag, says) -> None:  # noqa: ANN001
    r = run_cli(*args)
    assert r.code == 2 and "Traceback" not in r.err
    assert any(flag in line and says in line for line in r.err.splitlines()), r.err


def test_the_markdown_draws_run_time_against_cost_with_the_deadline_and_budget(deadline) -> None:  # noqa: ANN001
    r = run_cli(*ASK, *WITH_TYPES, "--deadline-hours", "720", "--budget-usd", "3500000", "--format", "markdown")
    assert r.code == 0
    block = r.out.split("```mermaid\n")[1].split("```")[0]
    assert block.startswith("quadrantChart\n")
    assert '"1,440 h"' in block and '"$7,000,000.00"' in block  # axes to twice the deadline and the budget
    assert 'quadrant-3 "in time and within budget"' in block
    for c in deadline["candidates"]:
        label = f'"{c["instance_type"]} x {c["instances"]:,} {c["purchase"]}'
        line = next(x for x in block.splitlines() if x.strip().startswith(label))
        x, y = (float(v) for v in re.search(r"\[([\d.]+), ([\d.]+)\]", line).groups())  # type: ignore[union-attr]
        assert x == pytest.approx(min(c["run_hours"] / 1440, 1), abs=1e-3)
        assert y == pytest.approx(min(c["total_usd"] / 7e6, 1), abs=1e-3)
    assert "the vertical line is the deadline, 720 h; the horizontal line the budget, $3,500,000.00" in r.out
    table = run_cli(*ASK, *WITH_TYPES, "--deadline-hours", "720").out
    assert "layout tp/pp/dp/cp/ep" in table and "run time predicted on each topology (+/-" in table


def test_trn3_ultraservers_are_timed_on_one_and_said_extrapolated() -> None:
    """No instance type, no price, no reference of its own: the note gives the run on one UltraServer
    and says it is extrapolated; a size no layout fits says that instead of a figure."""
    result = _json("compare", "--model", "llama3-8b", "--tokens", "1e11", "--instances", "4", "--region", "us-east-1")
    (note,) = [n for n in result["notes"] if n.startswith("listed without a cost")]
    gen1 = next(u for u in result["listed_without_cost"] if u["accelerators"] == 64)
    assert gen1["run_hours"] is not None
    assert f"{gen1['run_hours']:,.1f} h on one, predicted with no reference measured on Trainium3" in note
    gen2 = next(u for u in result["listed_without_cost"] if u["accelerators"] == 144)
    assert gen2["run_hours"] is None and "no parallel layout of the model fits one" in note
