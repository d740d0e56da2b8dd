"""Cost rules: they read the estimate (`ctx.cost`), computed before rules run.

An unknown price must be visible (it is never counted as zero), and a declared budget is a
promise the estimate can check before anything is deployed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from msgspec import Struct

from planner.core.cost.estimate import HOURS_PER_MONTH, CostEstimate, CostLine
from planner.core.cost.items import volume_owner
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Fix, Rule, RuleContext, outside, rule, set_to

PRICING_DOC = "https://aws.amazon.com/ec2/pricing/"


@rule(
    id="price-unknown",
    severity="warning",
    category="cost",
    description="A resource has no price in the selected price book, so the estimate is incomplete.",
    source=PRICING_DOC,
    remediation="Add the price, with its source and date, to a price book file and pass it with --price-book FILE.",
)
def price_unknown(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    if ctx.cost is None:
        return
    for item in ctx.cost.line_items:
        if item.price is None and not item.detail.get("not_sold"):  # not sold: `purchase-not-sold` says so
            yield r.finding(
                ctx,
                item.path,
                f"{item.note}: its cost is unknown (not zero) and the estimate is incomplete",
                fix=_price_fix(ctx, item),
            )


def _price_fix(ctx: RuleContext, item: CostLine) -> Fix:
    """For instances, the `--price` that fills this gap; for storage, a price book file."""
    t, purchase = item.detail.get("instance_type"), item.detail.get("purchase")
    book = "add the price (with its source and date) to a price book file and pass it with --price-book FILE"
    if t and purchase:
        return outside(
            "price", f"{book}, or give your own: --price {t}:{purchase}@{ctx.stack.region}=USD_PER_INSTANCE_HOUR"
        )
    return outside("price", book)


def _usd(x: float) -> str:
    return f"${x:,.2f}"


def _budget_fix(
    ctx: RuleContext, cost: CostEstimate, key: str, value: float, limit: float, at_least: bool = False
) -> Fix:
    """What to cut to fit: in the node group that costs most, the fewest instances (whole
    UltraServers for an UltraServer type) whose share of the estimate (with their EBS volumes)
    covers the overrun; else
    (the overrun is more than that group costs) the budget to declare."""
    over = value - limit
    cut = f"cut {'at least ' if at_least else ''}{_usd(over)}"
    budget_path = ctx.cluster.path + ("budget", key)
    raise_it = (set_to(ctx, budget_path, math.ceil(round(value * 100, 6)) / 100),)  # 14673.000000000002 is 14673.00
    if ctx.cost is not None and cost is ctx.cost.maximum:  # elastic pools at their maximum: their limits are the lever
        return Fix(f"{cut}: lower the pools' limits (maximum sizes)", alternatives=raise_it)
    if (
        ctx.cost is None or cost is not ctx.cost
    ):  # priced on the workload's hours: fewer instances take longer at about the same cost
        return Fix(
            f"{cut}: train on fewer tokens or parameters, or choose a cheaper purchase option "
            "(fewer instances would run longer for about the same cost)",
            alternatives=raise_it,
        )
    groups = {g.name: g for g in ctx.cluster.node_groups}
    shares: dict[str, float] = {}  # per node group: its instances and their volumes (each instance has its own)
    for item in cost.line_items:
        name = (volume_owner(item.name, groups) or item.name) if item.detail.get("volume_type") else item.name
        g = groups.get(name)
        share = (
            item.total_usd
            if key == "total_usd"
            else (None if item.hourly_usd is None else item.hourly_usd * HOURS_PER_MONTH)
        )
        if g is not None and "instances" in item.detail and share and g.count:
            shares[name] = shares.get(name, 0.0) + share
    costs = [(share, groups[name]) for name, share in shares.items()]
    if not costs:
        return Fix(f"{cut}: fewer instances or hours, or a cheaper purchase option", alternatives=raise_it)
    share, g = max(costs, key=lambda c: c[0])
    size = ctx.catalogue.unit_of(g)
    per_unit = share / g.count * size
    units = math.ceil(round(over / per_unit, 9))
    left = g.count - units * size
    if left < size:
        return Fix(
            f"{cut}: more than node group '{g.name}' (the largest cost, {_usd(share)}) can give up; "
            "fewer hours, or a cheaper purchase option",
            alternatives=raise_it,
        )
    fewer = f"{units * size:,} fewer instance{'' if units * size == 1 else 's'} save {_usd(per_unit * units)}"
    smaller = (
        set_to(ctx, g.path + ("ultraservers",), left // size, fewer)
        if g.ultraservers is not None
        else set_to(ctx, g.path + ("count",), left, fewer)
    )
    return Fix(f"{cut}:", (smaller,), raise_it)


# a limit named in a message by what it is, not by its key: the finding's location names the key
# (`budget.total_usd` in a stack file, `maxTotalUsd` in the policy pack's config)
LIMIT_WORDS = {"total_usd": "the total budget", "monthly_usd": "the monthly budget"}


@rule(
    id="budget-exceeded",
    severity="error",
    category="cost",
    description="The estimated cost is above the declared budget (total or monthly).",
    source=PRICING_DOC,
    remediation="Reduce instances, hours or storage, choose a cheaper purchase option, or raise the budget.",
)
def budget_exceeded(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    budget, estimate = ctx.cluster.budget, ctx.cost
    if budget is None or estimate is None:
        return
    cost = estimate.budget_basis  # the workload's hours when they exceed schedule.hours; the maximum of on-demand pools
    on = (
        ""
        if cost is estimate
        else " at the maximum the program allows"
        if cost is estimate.maximum
        else f" on the {cost.run_hours:,.1f} h the workload needs"
    )
    checks = (
        ("total_usd", budget.total_usd, cost.total_usd, cost.known_total_usd, "total"),
        (
            "monthly_usd",
            budget.monthly_usd,
            cost.monthly_usd,
            cost.known_hourly_usd * HOURS_PER_MONTH or None,
            "monthly cost (730 h)",
        ),
    )
    for key, limit, value, lower_bound, what in checks:
        if limit is None:
            continue
        # compared as printed, to the cent: 20.1 $/h x 730 is 14673.000000000002, within a 14673 budget
        value = None if value is None else round(value, 2)
        lower_bound = None if lower_bound is None else round(lower_bound, 2)
        if value is not None and value > limit:
            yield r.finding(
                ctx,
                budget.path + (key,),
                f"estimated {what}{on} {_usd(value)} exceeds {LIMIT_WORDS[key]} {_usd(limit)} by {_usd(value - limit)}",
                fix=_budget_fix(ctx, cost, key, value, limit),
            )
        elif value is None and lower_bound is not None and lower_bound > limit:
            yield r.finding(
                ctx,
                budget.path + (key,),
                f"estimated {what}{on} is at least {_usd(lower_bound)} ({'some prices unknown' if not cost.left_out else 'some cost left out'}), above {LIMIT_WORDS[key]} "
                f"{_usd(limit)} by at least {_usd(lower_bound - limit)}",
                fix=_budget_fix(ctx, cost, key, lower_bound, limit, at_least=True),
            )


class IncompleteCost(Struct, frozen=True):
    """The option of `budget-incomplete-cost`: `--fail-on-incomplete-cost` makes an incomplete estimate
    an error with no budget declared."""

    fail_on_incomplete: bool = False


def _lacking(ctx: RuleContext, estimate: CostEstimate) -> tuple[list[str], bool]:
    """What the estimate a budget is checked against lacks (unpriced items, what is left out, and
    the hours when a total is limited), and whether it lacks anything."""
    cost = estimate.budget_basis
    missing = list(cost.unpriced)
    budget = ctx.cluster.budget
    wants_total = ctx.option(IncompleteCost).fail_on_incomplete or (budget is not None and budget.total_usd is not None)
    if cost.run_hours is None and wants_total:
        missing.append("the hours (schedule.hours or a workload)")
    return missing, bool(missing)


@rule(
    id="budget-incomplete-cost",
    severity="error",
    category="cost",
    description=(
        "A budget is declared (or --fail-on-incomplete-cost given) but the estimate is incomplete: a price "
        "unknown, compute or hours left out, so the budget cannot be checked."
    ),
    source=PRICING_DOC,
    remediation=(
        "Price what is missing (`--price TYPE:PURCHASE@REGION=USD` or a price book file), give the hours, "
        "size the compute left out, or check the budget against the priced part only with "
        "`budget.allow_incomplete: true`."
    ),
)
def budget_incomplete_cost(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    budget, cost = ctx.cluster.budget, ctx.cost
    forced = bool(ctx.option(IncompleteCost).fail_on_incomplete)
    if cost is None or not (forced or (budget is not None and not budget.allow_incomplete)):
        return
    missing, lacking = _lacking(ctx, cost)
    if not lacking:
        return
    basis = cost.budget_basis
    known = basis.known_total_usd
    at_least = f" (cost at least {_usd(known)})" if known else ""
    if budget is not None and not _already_over(budget, basis):
        key = "total_usd" if budget.total_usd is not None else "monthly_usd"
        limit = budget.total_usd if budget.total_usd is not None else budget.monthly_usd
        assert limit is not None  # a budget has total_usd or monthly_usd (planner.core.input.stack_files)
        yield r.finding(
            ctx,
            budget.path + (key,),
            f"{LIMIT_WORDS[key]} {_usd(limit)} cannot be checked: the estimate leaves out {', '.join(missing)}{at_least}",
            fix=_incomplete_fix(ctx, missing, budget is not None and not forced),
        )
    elif budget is None:
        yield r.finding(
            ctx,
            ctx.cluster.path,
            f"the estimate is incomplete (--fail-on-incomplete-cost): it leaves out {', '.join(missing)}{at_least}",
            fix=_incomplete_fix(ctx, missing, False),
        )


def _already_over(budget: Any, cost: Any) -> bool:  # noqa: ANN401 - Budget, CostEstimate
    """The priced part alone is over a limit: `budget-exceeded` fails the budget already."""
    known = cost.known_total_usd
    monthly = cost.known_hourly_usd * HOURS_PER_MONTH
    return bool(
        (budget.total_usd is not None and known is not None and round(known, 2) > budget.total_usd)
        or (budget.monthly_usd is not None and monthly and round(monthly, 2) > budget.monthly_usd)
    )


def _incomplete_fix(ctx: RuleContext, missing: list[str], allow: bool) -> Fix:
    """Price what is missing; declare the hours; or (a budget) check it against the priced part only."""
    reason = "price what is missing (a price book that has its price)"  # the rule's remediation names the options
    if any(m.startswith("the hours") for m in missing):
        reason += ", and declare the run's hours (a schedule)"
    allowed = set_to(
        ctx, ctx.cluster.path + ("budget", "allow_incomplete"), True, "to check the budget against the priced part only"
    )
    return Fix(reason, alternatives=(allowed,) if allow else ())
