"""The estimate, checked by arithmetic against the test price book (not the shipped prices)."""

from __future__ import annotations

import json

import pytest
from cost_support import EBS_USD, SOURCE, make_book, root_volumes_usd, write_book

from planner.core.catalogue import instance_types as catalogue
from planner.core.cost import estimate
from planner.core.document import codec
from planner.core.document.cost_section import CostReport
from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import PlanOptions, plan_stack
from planner.core.render import cost_report
from tests.conftest import run_cli

AZ = "availability_zone: us-east-2a\n"


def _estimate(stack_file, body: str):
    return estimate(load_stack(str(stack_file(AZ + body))), make_book())


def test_instances_times_hours_and_lustre_prorated(stack_file) -> None:
    cost = _estimate(
        stack_file,
        """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 3}
  - {name: b, instance_type: p5en.48xlarge, count: 2}
lustre: {deployment_type: PERSISTENT_2, storage_capacity_gib: 2400, per_unit_storage_throughput: 250}
schedule: {hours: 100}
""",
    )
    a, a_root, b, b_root, fs = cost.line_items
    assert (a.quantity, a.unit_price_usd, a.total_usd, a.hourly_usd) == (300, 10.0, 3000.0, 30.0)
    assert (b.quantity, b.unit_price_usd, b.total_usd) == (200, 12.0, 2400.0)
    # root volumes: instances x 500 GiB x hours / 730 GB-months of gp3, billed for the run hours
    assert (a_root.name, a_root.unit, a_root.unit_price_usd) == ("a root volumes", "GB-month", EBS_USD)
    assert (
        a_root.quantity == pytest.approx(3 * 500 * 100 / 730) and a_root.total_usd == root_volumes_usd(3, 100) == 15.0
    )
    assert b_root.total_usd == root_volumes_usd(2, 100) == 10.0
    assert fs.unit == "GB-month"
    assert fs.quantity == pytest.approx(2400 * 100 / 730)
    assert fs.total_usd == round(2400 * 0.25 * 100 / 730, 2)
    assert fs.hourly_usd == pytest.approx(2400 * 0.25 / 730)
    assert cost.hourly_usd == pytest.approx(30 + 24 + 5 * 500 * EBS_USD / 730 + 2400 * 0.25 / 730)
    assert cost.monthly_usd == pytest.approx(cost.hourly_usd * 730)
    assert cost.total_usd == round(3000 + 2400 + 15 + 10 + round(2400 * 0.25 * 100 / 730, 2), 2)
    assert cost.complete and cost.run_hours == 100 and cost.hours == 100
    j = cost.to_json()
    assert j["currency"] == "USD" and j["complete"] is True and j["hours"] == 100 and j["run_hours"] == 100
    assert j["total_usd"] == round(3000 + 2400 + 25 + 2400 * 0.25 * 100 / 730, 2)
    item = j["line_items"][0]
    for key in ("resource", "name", "unit", "quantity", "unit_price_usd", "total_usd", "source", "as_of", "assumption"):
        assert key in item
    assert (item["source"], item["as_of"], item["assumption"]) == (SOURCE, "2026-01-01", None)


@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_hours_from_the_workload(stack_file, precision: str) -> None:
    cost = _estimate(
        stack_file,
        f"""\
node_groups:
  - {{name: a, instance_type: trn2.48xlarge, count: 4}}
workload: {{parameters: 8e9, tokens: 1e11, precision: {precision}, mfu: 0.5}}
""",
    )
    peak = catalogue.load().instance_types["trn2.48xlarge"].peak_pflops(f"{precision}_dense")
    hours = 6 * 8e9 * 1e11 / (4 * peak * 1e15 * 0.5) / 3600
    assert cost.hours_basis == "workload"
    assert cost.run_hours == pytest.approx(hours)
    assert cost.total_usd == round(round(4 * hours * 10.0, 2) + root_volumes_usd(4, hours), 2)


