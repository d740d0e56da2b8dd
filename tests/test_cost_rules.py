"""budget-exceeded and price-unknown read the estimate; budgets checked by arithmetic."""

from __future__ import annotations

import pytest
from conftest import document
from cost_support import make_book

from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import PlanOptions, plan_stack
from planner.core.rules import registry
from planner.core.rules.prices_and_budget import IncompleteCost
from tests.conftest import fix_words

AZ = "availability_zone: us-east-2a\n"
GROUPS = "node_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: 2}\nschedule: {hours: 100}\n"
# 2 x $10 x 100 h = $2,000, and their root volumes 2 x $0.05 x 100 h = $10 (cost_support.EBS_USD)


def _plan(stack_file, budget: str):
    return plan_stack(load_stack(str(stack_file(AZ + GROUPS + budget))), PlanOptions(price_book=make_book()))


def _budget(plan):
    return [f for f in plan.findings if f.rule == "budget-exceeded"]


def test_rules_are_registered() -> None:
    assert registry()["budget-exceeded"].severity == "error"
    assert registry()["price-unknown"].severity == "warning"


def test_total_over_budget_is_an_error_with_both_figures(stack_file) -> None:
    plan = _plan(stack_file, "budget:\n  total_usd: 1500\n")
    (f,) = _budget(plan)
    assert f.severity == "error" and f.line == 9
    assert "$2,010.00" in f.message and "the total budget $1,500.00" in f.message and "by $510.00" in f.message
    assert document([plan]).exit_code() == 1


def test_monthly_over_budget(stack_file) -> None:
    plan = _plan(stack_file, "budget:\n  total_usd: 5000\n  monthly_usd: 14000\n")  # 20.1 $/h x 730 = 14,673
    (f,) = _budget(plan)
    assert f.line == 10 and "monthly" in f.message and "$14,673.00" in f.message and "$14,000.00" in f.message


@pytest.mark.parametrize("budget", ["budget:\n  total_usd: 2010\n", "budget:\n  monthly_usd: 14673\n", ""])
def test_at_or_under_budget_is_fine(stack_file, budget: str) -> None:
    assert _budget(_plan(stack_file, budget)) == []


def test_known_part_alone_can_exceed_the_budget(stack_file) -> None:
    path = stack_file(
        AZ
        + GROUPS.replace("schedule", "  - {name: g, instance_type: p5.48xlarge, count: 1}\nschedule")
        + "budget:\n  total_usd: 1000\n"
    )
    plan = plan_stack(load_stack(str(path)), PlanOptions(price_book=make_book()))
    (f,) = _budget(plan)
    assert (
        "at least $2,015.00" in f.message
    )  # p5's root volume is priced, its instance-hours are not and "some prices unknown" in f.message
    assert [x.rule for x in plan.findings if x.rule == "price-unknown"] == ["price-unknown"]


def test_budget_finding_can_be_suppressed(stack_file) -> None:
    plan = _plan(
        stack_file, "budget:\n  total_usd: 1500\nsuppress:\n  - {rule: budget-exceeded, reason: approved overrun}\n"
    )
    (f,) = _budget(plan)
    assert f.suppressed and document([plan]).exit_code() == 0


def test_budget_fix_says_how_many_instances_to_cut(stack_file) -> None:
    (f,) = _budget(
        _plan(stack_file, "budget:\n  total_usd: 1500\n")
    )  # $1,005 per instance (and root volume) over the run
    assert (
        fix_words(f)
        == "cut $510.00: in node group 'a', set count: 1 (1 fewer instance save $1,005.00), or set budget.total_usd: 2010"
    )
    (f,) = _budget(_plan(stack_file, "budget:\n  total_usd: 5000\n  monthly_usd: 14000\n"))  # $7,300 per instance-month
    assert fix_words(f) == (
        "cut $673.00: in node group 'a', set count: 1 (1 fewer instance save $7,336.50), "
        "or set budget.monthly_usd: 14673"
    )
    (f,) = _budget(_plan(stack_file, "budget:\n  total_usd: 100\n"))  # more than the one group costs
    assert fix_words(f) == (
        "cut $1,910.00: more than node group 'a' (the largest cost, $2,010.00) can give up; fewer hours, "
        "or a cheaper purchase option, or set budget.total_usd: 2010"
    )


def test_budget_fix_cuts_whole_ultraservers(stack_file) -> None:
    groups = "node_groups:\n  - {name: u, instance_type: trn2u.48xlarge, ultraservers: 3, purchase: capacity-block}\nschedule: {hours: 96}\n"
    plan = plan_stack(
        load_stack(str(stack_file(AZ + groups + "budget:\n  total_usd: 8000\n"))), PlanOptions(price_book=make_book())
    )
    (f,) = _budget(plan)
    # 12 instances x ($8 + $0.05 root volume)/h x 96 h = $9,273.60; one UltraServer (4 instances) is $3,091.20
    assert "$9,273.60" in f.message
    assert (
        fix_words(f)
        == "cut $1,273.60: in node group 'u', set ultraservers: 2 (4 fewer instances save $3,091.20), or set budget.total_usd: 9273.6"
    )


def test_budget_fix_on_the_workloads_hours_does_not_cut_instances() -> None:
    # priced on the hours the workload needs: fewer instances run longer, for about the same cost
    plan = plan_stack(load_stack("tests/invalid_stacks/Pulumi.workload-exceeds-schedule.yaml"))
    (f,) = _budget(plan)
    over = f.message.rsplit(" by ", 1)[1]
    assert fix_words(f).startswith(
        f"cut {over}: train on fewer tokens or parameters, or choose a cheaper purchase option "
        "(fewer instances would run longer for about the same cost), or set budget.total_usd: "
    )


