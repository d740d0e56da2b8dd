"""The pack plans each preview once (issue 23 item 5): every stack policy shares one planning of the
stack read back from its resources with the stack's own schedule, workload and budget, as `planner plan
--program` plans that stack; `planner-budget` re-prices that planning for its config instead of planning
again, and plans once more only to size compute the stack gives no count for.
"""

from __future__ import annotations

import json
import runpy
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli
from msgspec.structs import replace
from test_corpus import captured
from test_policy_pack import PRICE_BOOK, hand_written
from test_readback_shapes import node_pool

from planner.core.cost import load_price_book
from planner.core.input.stack_files import CLUSTER_PATH, load_stack
from planner.core.model.cluster import Budget, Schedule
from planner.core.planning.pipeline import PlanOptions, plan_stack, reprice
from planner.policy import planning, policies
from planner.policy.testing import Spec, capture, check, stack_args

LUSTRE = {"deploymentType": "SCRATCH_2", "storageCapacity": 1200}
# a type with a shipped on-demand price (trn2.48xlarge has none: the book says why, price-unknown)
PRICED = "p5en.48xlarge"
CORPUS = ROOT / "tests" / "corpus"


@pytest.fixture
def declare(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Sets the stack's `planner:cluster` config as the engine passes it to the pack (None: no config)."""
    import pulumi.runtime

    def set_to(declared: dict[str, Any] | None) -> None:
        text = json.dumps(declared) if declared is not None else None
        monkeypatch.setattr(pulumi.runtime, "get_config", lambda key: text if key == "planner:cluster" else None)

    set_to(None)
    return set_to


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[Any]]]:
    """How often the pack reads the resources back, plans a stack and re-prices one (fresh caches)."""
    calls: dict[str, list[Any]] = {"rebuild": [], "plan": [], "reprice": []}
    real_rebuild, real_plan, real_reprice = planning.rebuild, planning.plan_stack, policies.reprice
    monkeypatch.setattr(planning, "rebuild", lambda *a, **k: calls["rebuild"].append(1) or real_rebuild(*a, **k))
    monkeypatch.setattr(planning, "plan_stack", lambda s, o: calls["plan"].append(s.name) or real_plan(s, o))
    monkeypatch.setattr(policies, "reprice", lambda *a, **k: calls["reprice"].append(a[1]) or real_reprice(*a, **k))
    monkeypatch.setattr(planning, "_SHARED", {})
    monkeypatch.setattr(planning, "_REBUILT", {})
    yield calls


def test_a_stack_budget_is_read_back_and_planned_once_by_every_stack_policy(declare: Any, counted: dict) -> None:
    declare({"schedule": {"hours": 168}, "budget": {"total_usd": 10000}})
    reported = check(hand_written(PRICED, lustre=LUSTRE))  # every policy of the pack
    assert (len(counted["rebuild"]), len(counted["plan"]), counted["reprice"]) == (1, 1, [])
    # 2 x p5en.48xlarge (shipped price) and 1,200 GiB SCRATCH_2 for the stack's 168 h, against its own budget
    assert [(r.policy, r.enforcement, r.message, r.urn) for r in reported] == [
        (
            "planner-budget",
            "mandatory",
            "[budget-exceeded] estimated total is at least $21,306.12 (some cost left out), above the total budget "
            "$10,000.00 by at least $11,306.12. Fix: cut at least $11,306.12: more than node group 'trainers' (the "
            "largest cost, $21,267.46) can give up; fewer hours, or a cheaper purchase option, or in the stack "
            "config's planner:cluster, set budget.total_usd: 21306.12. Estimate: at least $21,306.12 for 168 h; "
            "left out: trainers root volumes "
            "(size unknown: the AMI's default mapping)",
            None,
        )
    ]