def test_capacity_block_hours_round_up_to_a_bookable_block(stack_file) -> None:
    cost = _estimate(
        stack_file,
        """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 2, purchase: capacity-block}
  - {name: b, instance_type: p5en.48xlarge, count: 1}
lustre: {deployment_type: SCRATCH_2, storage_capacity_gib: 1200}
schedule: {hours: 400}
""",
    )
    cb, cb_root, od, od_root, fs = cost.line_items
    assert (cb.run_hours, cb.hours, cb.total_usd) == (400, 504, 2 * 504 * 8.0)  # 16.7 days -> 21-day block
    assert (cb_root.hours, cb_root.total_usd) == (400, root_volumes_usd(2, 400))  # EBS: the run, not the block
    assert (od.hours, od.total_usd) == (400, 400 * 12.0)  # on-demand: billed as run
    assert (od_root.hours, od_root.total_usd) == (400, root_volumes_usd(1, 400))
    assert fs.total_usd == round(1200 * 0.5 * 400 / 730, 2)  # Lustre: the run hours
    assert cost.run_hours == 400 and cost.hours == 504
    assert "21-day block" in cb.note


def test_run_beyond_182_days_is_billed_as_consecutive_blocks(stack_file) -> None:
    cost = _estimate(
        stack_file,
        """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 2, purchase: capacity-block}
schedule: {hours: 5000}
""",
    )
    cb, _root = cost.line_items
    assert cb.hours == 4368 + 672 and cb.total_usd == 2 * 5040 * 8.0 and cb.hourly_usd == 16.0
    assert cost.complete and "182 days" in cb.note and "1 x 182-day block + a 28-day block" in cb.note


def test_unknown_price_is_never_zero(stack_file) -> None:
    path = stack_file(
        AZ
        + """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 2}
  - {name: gpus, instance_type: p5.48xlarge, count: 1}
schedule: {hours: 10}
"""
    )
    plan = plan_stack(load_stack(str(path)), PlanOptions(price_book=make_book()))
    j = plan.cost.to_json()
    unknown = j["line_items"][2]
    assert unknown["name"] == "gpus"
    assert unknown["unit_price_usd"] is None and unknown["total_usd"] is None and unknown["source"] is None
    assert j["complete"] is False and j["total_usd"] is None and j["hourly_usd"] is None and j["monthly_usd"] is None
    assert j["known_total_usd"] == 2 * 10 * 10.0 + root_volumes_usd(3, 10) == 201.5
    found = [f for f in plan.findings if f.rule == "price-unknown"]
    assert len(found) == 1 and found[0].severity == "warning"
    assert "p5.48xlarge" in found[0].message and "unknown (not zero)" in found[0].message
    assert found[0].line == 7  # the unpriced group (lines: config, region, cluster, az, node_groups, a, gpus)
    shown = codec.load(CostReport, j)  # as the document carries it
    assert cost_report.headline(shown) == "at least $201.50 for 10 h; no price for gpus"  # a lower bound, never $0
    assert cost_report.total(shown) == "at least $201.50"


def test_derived_price_is_labelled_as_an_assumption(stack_file) -> None:
    cost = _estimate(
        stack_file,
        """\
node_groups:
  - {name: us, instance_type: trn2u.48xlarge, ultraservers: 2, purchase: capacity-block}
schedule: {hours: 48}
""",
    )
    item, _root = cost.line_items
    assert item.total_usd == 8 * 48 * 8.0
    j = item.to_json()
    assert (
        "test basis: same chips" in j["assumption"] and "trn2.48xlarge capacity-block in us-east-2" in j["assumption"]
    )


def test_without_hours_rates_are_known_and_total_is_not(stack_file) -> None:
    cost = _estimate(
        stack_file,
        """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 2}
""",
    )
    assert cost.hours_basis == "none" and cost.run_hours is None and cost.hours is None
    assert cost.hourly_usd == pytest.approx(20.0 + 2 * 0.05) and cost.monthly_usd == pytest.approx(
        cost.hourly_usd * 730
    )
    assert cost.total_usd is None and cost.complete
    assert cost.line_items[0].quantity is None and cost.line_items[1].quantity is None
    assert "total unknown" in cost.notes[0]


def test_schedule_wins_over_workload_and_the_gap_is_noted(stack_file) -> None:
    cost = _estimate(
        stack_file,
        """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 1}
schedule: {hours: 10}
workload: {parameters: 70e9, tokens: 1e12, mfu: 0.4}
""",
    )
    assert cost.hours_basis == "schedule.hours" and cost.run_hours == 10
    assert cost.workload_hours > 10 and "uses schedule.hours" in cost.notes[0]