def _incomplete(plan):
    return [f for f in plan.findings if f.rule == "budget-incomplete-cost"]


UNPRICED = GROUPS.replace(
    "schedule", "  - {name: g, instance_type: p5.48xlarge, count: 1}\nschedule"
)  # make_book has no p5


def test_a_budget_never_passes_on_an_incomplete_cost(stack_file) -> None:
    """The priced part ($2,015) is under the limit, but p5 has no price: the budget cannot be checked, so it fails."""
    plan = plan_stack(
        load_stack(str(stack_file(AZ + UNPRICED + "budget:\n  total_usd: 5000\n"))), PlanOptions(price_book=make_book())
    )
    (f,) = _incomplete(plan)
    assert f.severity == "error" and f.line == 10 and _budget(plan) == []
    assert (
        f.message
        == "the total budget $5,000.00 cannot be checked: the estimate leaves out g (p5.48xlarge) (cost at least $2,015.00)"
    )
    assert "budget.allow_incomplete: true" in fix_words(f) and document([plan]).exit_code() == 1
    assert plan.cost.to_json()["complete"] is False


def test_allow_incomplete_checks_the_priced_part_only(stack_file) -> None:
    plan = plan_stack(
        load_stack(str(stack_file(AZ + UNPRICED + "budget:\n  total_usd: 5000\n  allow_incomplete: true\n"))),
        PlanOptions(price_book=make_book()),
    )
    assert _incomplete(plan) == [] and _budget(plan) == [] and document([plan]).exit_code() == 0


def test_fail_on_incomplete_cost_without_a_budget(stack_file) -> None:
    path = str(stack_file(AZ + UNPRICED))
    options = PlanOptions(price_book=make_book(), rule_options=(IncompleteCost(fail_on_incomplete=True),))
    (f,) = _incomplete(plan_stack(load_stack(path), options))
    assert (
        f.severity == "error" and "leaves out g (p5.48xlarge)" in f.message and "--fail-on-incomplete-cost" in f.message
    )
    assert (
        _incomplete(plan_stack(load_stack(path), PlanOptions(price_book=make_book()))) == []
    )  # without the option: a warning only
    complete = plan_stack(load_stack(str(stack_file(AZ + GROUPS))), options)
    assert _incomplete(complete) == []


def test_a_total_budget_without_hours_cannot_be_checked(stack_file) -> None:
    plan = plan_stack(
        load_stack(
            str(stack_file(AZ + GROUPS.replace("schedule: {hours: 100}\n", "") + "budget:\n  total_usd: 5000\n"))
        ),
        PlanOptions(price_book=make_book()),
    )
    (f,) = _incomplete(plan)
    assert "the hours (schedule.hours or a workload)" in f.message and "declare the run's hours" in fix_words(f)


def test_the_priced_part_over_the_budget_is_reported_once(stack_file) -> None:
    plan = plan_stack(
        load_stack(str(stack_file(AZ + UNPRICED + "budget:\n  total_usd: 1000\n"))), PlanOptions(price_book=make_book())
    )
    assert len(_budget(plan)) == 1 and _incomplete(plan) == []


def test_compute_left_out_makes_the_estimate_incomplete(stack_file) -> None:
    """Read-back compute the estimate cannot size is in no line item: `complete` is false, and it is named."""
    import msgspec.structs

    from planner.core.model.cluster import Unplanned

    stack = load_stack(str(stack_file(AZ + GROUPS + "budget:\n  total_usd: 5000\n")))
    batch = Unplanned("AWS Batch compute environment 'ce'", "unsized", ("p5.48xlarge",), range="0-1024 vCPUs")
    stack = msgspec.structs.replace(stack, cluster=msgspec.structs.replace(stack.cluster, unplanned=(batch,)))
    plan = plan_stack(stack, PlanOptions(price_book=make_book()))
    cost = plan.cost.to_json()
    assert cost["complete"] is False and cost["total_usd"] is None and cost["known_total_usd"] == 2010
    assert cost["left_out"] == ["AWS Batch compute environment 'ce' (unbounded: no limit)"]
    (f,) = _incomplete(plan)
    assert "leaves out AWS Batch compute environment 'ce' (unbounded: no limit) (cost at least $2,010.00)" in f.message


def test_cli_fail_on_incomplete_cost(tmp_path) -> None:
    from tests.conftest import run_cli

    res = run_cli("plan", "tests/invalid_stacks/Pulumi.price-unknown.yaml")
    assert res.code == 0
    res = run_cli(
        "plan", "tests/invalid_stacks/Pulumi.price-unknown.yaml", "--fail-on-incomplete-cost", "--format", "json"
    )
    import json

    assert res.code == 1
    (f,) = [f for f in json.loads(res.out)["stacks"][0]["findings"] if f["rule"] == "budget-incomplete-cost"]
    assert "trainers (trn1.32xlarge)" in f["message"]


def test_a_type_aws_does_not_list_is_left_out_and_said_so() -> None:
    """With every type AWS lists in the catalogue, only a type AWS does not list (a typo, or one not
    yet in DescribeInstanceTypes) stays unplanned; it is named as that, and the fix points to the whole list."""
    from planner.core.model.cluster import Unplanned
    from planner.readback.elastic_compute import unlisted_fix

    u = Unplanned("Karpenter NodePool 'next'", "unlisted", ("p6e-gb300.36xlarge",), count=0, maximum=4)
    assert u.left_out_now is None  # it runs none now
    assert u.left_out_at_maximum == "Karpenter NodePool 'next' (p6e-gb300.36xlarge: not a type AWS lists)"
    assert "`planner catalog --all`" in unlisted_fix(("p6e-gb300.36xlarge",)).reason  # advice: a reason alone
