"""The typed cost and summary sections of the document: the JSON planner has always written,
byte for byte, and back (`from_json(to_json(x)) == x`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import msgspec.structs
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.core.catalogue.instance_types import PRECISIONS
from planner.core.document import (
    CostReport,
    GroupSummary,
    InstanceDetail,
    LineItem,
    LustreDetail,
    LustreSummary,
    PeakPflops,
    Summary,
    VolumeDetail,
    codec,
)
from planner.core.input.stack_files import load_stack
from planner.core.model.cluster import DeploymentType, Purchase
from planner.core.planning.pipeline import PlanOptions, plan_stack

ROOT = Path(__file__).resolve().parent.parent

money = st.none() | st.floats(min_value=0, max_value=1e7, allow_nan=False) | st.integers(0, 10**7)
count = st.integers(0, 1000)
text = st.text(max_size=12)
maybe_text = st.none() | text
purchase = st.sampled_from(get_args(Purchase))

instance_detail = st.builds(
    InstanceDetail,
    text,
    purchase,
    text,
    count,
    st.none() | st.floats(0, 1e4, allow_nan=False),
    st.none() | text,
    count,
    st.none() | count,
    st.none() | count,
    money,
    st.booleans(),
).map(
    lambda d: (
        d
        if d.ultraserver_type is not None
        else msgspec.structs.replace(d, ultraservers=None, usd_per_ultraserver_hour=None)
    )
)
instance_detail = instance_detail.map(
    lambda d: d if d.billed_instances is not None else msgspec.structs.replace(d, idle_instances=None)
)
details = (
    st.none()
    | instance_detail
    | st.builds(VolumeDetail, text, count, count, text)
    | st.builds(LustreDetail, st.sampled_from(get_args(DeploymentType)), st.none() | count, count, text)
)
items = st.builds(
    LineItem,
    text,
    text,
    text,
    money,
    money,
    money,
    money,
    money,
    money,
    maybe_text,
    maybe_text,
    maybe_text,
    maybe_text,
    maybe_text,
    details,
)


def _report(nested: st.SearchStrategy[CostReport | None]) -> st.SearchStrategy[CostReport]:
    return st.builds(
        CostReport,
        text,
        st.sampled_from(["schedule.hours", "workload", "none"]),
        money,
        money,
        money,
        money,
        money,
        money,
        money,
        st.booleans(),
        st.lists(items, max_size=3).map(tuple),
        st.lists(text, max_size=2).map(tuple),
        st.lists(text, max_size=2).map(tuple),
        st.just("USD"),
        nested,
        nested,
    )


costs = _report(st.none() | _report(st.none()))
summaries = st.builds(
    Summary,
    count,
    count,
    count,
    count,
    count,
    money.filter(lambda x: x is not None),
    money.filter(lambda x: x is not None),
    st.builds(PeakPflops, money, money, money),
    text,
    st.none()
    | st.builds(LustreSummary, st.sampled_from(get_args(DeploymentType)), count, st.none() | count, maybe_text),
    st.lists(
        st.builds(GroupSummary, text, text, purchase, count, count, maybe_text, count, text, text, st.booleans()),
        max_size=3,
    ).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(costs)
def test_cost_round_trips(cost: CostReport) -> None:
    again = codec.load(CostReport, json.loads(json.dumps(codec.dump(cost))))
    assert again == cost
    assert codec.dump(again) == codec.dump(cost)


@settings(max_examples=60, deadline=None)
@given(summaries)
def test_summary_round_trips(summary: Summary) -> None:
    assert codec.load(Summary, json.loads(json.dumps(codec.dump(summary)))) == summary


def _planned(name: str) -> tuple[dict[str, object], dict[str, object]]:
    plan = plan_stack(load_stack(str(ROOT / "stacks" / name)), PlanOptions())
    assert plan.cost is not None
    return plan.cost.to_json(), codec.dump(plan.summary)


def test_a_planned_stack_reads_and_writes_the_same_json() -> None:
    """What the cost model and `summarize` produce goes through the types unchanged: same keys,
    same order, same values (an UltraServer Capacity Block, on-demand GPUs, Lustre, root volumes)."""
    seen: set[str] = set()
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        cost, summary = _planned(path.name)
        typed = codec.load(CostReport, cost)
        assert json.dumps(codec.dump(typed)) == json.dumps(cost), path.name
        assert json.dumps(codec.dump(codec.load(Summary, summary))) == json.dumps(summary), path.name
        seen |= {type(i.detail).__name__ for i in typed.line_items}
    assert seen == {"InstanceDetail", "VolumeDetail", "LustreDetail"}  # every kind of line item was read


def test_peak_pflops_has_every_precision_in_the_catalogue_order() -> None:
    assert PeakPflops.__struct_fields__ == PRECISIONS


def test_every_optional_key_of_a_line_item_survives(stack_file) -> None:
    """The keys only some estimates have: idle UltraServer members billed, a purchase AWS does not
    sell, the workload's longer estimate, compute left out; each read and written unchanged."""
    from planner.core.model.cluster import Unplanned

    stack = load_stack(
        str(
            stack_file("""\
availability_zone: us-east-2a
node_groups:
  - {name: ultra, instance_type: trn2u.48xlarge, count: 6, purchase: capacity-block}
  - {name: od, instance_type: p5e.48xlarge, count: 1}
schedule: {hours: 10}
workload: {parameters: 70e9, tokens: 1e12, mfu: 0.4}
""")
        )
    )
    batch = Unplanned("AWS Batch compute environment 'ce'", "unsized", ("p5.48xlarge",), range="0-1024 vCPUs")
    stack = msgspec.structs.replace(stack, cluster=msgspec.structs.replace(stack.cluster, unplanned=(batch,)))
    plan = plan_stack(stack, PlanOptions())
    assert plan.cost is not None
    cost = plan.cost.to_json()
    typed = codec.load(CostReport, cost)
    assert json.dumps(codec.dump(typed)) == json.dumps(cost)
    ultra, od = typed.line_items[0].detail, typed.line_items[2].detail
    assert isinstance(ultra, InstanceDetail) and (ultra.billed_instances, ultra.idle_instances) == (8, 2)
    assert isinstance(od, InstanceDetail) and od.not_sold
    assert typed.workload_estimate is not None and typed.left_out