def test_plan_json_and_table_show_the_estimate(stack_file, tmp_path) -> None:
    path = stack_file(
        AZ
        + """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 2, purchase: capacity-block}
schedule: {hours: 30}
"""
    )
    book = write_book(tmp_path)
    # 30 h is not bookable (capacity-block-duration, an error): suppressed here to test the rounding
    res = run_cli(
        "plan", str(path), "--price-book", str(book), "--format", "json", "--suppress", "capacity-block-duration"
    )
    assert res.code == 0, res.err
    cost = json.loads(res.out)["stacks"][0]["cost"]
    root = root_volumes_usd(2, 30)  # EBS: billed for the run hours, not the block
    assert (cost["run_hours"], cost["hours"], cost["total_usd"], cost["hourly_usd"]) == (
        30,
        48,
        2 * 48 * 8.0 + root,
        16.1,
    )
    assert cost["monthly_usd"] == round(16.1 * 730, 2) and cost["price_book"] == "current + test"
    again = run_cli(
        "plan", str(path), "--price-book", str(book), "--format", "json", "--suppress", "capacity-block-duration"
    )
    assert again.out == res.out  # deterministic
    table = run_cli("plan", str(path), "--price-book", str(book)).out
    assert "cost: $771.00 for 48 h (run 30.0 h)" in table
    assert "96 instance-hour" in table and "$8.00" in table and f"price: {SOURCE} (as of 2026-01-01)" in table
    wide = run_cli("plan", str(path), "--price-book", str(book), "--wide").out  # the source in its row
    assert f"{SOURCE} (2026-01-01)" in wide


def test_markdown_lines_items_escape_and_footnotes() -> None:
    cost = codec.load(
        CostReport,
        {
            "currency": "USD",
            "hours_basis": "schedule.hours",
            "run_hours": 10,
            "workload_hours": None,
            "hours": 24,
            "hourly_usd": None,
            "monthly_usd": None,
            "total_usd": None,
            "known_total_usd": 5.0,
            "complete": False,
            "price_book": "x",
            "notes": ["a | b"],
            "line_items": [
                {
                    "resource": "aws:fsx/lustreFileSystem:LustreFileSystem",
                    "name": "lustre",
                    "unit": "GB-month",
                    "quantity": None,
                    "unit_price_usd": None,
                    "total_usd": None,
                    "hourly_usd": None,
                    "hours": None,
                    "run_hours": None,
                    "source": None,
                    "as_of": None,
                    "assumption": None,
                    "note": "no price",
                    "deployment_type": "SCRATCH_2",
                    "storage_capacity_gib": 1200,
                    "per_unit_storage_throughput": None,
                    "region": "us-east-1",
                }
            ],
        },
    )
    md = cost_report.markdown(cost)
    assert (
        "| lustre | FSx for Lustre SCRATCH_2 1,200 GiB | unknown GB-month | unknown | unknown | \\[1\\] | no price |"
        in md
    )
    assert "1. no price" in md and "- a \\| b" in md
    from planner.core.text.terminal import fit

    lines = fit(cost_report.table_lines(cost))
    assert lines[0].startswith("cost: at least $5.00 for 24 h (run 10.0 h); no price for lustre")
    assert "  [1] no price" in lines


def test_markdown_summary_gives_the_priced_part_of_an_incomplete_total(stack_file, tmp_path) -> None:
    """The PR comment's overview row shows what is known (a lower bound), not a bare "unknown"."""
    book = write_book(tmp_path)
    path = stack_file(
        AZ
        + """\
node_groups:
  - {name: a, instance_type: trn2.48xlarge, count: 2}
  - {name: b, instance_type: p5e.48xlarge, count: 1}
schedule: {hours: 10}
"""
    )
    md = run_cli("plan", str(path), "--price-book", str(book), "--format", "markdown").out
    overview = next(line for line in md.splitlines() if line.startswith("| `test` |"))
    # p5e.48xlarge has no price in the test book (nor on-demand in current): only 2 x 10 h x $10 and the
    # root volumes of the 3 instances (3 x 10 h x $0.05) are known
    assert overview.endswith("| at least $201.50 |"), overview


