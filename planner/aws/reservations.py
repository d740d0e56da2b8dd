"""Does the declared capacity reservation exist, and is it the capacity the node group needs?

A Capacity Block is delivered as a targeted capacity reservation (ReservationType
"capacity-block") in one Availability Zone, for one instance type and a number of
instances; an instance cannot launch into it from another zone, type or market. moto does
not implement capacity reservations, so this check is tested against botocore's Stubber.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from typing import Any

from planner.aws.checks import Preflight, aws_error, check, zone_path
from planner.aws.errors import AwsCallError
from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.model.cluster import NodeGroup
from planner.core.model.findings import Finding, Outside
from planner.core.rules import Rule, RuleContext
from planner.core.rules.spec_rules import Fix, outside, remove, set_to, shrink

USABLE = ("active", "scheduled", "pending", "assessing", "delayed")
LINUX = "Linux/UNIX"


@check("preflight-reservation")
def reservation(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    account, region = ctx.option(Preflight).asked()
    users: dict[str, list[NodeGroup]] = {}
    several: dict[str, tuple[NodeGroup, int]] = {}  # an id of a group that names several (one per UltraServer)
    for g in ctx.cluster.node_groups:
        for k, rid in enumerate(g.capacity_reservation_ids):
            if len(g.capacity_reservation_ids) == 1:
                users.setdefault(rid, []).append(g)
            else:
                several[rid] = (g, k)
    for rid in dict.fromkeys([*users, *several]):
        groups = users.get(rid) or [several[rid][0]]
        g = groups[0]
        where = g.path + (
            ("capacity_reservation_id", several[rid][1]) if rid not in users else ("capacity_reservation_id",)
        )
        try:
            cr = account.reservation(region, rid)
        except AwsCallError as err:
            yield aws_error(ctx, where, err, f"capacity reservation {rid}")
            continue
        if cr is None:
            kind = "the id of the Capacity Block" if g.purchase == "capacity-block" else "the id of a reservation"
            yield r.finding(
                ctx,
                where,
                f"node group '{g.name}': capacity reservation {rid} does not exist in {region} "
                "(or is not shared with this account)",
                fix=outside(
                    "purchase",
                    f"name {kind} booked for {g.instance_type} in {g.availability_zone} as the capacity "
                    f"reservation of node group '{g.name}' (aws ec2 describe-capacity-reservations --region {region})",
                ),
            )
            continue
        # a group that names one reservation per UltraServer: how AWS splits a block's instances across
        # reservations is not documented, so each id is checked for what it is, not for a size
        yield from _compare(r, ctx, cr, groups, rid, where, sized=rid in users)


def _compare(
    r: Rule,
    ctx: RuleContext,
    cr: dict[str, Any],
    groups: list[NodeGroup],
    declared: str,
    where: tuple[Any, ...],
    sized: bool = True,
) -> Iterator[Finding]:
    rid = cr.get("CapacityReservationId", declared)
    kind = cr.get("ReservationType", "default")
    state = cr.get("State", "unknown")
    for g in groups:
        if sized:  # several groups may share one reservation
            where = g.path + ("capacity_reservation_id",)
        label = f"node group '{g.name}': {rid}"
        if g.purchase == "capacity-block" and kind != "capacity-block":
            yield r.finding(
                ctx,
                where,
                f"{label} is an On-Demand Capacity Reservation (ReservationType {kind}), not a "
                "Capacity Block; declare the block's id, or purchase: on-demand",
                fix=Fix(
                    "or name the Capacity Block's reservation id instead",
                    (set_to(ctx, g.path + ("purchase",), "on-demand", f"to use {rid}"),),
                ),
            )
        elif g.purchase != "capacity-block" and kind == "capacity-block":
            yield r.finding(
                ctx,
                where,
                f"{label} is a Capacity Block; instances launch into it only with purchase: capacity-block",
                fix=Fix(
                    edits=(set_to(ctx, g.path + ("purchase",), "capacity-block"),),
                    alternatives=(remove(ctx, g.path + ("capacity_reservation_ids",), note=f"to buy {g.purchase}"),),
                ),
            )
        if cr.get("InstanceType") and cr["InstanceType"] != g.instance_type:
            yield r.finding(
                ctx,
                where,
                f"{label} reserves {cr['InstanceType']}, the group declares {g.instance_type}",
                fix=Fix(
                    f"or name a reservation of {g.instance_type}",
                    (set_to(ctx, g.path + ("instance_type",), str(cr["InstanceType"]), f"what {rid} reserves"),),
                ),
            )
        if cr.get("AvailabilityZone") and cr["AvailabilityZone"] != g.availability_zone:
            yield r.finding(
                ctx,
                where,
                f"{label} is in {cr['AvailabilityZone']}, the group is in {g.availability_zone}; "
                "instances cannot launch into a reservation from another zone",
                fix=Fix(
                    f"or name a reservation in {g.availability_zone}",
                    (set_to(ctx, zone_path(g, ctx), str(cr["AvailabilityZone"]), f"that of {rid}"),),
                ),
            )
        platform = cr.get("InstancePlatform")
        if platform and platform != LINUX:
            yield r.finding(
                ctx,
                where,
                f"{label} is for {platform}; planner plans and prices Linux/UNIX instances",
                severity="warning",
                fix=outside("purchase", f"name a {LINUX} reservation for node group '{g.name}' ({rid} is {platform})"),
            )
    g = groups[0]
    if sized:
        where = g.path + ("capacity_reservation_id",)
    if state not in USABLE:
        fix = (
            Fix(
                f"book a new Capacity Block of {sum(x.count for x in groups)} x {g.instance_type} in "
                f"{g.availability_zone} first",
                (set_to(ctx, g.path + ("capacity_reservation_ids",), ("cr-...",), "the new block's reservation id"),),
            )
            if kind == "capacity-block"
            else Fix(
                f"or name an active reservation of {g.instance_type} in {g.availability_zone}",
                (remove(ctx, g.path + ("capacity_reservation_ids",)),),
            )
        )
        yield r.finding(ctx, where, f"capacity reservation {rid} is {state}; instances cannot launch into it", fix=fix)
        return
    if not sized:
        return
    need = sum(x.count for x in groups)
    names = ", ".join(f"'{x.name}'" for x in groups)
    total = _count(cr.get("TotalInstanceCount"))  # an answer is untrusted input: no count is better than a wrong one
    available = _count(cr.get("AvailableInstanceCount"))
    if total is not None and total < need:
        yield r.finding(
            ctx,
            where,
            f"capacity reservation {rid} holds {total} instances; node group(s) {names} declare {need}",
            fix=_size_fix(
                ctx,
                groups,
                total,
                f"what {rid} holds",
                f"declare a reservation of at least {need} instances",
                "purchase",
            ),
        )
    elif available is not None and available < need and state == "active":
        yield r.finding(
            ctx,
            where,
            f"capacity reservation {rid} has {available} of {total} instances available now "
            f"(the rest are running); node group(s) {names} declare {need}",
            severity="warning",
            fix=_size_fix(
                ctx,
                groups,
                available,
                f"what {rid} has free",
                f"stop {need - available} of the instances running in it before deploying",
                "account",
            ),
        )
    hours = _hours(cr.get("StartDate"), cr.get("EndDate"))
    schedule = ctx.cluster.schedule
    if kind == "capacity-block" and hours is not None and schedule is not None and hours < schedule.hours:
        yield r.finding(
            ctx,
            where,
            f"Capacity Block {rid} lasts {hours:,.1f} h; the schedule declares {schedule.hours:,.0f} h "
            "(instances are terminated from 30 minutes before the block ends)",
            severity="warning",
            fix=_hours_fix(ctx, hours, schedule.hours),
        )


def _size_fix(ctx: RuleContext, groups: list[NodeGroup], fits: int, why: str, other: str, kind: Outside) -> Fix:
    """Shrink the groups to what the reservation offers (each in its own unit: count or ultraservers), or
    `other` (what else would do, in words: an action of `kind` outside the stack)."""
    if len(groups) > 1:
        fewer = shrink(ctx, groups, lambda g: 1, fits, f"{fits} instances in all, {why}")
        return outside(kind, f"or {other}" if fewer else other, fewer)
    g = groups[0]
    ultra = ctx.catalogue.ultraserver_of(g)
    size = ultra.members if ultra else None
    if g.ultraservers is not None and size:
        if fits // size < 1:
            return outside(kind, other)
        note = f"{fits // size * size} instances, {why}"
        return outside(kind, f"or {other}", (set_to(ctx, g.path + ("ultraservers",), fits // size, note),))
    if fits < 1:
        return outside(kind, other)
    return outside(kind, f"or {other}", (set_to(ctx, g.path + ("count",), fits, why),))


def _hours_fix(ctx: RuleContext, block: float, declared: float) -> Fix:
    """Run for the block's length, or book one long enough (the next bookable duration)."""
    fit = math.floor(block)
    longer = blocks.round_up_to_block(declared)
    book = (
        f"book a block of at least {blocks.describe(longer)}"
        if longer is not None
        else f"book consecutive blocks for {declared:,.0f} h"
    )
    return Fix(f"or {book}", (set_to(ctx, ctx.cluster.path + ("schedule", "hours"), fit, "the block's length"),))


def _count(value: Any) -> int | None:
    """An instance count AWS sent: a whole number from 0 to 1,000,000, else None (not known)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1_000_000 else None


def _hours(start: Any, end: Any) -> float | None:
    """A reservation's length from the dates AWS sent; None unless positive and at most a year (no block is longer)."""
    if isinstance(start, dt.datetime) and isinstance(end, dt.datetime):
        try:
            hours = (end - start).total_seconds() / 3600.0
        except TypeError:  # one date aware, the other naive: not AWS's answer
            return None
        return hours if 0 < hours <= 24 * 366 else None
    return None