def test_pack_hours_and_limits_reprice_the_one_planning(declare: Any, counted: dict, tmp_path: Path) -> None:
    declare({"schedule": {"hours": 168}, "budget": {"total_usd": 10000}})
    specs = hand_written(lustre=LUSTRE)
    book = tmp_path / "prices.yaml"
    book.write_text(PRICE_BOOK)
    config = {"maxTotalUsd": 8000, "maxMonthlyUsd": 50000, "hours": 100, "priceBook": str(book)}
    reported = check(specs, config={"planner-budget": config})
    assert (len(counted["rebuild"]), len(counted["plan"])) == (1, 1)
    assert counted["reprice"] == [policies.BUDGET_RULES]  # the verdict rules only, not the whole rule set
    # the shared planning uses the shipped book, which has no on-demand trn2.48xlarge price (a topology warning);
    # planner-budget re-prices it with its own book, which has one
    assert [r.message.split("]")[0] for r in reported if r.policy != "planner-budget"] == ["[price-unknown"]
    assert [(r.policy, r.message.split(" Fix:")[0]) for r in reported if r.policy == "planner-budget"] == [
        (
            "planner-budget",
            "[budget-exceeded] estimated monthly cost (730 h) is at least $58,575.20 (some cost left out), above "
            "the monthly budget $50,000.00 by at least $8,575.20; the limit is planner-budget's `maxMonthlyUsd`.",
        ),
        (
            "planner-budget",
            "[budget-exceeded] estimated total is at least $8,024.00 (some cost left out), above the total budget "
            "$8,000.00 by at least $24.00; the limit is planner-budget's `maxTotalUsd`.",
        ),
    ]
    # under the limits, the estimate lacks the root volumes: `budget-incomplete-cost` from the same re-pricing,
    # and allowIncompleteCost changes the verdict, not what is priced; still no planning of its own
    under = dict(config, maxTotalUsd=9000, maxMonthlyUsd=60000)
    assert [r.message.split("]")[0] for r in check(specs, [policies.budget], config={"planner-budget": under})] == [
        "[budget-incomplete-cost"
    ]
    assert check(specs, [policies.budget], config={"planner-budget": dict(under, allowIncompleteCost=True)}) == []
    assert (len(counted["rebuild"]), len(counted["plan"])) == (1, 1)
    assert counted["reprice"] == [policies.BUDGET_RULES] * 3


def test_a_repriced_plan_has_the_findings_and_cost_of_a_full_planning() -> None:
    """`reprice` against planning the stack again with the other schedule, budget and book: the same cost,
    the same findings of the rules it runs."""
    book = load_price_book("capacity-blocks-2024")
    rules = ("budget-exceeded", "price-unknown", "purchase-not-sold", "budget-incomplete-cost")
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        stack = load_stack(str(path))
        schedule, budget = (
            Schedule(100.0, CLUSTER_PATH + ("schedule",)),
            Budget(1000.0, 500.0, CLUSTER_PATH + ("budget",)),
        )
        again = replace(stack, cluster=replace(stack.cluster, schedule=schedule, budget=budget))
        full = plan_stack(again, PlanOptions(price_book=book))
        quick = reprice(plan_stack(stack), rules, PlanOptions(price_book=book), schedule=schedule, budget=budget)
        assert quick.cost == full.cost, path.name
        assert quick.findings == tuple(f for f in full.findings if f.rule in rules), path.name
        assert quick.findings, path.name  # over the budget, or its estimate incomplete: something to compare


KARPENTER_POOL = node_pool("gpu", ["p5.48xlarge"])  # no limits: how many it launches is unknown


def test_only_sizing_unsized_compute_plans_once_more(counted: dict) -> None:
    """A pool without limits: the budget prices it at the config's `instances` for `hours`, a cluster of its
    own (node groups added), so that and only that is planned a second time."""
    found = check([KARPENTER_POOL], [policies.budget], config={"planner-budget": {"maxTotalUsd": 1000}})
    assert [(r.message, r.urn) for r in found] == [
        (
            "cannot show the stack is within budget: Karpenter node pool 'gpu' may launch p5.48xlarge (unbounded) "
            "and how many cannot be read from the program; set `hours` and `instances` in this policy's config to "
            "price it",
            KARPENTER_POOL.urn,
        )
    ]
    assert len(counted["plan"]) == 1
    sized = {"maxTotalUsd": 1000, "hours": 10, "instances": 2}
    (v,) = check([KARPENTER_POOL], [policies.budget], config={"planner-budget": sized})
    # 2 x p5.48xlarge at the shipped on-demand price for 10 h
    assert v.message.startswith(
        "[budget-exceeded] estimated total is at least $1,100.80 (some cost left out), above the total budget "
        "$1,000.00 by at least $100.80; the limit is planner-budget's `maxTotalUsd`."
    )
    assert (len(counted["rebuild"]), len(counted["plan"]), counted["reprice"]) == (1, 2, [])