def test_cost_components_then_one_pricing_pass() -> None:
    """A builder per resource kind emits components with price keys; one pass prices them, and
    the live-price overlay asks for exactly the on-demand keys the builders emit."""
    from planner.aws.live_prices import needs_for
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.cost.book import load_price_book
    from planner.core.cost.estimate import billed, price_components
    from planner.core.cost.items import build, instance_key, keys
    from planner.core.input.stack_files import load_stack

    stack = load_stack("stacks/Pulumi.p5en-train.yaml")
    cat = catalogue.load()
    comps = build(stack, 168.0, cat, billed)
    assert [c.key.kind for c in comps] == ["instance", "ebs", "lustre"]
    g = stack.cluster.node_groups[0]
    assert comps[0].key == instance_key(g.instance_type, stack.region, g.purchase)
    book = load_price_book(None)
    items = price_components(comps, book)
    assert [i.to_json() for i in items] == [i.to_json() for i in estimate_items(stack, book)]
    assert {k.kind for k in keys([stack], cat)} == {"instance", "ebs", "lustre"}
    needs = needs_for([stack])
    assert needs.instances == frozenset()  # p5en-train buys Capacity Blocks: no on-demand price to fetch
    assert len(needs.lustre) == 1


def estimate_items(stack, book):  # noqa: ANN001, ANN201 - the estimate's own line items for the same stack
    from planner.core.cost.estimate import estimate

    return estimate(stack, book).line_items


@pytest.mark.parametrize("hours", [1, 37.3, 168, 999.9])
def test_root_volume_line_and_the_total_adds_up_to_the_cent(stack_file, tmp_path, hours: float) -> None:
    """The root-volume line is instances x GiB x price x hours / 730; the printed total is the sum of
    the printed line items, to the cent."""
    path = stack_file(
        AZ
        + f"""\
root_volume_gib: 333
node_groups:
  - {{name: a, instance_type: trn2.48xlarge, count: 3}}
  - {{name: b, instance_type: p5en.48xlarge, count: 7}}
lustre: {{deployment_type: SCRATCH_2, storage_capacity_gib: 1200}}
schedule: {{hours: {hours}}}
"""
    )
    res = run_cli("plan", str(path), "--price-book", str(write_book(tmp_path)), "--format", "json")
    assert res.code == 0, res.err
    cost = json.loads(res.out)["stacks"][0]["cost"]
    by_name = {i["name"]: i for i in cost["line_items"]}
    for group, n in (("a", 3), ("b", 7)):
        roots = by_name[f"{group} root volumes"]
        assert roots["total_usd"] == round(n * 333 * EBS_USD * hours / 730, 2) == root_volumes_usd(n, hours, 333)
        assert (roots["gib_per_instance"], roots["instances"], roots["volume_type"], roots["region"]) == (
            333,
            n,
            "gp3",
            "us-east-2",
        )
    assert cost["total_usd"] == round(sum(i["total_usd"] for i in cost["line_items"]), 2)
    table = run_cli("plan", str(path), "--price-book", str(write_book(tmp_path)), "--wide").out
    assert f"cost: ${cost['total_usd']:,.2f}" in table
    for item in cost["line_items"]:
        assert f"${item['total_usd']:,.2f}" in table


def test_a_missing_gp3_price_is_unknown_not_zero(stack_file) -> None:
    from planner.core.cost import PriceBook

    book = PriceBook("empty").overlay(
        {
            "name": "no-ebs",
            "instances": [
                {
                    "instance_type": "trn2.48xlarge",
                    "region": "us-east-2",
                    "purchase": "on-demand",
                    "usd_per_hour": 10.0,
                    "source": SOURCE,
                    "as_of": "2026-01-01",
                }
            ],
        },
        "no-ebs.yaml",
    )
    path = stack_file(
        AZ + "node_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 2}\nschedule: {hours: 10}\n"
    )
    plan = plan_stack(load_stack(str(path)), PlanOptions(price_book=book))
    _, roots = plan.cost.line_items
    assert roots.price is None and roots.total_usd is None and plan.cost.total_usd is None
    assert roots.note == "no price for EBS gp3 storage in us-east-2 in price book 'empty + no-ebs'"
    assert plan.cost.known_total_usd == 200.0
    (found,) = [f for f in plan.findings if f.rule == "price-unknown"]
    assert "EBS gp3" in found.message and found.fix is not None and "--price-book FILE" in found.fix.reason
