"""Compute the estimate cannot count or price: it will launch accelerated instances, with no ceiling or no price.

A pool without a maximum (a Karpenter NodePool without `spec.limits` that bind its types,
an AWS PCS node group without `maxInstanceCount`) may launch any number of instances;
SageMaker HyperPod instance groups have a fixed count but are sold by SageMaker, whose
price planner does not hold. Saying nothing would read as "nothing to pay for": these rules
name each one, the types it may launch and what bounds it, and refuse a budget that an
unbounded pool can break. Pools with a maximum are `scaling-maximum`'s (planned at what
they run now, priced at the maximum).
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Rule, RuleContext, rule

BATCH_COMPUTE_RESOURCE_DOC = "https://docs.aws.amazon.com/batch/latest/APIReference/API_ComputeResource.html"
KARPENTER_NODEPOOLS_DOC = "https://karpenter.sh/docs/concepts/nodepools/"


@rule(
    id="compute-unsized",
    severity="warning",
    category="readback",
    description=(
        "Compute read back from a program that will launch accelerated instances the estimate cannot count "
        "or price: a pool without limits (unbounded), SageMaker HyperPod instance groups or an AWS PCS group's "
        "interruptible capacity reservation (no price)."
    ),
    source=BATCH_COMPUTE_RESOURCE_DOC,
    remediation=(
        "Give the pool limits (Karpenter `spec.limits`, Batch `maxVcpus`, PCS `maxInstanceCount`), or price "
        "it yourself (the policy pack's `planner-budget` takes `hours` and `instances`)."
    ),
)
def compute_unsized(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    for u in ctx.cluster.unplanned:
        detail = f" ({u.detail})" if u.detail else ""
        types = ", ".join(u.instance_types) if u.instance_types else "instance types it chooses itself"
        if u.reason == "unsized":
            yield r.finding(
                ctx,
                u.path,
                f"{u.resource} may launch {types} with no maximum ({u.range}): unbounded, "
                f"so its cost has no ceiling and is not priced{detail}",
                fix=u.fix,
            )
        elif u.reason == "unpriced":
            why = u.unpriced_because or (
                "no SageMaker HyperPod price in planner's price book, so it is not priced (never at the EC2 price)"
            )
            yield r.finding(ctx, u.path, f"{u.resource} runs {u.detail or types}: {why}", fix=u.fix)


@rule(
    id="budget-unbounded-compute",
    severity="error",
    category="readback",
    description="A budget is declared but the program has compute without a maximum: no estimate can hold it to the budget.",
    source=KARPENTER_NODEPOOLS_DOC,
    remediation="Give every pool a maximum (Karpenter `spec.limits`, Batch `maxVcpus`, PCS `maxInstanceCount`).",
)
def budget_unbounded_compute(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    budget = ctx.cluster.budget
    # a budget that does not accept an incomplete estimate already fails on the unbounded pool (it is left
    # out of the total): this rule then stays quiet, so the problem is reported once
    if budget is None or not getattr(budget, "allow_incomplete", True):
        return
    for u in ctx.cluster.unplanned:
        if u.reason == "unsized":
            yield r.finding(
                ctx,
                u.path,
                f"{u.resource} may launch {', '.join(u.instance_types) or 'any type'} with no "
                "maximum: the budget cannot be shown to hold",
                fix=u.fix,
            )
