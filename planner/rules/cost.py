"""Cost rules: they read the estimate (`ctx.cost`), computed before rules run.

An unknown price must be visible (it is never counted as zero), and a declared budget is a
promise the estimate can check before anything is deployed.
"""

from __future__ import annotations

from typing import Iterator

from planner.cost.estimate import HOURS_PER_MONTH
from planner.findings import Finding
from planner.rules import Rule, RuleContext, rule

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
            yield r.finding(ctx, item.path, f"{item.note}: its cost is unknown (not zero) and the estimate is incomplete",
                            fix=_price_fix(ctx, item))


def _price_fix(ctx: RuleContext, item) -> str:  # noqa: ANN001 - planner.cost LineItem
    """For instances, the `--price` that fills this gap; for storage, a price book file."""
    t, purchase = item.detail.get("instance_type"), item.detail.get("purchase")
    book = "add the price (with its source and date) to a price book file and pass it with --price-book FILE"
    if t and purchase:
        return f"{book}, or give your own: --price {t}:{purchase}@{ctx.stack.region}=USD_PER_INSTANCE_HOUR"
    return book


def _usd(x: float) -> str:
    return f"${x:,.2f}"


@rule(
    id="budget-exceeded",
    severity="error",
    category="cost",
    description="The estimated cost is above the declared budget (total or monthly).",
    source=PRICING_DOC,
    remediation="Reduce instances, hours or storage, choose a cheaper purchase option, or raise the budget.",
)
def budget_exceeded(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    budget, cost = ctx.cluster.budget, ctx.cost
    if budget is None or cost is None:
        return
    cost = cost.budget_basis  # the workload's hours when they exceed schedule.hours
    on = "" if cost is ctx.cost else f" on the {cost.run_hours:,.1f} h the workload needs"
    checks = (
        ("total_usd", budget.total_usd, cost.total_usd, cost.known_total_usd, "total"),
        ("monthly_usd", budget.monthly_usd, cost.monthly_usd, cost.known_hourly_usd * HOURS_PER_MONTH or None, "monthly cost (730 h)"),
    )
    for key, limit, value, lower_bound, what in checks:
        if limit is None:
            continue
        if value is not None and value > limit:
            yield r.finding(ctx, budget.path + (key,),
                            f"estimated {what}{on} {_usd(value)} exceeds budget.{key} {_usd(limit)} by {_usd(value - limit)}")
        elif value is None and lower_bound is not None and lower_bound > limit:
            yield r.finding(ctx, budget.path + (key,),
                            f"estimated {what}{on} is at least {_usd(lower_bound)} (some prices unknown), above budget.{key} "
                            f"{_usd(limit)} by at least {_usd(lower_bound - limit)}")
