"""The run the workload needs (issue 12, item 4): a finding, and the budget checked on those hours."""

from __future__ import annotations

import json

import pytest
from cost_support import make_book, root_volumes_usd

from planner.core.catalogue import instance_types as catalogue
from planner.core.cost import estimate
from planner.core.cost.estimate import workload_hours
from planner.core.input.stack_files import load_stack
from tests.conftest import ROOT, run_cli

EXAMPLE = "tests/invalid_stacks/Pulumi.workload-exceeds-schedule.yaml"


def _findings(*argv: str) -> list[dict]:
    res = run_cli("plan", *argv, "--format", "json")
    return json.loads(res.out)["stacks"][0]["findings"]


def test_the_issue_example_raises_the_finding_and_budget_exceeded() -> None:
    """70e9 parameters, 15e12 tokens, 16 UltraServers, schedule.hours 336, a $1M budget."""
    found = {f["rule"]: f for f in _findings(EXAMPLE)}
    assert found["workload-exceeds-schedule"]["severity"] == "error"  # more than twice the schedule
    assert "336.0 h" in found["workload-exceeds-schedule"]["message"]
    need = workload_hours(load_stack(str(ROOT / EXAMPLE)).cluster, catalogue.load())
    assert f"{need:,.1f} h" in found["workload-exceeds-schedule"]["message"]
    assert "workload needs" in found["budget-exceeded"]["message"]


def test_both_estimates_are_reported_and_the_budget_uses_the_longer(stack_file) -> None:
    path = stack_file("""\
availability_zone: us-east-2a
node_groups:
  - {name: a, instance_type: p5en.48xlarge, count: 16, purchase: capacity-block}
schedule: {hours: 24}
workload: {parameters: 8e9, tokens: 1e11, precision: bf16, mfu: 0.4}
budget: {total_usd: 2000}
""")
    stack = load_stack(str(path))
    cost = estimate(stack, make_book())
    need = workload_hours(stack.cluster, catalogue.load())
    assert 24 < need <= 48  # 4.8e21 FLOPs on 16 x 7.9 PF at 40 %
    assert cost.total_usd == 16 * 24 * 9.0 + root_volumes_usd(16, 24)
    longer = cost.workload_estimate
    assert longer is not None and longer.run_hours == pytest.approx(need)
    assert longer.line_items[0].hours == 48  # rounded to a bookable block on the workload's hours
    assert longer.line_items[1].hours == pytest.approx(need)  # root volumes: the workload's hours, not the block
    assert longer.total_usd == round(16 * 48 * 9.0 + root_volumes_usd(16, need), 2)
    assert cost.budget_basis is longer
    data = cost.to_json()
    assert data["workload_estimate"]["total_usd"] == longer.total_usd and data["total_usd"] == 3456 + 19.2


def test_warning_within_twice_the_schedule(stack_file) -> None:
    path = stack_file("""\
availability_zone: us-east-2a
node_groups:
  - {name: a, instance_type: p5en.48xlarge, count: 16, purchase: capacity-block, capacity_reservation_id: cr-0123456789abcdef0}
placement_group: none
schedule: {hours: 24}
workload: {parameters: 8e9, tokens: 1e11, precision: bf16, mfu: 0.4}
""")
    f = [x for x in _findings(str(path)) if x["rule"] == "workload-exceeds-schedule"]
    assert len(f) == 1 and f[0]["severity"] == "warning"


def test_no_finding_when_the_schedule_is_long_enough(stack_file) -> None:
    path = stack_file("""\
availability_zone: us-east-2a
node_groups:
  - {name: a, instance_type: p5en.48xlarge, count: 16}
schedule: {hours: 48}
workload: {parameters: 8e9, tokens: 1e11, precision: bf16, mfu: 0.4}
""")
    assert not [x for x in _findings(str(path)) if x["rule"] == "workload-exceeds-schedule"]
    assert estimate(load_stack(str(path)), make_book()).workload_estimate is None


def test_a_run_longer_than_the_longest_block_is_billed_as_consecutive_blocks(stack_file) -> None:
    """Blocks run to 182 days (EC2 User Guide): 5,000 h is one 182-day block plus a 27-day one."""
    path = stack_file("""\
availability_zone: us-east-2a
node_groups:
  - {name: a, instance_type: p5en.48xlarge, count: 1, purchase: capacity-block}
schedule: {hours: 5000}
""")
    item = estimate(load_stack(str(path)), make_book()).line_items[0]
    assert item.hours == 4368 + 28 * 24 and item.total_usd == (4368 + 672) * 9.0
    assert "consecutive blocks" in item.note


def test_the_rule_quotes_its_formula_source() -> None:
    """Kaplan et al. 2020, section 2.1: "C ~ 6NBS" training compute, i.e. 6 x parameters x tokens."""
    from planner.core import rules

    r = rules.registry()["workload-exceeds-schedule"]
    assert r.source == "https://arxiv.org/abs/2001.08361" and r.severity == "warning"