def test_compute_the_budget_sizes_is_no_longer_left_out() -> None:
    """Sized from the config, the pool is priced by its node group: `budget-incomplete-cost` names only what is
    still missing (that group's root volumes), and `budget-unbounded-compute` has no pool left to report."""
    sized = {"maxTotalUsd": 10**6, "hours": 10, "instances": 2}
    (v,) = check([KARPENTER_POOL], [policies.budget], config={"planner-budget": sized})
    assert v.message.startswith(
        "[budget-incomplete-cost] the total budget $1,000,000.00 cannot be checked: the estimate leaves "
        "out unsized-1 root volumes (size unknown: the AMI's default mapping) (cost at least $"
    )
    assert (
        check([KARPENTER_POOL], [policies.budget], config={"planner-budget": dict(sized, allowIncompleteCost=True)})
        == []
    )


HYPERPOD = Spec(
    "aws-native:sagemaker:Cluster",
    "hp",
    {"instanceGroups": [{"instanceGroupName": "workers", "instanceType": "ml.p5.48xlarge", "instanceCount": 4.0}]},
)


def test_a_hyperpod_group_without_a_price_is_left_out_only_when_allowed() -> None:
    """HyperPod nodes have no price in planner's book: the budget fails on them (never the EC2 price in their
    place), unless an incomplete estimate is allowed, as `budget.allow_incomplete` lets `planner plan` pass."""
    config = {"maxTotalUsd": 1000, "hours": 10, "instances": 2}
    (v,) = check([HYPERPOD], [policies.budget], config={"planner-budget": config})
    assert "planner has no SageMaker HyperPod price" in v.message
    assert check([HYPERPOD], [policies.budget], config={"planner-budget": dict(config, allowIncompleteCost=True)}) == []


# --- the intended change: the stack's own planning keys in the topology policies ------------------


def test_the_topology_applies_a_declared_schedule_as_plan_program_does(declare: Any, tmp_path: Path) -> None:
    """A Capacity Block cluster (the corpus's EKS p5.48xlarge group) whose stack config declares
    `schedule.hours: 100`: `planner plan --program` bills it as a 5-day block (capacity-block-duration),
    and so does planner-topology-warnings now, with the same message. Without the schedule the pack
    reports no such finding (nor does `plan --program`: tests/test_corpus.py)."""
    project = tmp_path / "eks-p5-capacity-block-unmanaged"
    shutil.copytree(CORPUS / project.name, project)
    stack_file = project / "Pulumi.test.yaml"
    stack_file.write_text(stack_file.read_text() + "  planner:cluster:\n    schedule:\n      hours: 100\n")
    result = run_cli("plan", "--program", str(project), "--stack", "test", "--format", "json")
    assert result.code == 0, result.err  # warnings only (imdsv2-required is planner's policy, a warning)
    (stack,) = json.loads(result.out)["stacks"]
    (cli,) = [f for f in stack["findings"] if f["rule"] == "capacity-block-duration"]

    specs, config = captured(project)
    declare(None)
    region = config.get("aws:region")
    assert not [r for r in check(specs, [policies.topology_warnings], region=region) if "capacity-block" in r.message]
    declare({"schedule": {"hours": 100}})
    (pack,) = [r for r in check(specs, [policies.topology_warnings], region=region) if "capacity-block" in r.message]
    assert pack.enforcement == "advisory"
    assert pack.message == f"[capacity-block-duration] {cli['message']}. Fix: {cli['fix']['text']}."
    # every rule the pack reports for the stack is one plan --program reports
    pack_rules = {r.message[1:].split("]")[0] for r in check(specs, region=region) if r.message.startswith("[")}
    assert pack_rules <= {f["rule"] for f in stack["findings"]}


def test_a_bad_declared_planning_key_is_the_stack_configs_problem(declare: Any) -> None:
    declare({"schedule": {"hours": 0}})
    found = check(hand_written(), [policies.topology])
    assert [(r.message, r.urn) for r in found] == [
        ("stack config `planner:cluster.schedule.hours`: expected a positive number, got 0", None)
    ]
    # with a budget, planner-budget fails too, as its own verdict with the reason (not the same violation twice)
    declare({"schedule": {"hours": 0}, "budget": {"total_usd": 1000}})
    found = check(hand_written(), [policies.topology, policies.budget])
    assert [(r.policy, r.message) for r in found] == [
        ("planner-topology", "stack config `planner:cluster.schedule.hours`: expected a positive number, got 0"),
        (
            "planner-budget",
            "cannot show the stack is within budget: stack config `planner:cluster.schedule.hours`: expected a "
            "positive number, got 0",
        ),
    ]


