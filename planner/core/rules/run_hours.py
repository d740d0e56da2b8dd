"""The run the workload needs: a schedule shorter than the training job is a plan that cannot finish.

Hours = 6 x parameters x tokens / (accelerators x dense peak x MFU x 3600): the training
FLOPs estimate of Kaplan et al. ("Scaling Laws for Neural Language Models",
arXiv:2001.08361, section 2.1: C ~ 6 N D). When the declared workload needs more hours than
`schedule.hours`, the cluster would be released (or the Capacity Block would end) before the
job finishes; the cost estimate then also prices the workload's hours and the budget is
checked against them (`planner.core.cost.estimate`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Fix, Rule, RuleContext, rule, set_to

KAPLAN = "https://arxiv.org/abs/2001.08361"
ERROR_RATIO = 2.0  # more than twice the schedule: an error, not a margin to argue about


@rule(
    id="workload-exceeds-schedule",
    severity="warning",
    category="schedule",
    description=(
        f"The declared workload (6 x parameters x tokens at the MFU, or its model's predicted step) needs more hours than `schedule.hours`; "
        f"an error beyond {ERROR_RATIO:g}x."
    ),
    source=KAPLAN,
    remediation="Raise `schedule.hours` to the hours the workload needs, add instances, or train on fewer tokens.",
)
def workload_exceeds_schedule(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    sched = ctx.cluster.schedule
    if sched is None or ctx.cluster.workload is None:
        return
    from planner.core.cost.estimate import workload_hours

    need = workload_hours(ctx.cluster, ctx.catalogue)
    block = any(g.purchase == "capacity-block" for g in ctx.cluster.node_groups)
    booked = blocks.block_for_run(sched.hours) if block else None
    # on a Capacity Block, instances stop 30 minutes before the block ends (blocks.usable_hours)
    have = min(sched.hours, blocks.usable_hours(booked)) if booked is not None else sched.hours
    if need is None or need <= have:
        return
    ratio = need / sched.hours
    up = blocks.block_for_run(need) if block else None
    hours = sched.path + ("hours",)
    if up is not None:
        longer = set_to(
            ctx,
            hours,
            up,
            f"a {up // blocks.HOURS_PER_DAY}-day ({up:,} h) Capacity Block: instances run {blocks.usable_hours(up):,.1f} h "
            f"of it, enough for the {need:,.1f} h the workload needs",
        )
    elif block:
        longer = set_to(ctx, hours, math.ceil(need), "longer than the longest Capacity Block: book consecutive blocks")
    else:
        longer = set_to(ctx, hours, math.ceil(need), "the hours the workload needs")
    fix = Fix("or train on fewer tokens", (longer,))
    within = "" if have == sched.hours else f", of which instances run {have:,.1f} h on its Capacity Block"
    yield r.finding(
        ctx,
        sched.path + ("hours",),
        f"the workload needs {need:,.1f} h {_basis(ctx)} ({ratio:,.1f}x schedule.hours {sched.hours:,.1f} h{within}): "
        "the cluster is released before the job finishes; the estimate on the workload's hours is what the job costs",
        severity="error" if ratio > ERROR_RATIO else None,
        fix=fix,
    )


def _basis(ctx: RuleContext) -> str:
    w = ctx.cluster.workload
    if w is not None and w.predicted:
        return "as its model's step is predicted on this cluster (docs/runtime-model.md)"
    return "at the declared MFU"