def test_the_budget_verdicts_are_the_budget_policys_only(declare: Any) -> None:
    """With a budget in the stack config, the shared planning has the budget rules' findings (over it; or an
    estimate that cannot be checked, the root volumes' size unknown): planner-budget gives the verdict under its
    own config, the topology policies leave them out, so no problem is reported twice; with the stack's
    `allow_incomplete`, the budget is checked against the priced part, as `planner plan` checks it."""
    for limit, rule in ((1, "budget-exceeded"), (10**9, "budget-incomplete-cost")):
        declared: dict[str, Any] = {"schedule": {"hours": 100}, "budget": {"total_usd": limit}}
        shared = planning.plan_resources(stack_args(hand_written(PRICED)).resources, {}, declared=declared)
        assert shared.plan is not None and rule in {f.rule for f in shared.plan.findings}
        declare(declared)
        reported = [(r.policy, r.message.split("]")[0]) for r in check(hand_written(PRICED)) if "budget" in r.message]
        assert reported == [("planner-budget", f"[{rule}")]
        # the engine fills in the schema's default (`allowIncompleteCost: false`): the stack's budget still holds
        engine_default = {"planner-budget": {"allowIncompleteCost": False}}
        found = check(hand_written(PRICED), config=engine_default)
        assert [(r.policy, r.message.split("]")[0]) for r in found if "budget" in r.message] == reported
        declare({**declared, "budget": {"total_usd": limit, "allow_incomplete": True}})
        reported = [(r.policy, r.message.split("]")[0]) for r in check(hand_written(PRICED)) if "budget" in r.message]
        assert reported == ([("planner-budget", "[budget-exceeded")] if limit == 1 else [])


def test_an_incomplete_estimate_fails_the_stack_budget_as_plan_program_says(tmp_path: Path, declare: Any) -> None:
    """A budget far above what is priced, the root volumes' size unknown: `planner plan --program` fails it with
    `budget-incomplete-cost`, and planner-budget with the same finding (before: it passed); with the stack's
    `budget.allow_incomplete: true` both check the priced part only, and both pass."""
    from test_program_plan import HAND_WRITTEN, project

    specs = None
    for allow in (False, True):
        planning_keys = {"schedule": {"hours": 100}, "budget": {"total_usd": 10**6, "allow_incomplete": allow}}
        (tmp_path / str(allow)).mkdir()
        d = project(tmp_path / str(allow), json.dumps(planning_keys), main=HAND_WRITTEN)
        result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
        (stack,) = json.loads(result.out)["stacks"]
        cli = [f for f in stack["findings"] if f["rule"] in policies.BUDGET_RULES]
        if specs is None:
            specs = capture(lambda d=d: runpy.run_path(str(d / "app.py")), config={"aws:region": "us-east-2"})
        declare(planning_keys)
        pack = check(specs, [policies.budget])
        if allow:
            assert (cli, pack) == ([], [])
            continue
        assert result.code == 1, result.err
        (finding,) = cli
        assert finding["rule"] == "budget-incomplete-cost" and "root volumes" in finding["message"]
        (reported,) = pack
        assert reported.enforcement == "mandatory"
        assert reported.message.startswith(
            f"[budget-incomplete-cost] {finding['message']}. Fix: {finding['fix']['text']}. Estimate: at least $"
        )


def test_without_hours_the_budget_prices_the_workload_as_plan_program_does(tmp_path: Path, declare: Any) -> None:
    """A stack config with a workload and a budget but no schedule.hours: `planner plan --program` prices the
    run on the workload's hours, and so does planner-budget now (before: 730 h), on the one shared planning."""
    from test_program_plan import HAND_WRITTEN, project

    planning_keys = {"workload": {"parameters": 7e9, "tokens": 1e11, "mfu": 0.4}, "budget": {"total_usd": 1}}
    d = project(tmp_path, json.dumps(planning_keys), main=HAND_WRITTEN)
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    (stack,) = json.loads(result.out)["stacks"]
    cost = stack["cost"]
    assert cost["hours_basis"] == "workload" and 100 < cost["run_hours"] < 200
    (cli,) = [f for f in stack["findings"] if f["rule"] == "budget-exceeded"]

    specs = capture(lambda: runpy.run_path(str(d / "app.py")), config={"aws:region": "us-east-2"})
    declare(planning_keys)
    (pack,) = check(specs, [policies.budget])
    assert pack.message.startswith(f"[budget-exceeded] {cli['message']}.")
    assert f" for {cost['run_hours']:,.0f} h;" in pack.message
