"""Rules for clusters read back from a program's resources (`planner plan --program`, the policy pack).

A stack file states every value; a program's resources leave some unsaid or say more
than the model holds. These rules report what the read-back kept aside (instance types
not a type AWS lists, groups scaled to zero), what it could not see, the maximum a
group may scale to, and the shapes only resources can have (a group over several AZs,
the launch interfaces of a template). They never fire on a stack file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from planner.core.catalogue.instance_types import Catalogue, InstanceType
from planner.core.model.cluster import LaunchInterface, NodeGroup
from planner.core.model.findings import Finding, Severity
from planner.core.rules.spec_rules import (
    Edit,
    Fix,
    Rule,
    RuleContext,
    count_path,
    node_group_rule,
    rule,
    set_to,
)

AZ_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-regions-availability-zones.html"
ACCELERATED_DOC = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"
CAPACITY_LIMITS_DOC = "https://docs.aws.amazon.com/autoscaling/ec2/userguide/asg-capacity-limits.html"
PLACEMENT_STRATEGIES_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html"
EFA_ACC_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html"


@rule(
    id="readback-gap",
    severity="warning",
    category="readback",
    description="Something the read-back of a program's resources could not see, or had to assume (region, AZ, type, size).",
    source=AZ_DOC,
    remediation="Declare the value on the resource (or set `aws:region`; in the pack, its `region`/`availabilityZone` config).",
)
def readback_gap(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    yield from readback_notes(r, ctx)


def readback_notes(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """The read-back's notes that rule `r` reports (each note names its rule)."""
    for note in ctx.cluster.notes:
        if note.rule == r.id:
            yield r.finding(ctx, note.path, note.message, severity=note.severity, fix=note.fix)


@rule(
    id="scaling-size-refused",
    severity="error",
    category="readback",
    description=(
        "A scaling group whose sizes AWS refuses at creation: minimum above desired, desired above maximum, "
        "or minimum above maximum (EC2 Auto Scaling, EKS managed node groups); a warning for an AWS Batch or AWS PCS "
        "minimum above its maximum, which their API references call bounds without saying creation fails."
    ),
    source="https://docs.aws.amazon.com/eks/latest/APIReference/API_NodegroupScalingConfig.html",
    remediation="Keep minimum <= desired <= maximum on the resource.",
)
def scaling_size_refused(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    yield from readback_notes(r, ctx)


@rule(
    id="instance-type-unlisted",
    severity="warning",
    category="readback",
    description=(
        "Accelerated instances of a type AWS does not list (not in the DescribeInstanceTypes data planner "
        "ships): kept, counted, but not planned or priced."
    ),
    source=ACCELERATED_DOC,
    remediation="Use a type AWS lists (`planner catalog --all`), or check and price this type yourself.",
)
def instance_type_unlisted(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    for u in ctx.cluster.unplanned:
        if u.reason != "unlisted":
            continue
        detail = f" ({u.detail})" if u.detail else ""
        if u.count == 0 and u.maximum is None:  # a pool that launches on demand (Karpenter)
            yield r.finding(
                ctx,
                u.path,
                f"{u.resource} may launch {', '.join(u.instance_types)} ({u.range}), not a type "
                f"AWS lists: not planned or priced{detail}",
                fix=u.fix,
            )
            continue
        size = f"{u.count} instance(s)" if u.count is not None else "an unknown number of instances"
        span = f", scaling {u.range}" if u.range and u.maximum is not None else ""
        yield r.finding(
            ctx,
            u.path,
            f"{u.resource}: {size} of {', '.join(u.instance_types)}{span}, not a type "
            f"AWS lists: not planned or priced{detail}",
            fix=u.fix,
        )


@rule(
    id="scaling-maximum",
    severity="info",
    category="readback",
    description=(
        "Compute that may grow past what it runs now: an Auto Scaling or EKS node group's maximum size (or one "
        "scaled to zero now), a Karpenter pool's limits, AWS Batch maxvCpus, AWS PCS maxInstanceCount; "
        "with the cost at that maximum."
    ),
    source=CAPACITY_LIMITS_DOC,
    remediation="Budget for the maximum, or lower the maximum (`maxSize`, `spec.limits`, `maxvCpus`) to what you mean to pay for.",
)
def scaling_maximum(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    prices = {}
    if ctx.cost is not None:
        prices = {i.name: i.unit_price_usd for i in ctx.cost.line_items}
    at_most: dict[tuple[Any, ...], list[Any]] = {}  # per unplanned entry: its instance line items at the maximum
    for i in ctx.cost.maximum.line_items if ctx.cost is not None and ctx.cost.maximum else ():
        if i.path[-1:] == ("instance_type",) and i.path[-3:-2] == ("maximum",):
            at_most.setdefault(i.path[:-3], []).append(i)
    for g in ctx.cluster.node_groups:
        if g.max_count is None or g.max_count <= g.count:
            continue
        unit = prices.get(g.name)
        cost = f" (${g.max_count * unit:,.2f}/h at the maximum)" if unit is not None else " (no price for it)"
        extra = f" (${(g.max_count - g.count) * unit:,.2f}/h more)" if unit is not None else ""
        yield r.finding(
            ctx,
            count_path(g),
            f"node group '{g.name}' is planned at the {g.count} instance(s) it starts with but "
            f"may scale to {g.max_count} {g.instance_type}{cost}",
            fix=Fix(
                f"budget for {g.max_count} instances{extra}",
                alternatives=(set_to(ctx, g.path + ("max_count",), g.count, "if it is not meant to grow"),),
            ),
        )
    for u in ctx.cluster.unplanned:
        items = at_most.get(u.path, [])
        mix = " + ".join(f"{i.detail.get('instances'):,} {i.detail.get('instance_type')}" for i in items)
        cost = (
            ""
            if not items
            else (
                f" (${sum(i.hourly_usd for i in items):,.2f}/h at the maximum: {mix})"
                if all(i.hourly_usd is not None for i in items)
                else " (no price for it)"
            )
        )
        if u.reason == "scaled-to-zero":
            most = f"may scale to {u.maximum}" if u.maximum is not None else "has no known maximum"
            yield r.finding(
                ctx,
                u.path,
                f"{u.resource} has a desired size of 0 (planned at 0 instances) and {most} "
                f"{', '.join(u.instance_types)}{cost}",
                fix=u.fix,
            )
        elif u.reason == "elastic":
            yield r.finding(
                ctx,
                u.path,
                f"{u.resource} launches {', '.join(u.instance_types)} on demand (planned at "
                f"{u.count or 0} now): {u.detail}{cost}",
                fix=u.fix,
            )


@rule(
    id="node-group-multi-az",
    severity="error",
    category="readback",
    description=(
        "A node group whose subnets span several AZs while it uses a cluster placement group (one AZ) "
        "or EFA (which does not cross AZs)."
    ),
    source=PLACEMENT_STRATEGIES_DOC,
    remediation="Give the group subnets of one AZ only (the AZ of its placement group, reservation or Capacity Block).",
)
def node_group_multi_az(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    c = ctx.cluster
    for g in c.node_groups:
        if len(g.zones) < 2:
            continue
        zones = ", ".join(g.zones)
        others = ", ".join(z for z in g.zones if z != g.availability_zone)
        fix = Fix(edits=(set_to(ctx, g.path + ("zones",), (g.availability_zone,), f"drop those in {others}"),))
        if c.placement == "cluster" and g.in_placement_group is not False:
            yield r.finding(
                ctx,
                g.path + ("availability_zone",),
                f"node group '{g.name}' may launch in {zones} but uses a cluster placement group, which lies "
                "in one AZ: launches (and scaling or instance refreshes) in the other AZs fail",
                fix=fix,
            )
        elif g.efa and ctx.catalogue.spec(g.instance_type).efa_supported:
            yield r.finding(
                ctx,
                g.path + ("availability_zone",),
                f"node group '{g.name}' may launch in {zones}: EFA traffic does not cross AZs, so its "
                "instances in different AZs cannot reach each other over EFA",
                fix=fix,
            )


@node_group_rule(
    id="efa-interface-layout",
    severity="error",
    category="readback",
    description=(
        "Launch interfaces with EFA whose primary interface (card 0, device 0) is `efa-only`, or on a network "
        "card the type does not have (errors); fewer EFA interfaces than AWS recommends for the type's full "
        "bandwidth, or two on one card (warnings)."
    ),
    source=EFA_ACC_DOC,
    remediation=(
        "Make the primary interface (card 0, device 0) `efa` or ENA; for full bandwidth AWS recommends one EFA "
        "interface per EFA-capable network card, up to the type's EFA interface limit."
    ),
)
def efa_interface_layout(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    """AWS's one hard rule: "You can't use an EFA-only network interface as the primary network
    interface." The per-card layout is what AWS "recommend[s]" for bandwidth: warnings. Each fix
    names the elements of the resource's `networkInterfaces` list to change, by their position."""
    if g.interfaces is None:
        return
    # the resource that declares the list (a launch template's, or an instance's attached interfaces)
    urn = ctx.stack.resources.get(g.path + ("interfaces",)) or ""
    checks: tuple[tuple[Severity, Any], ...] = (("error", layout_problems), ("warning", layout_advice))
    for severity, found in checks:
        for message, fix in found(g.instance_type, g.interfaces, ctx.catalogue, urn):
            yield r.finding(
                ctx,
                g.path + ("interfaces",),
                f"node group '{g.name}': {message}",
                severity=severity,
                fix=fix if urn else None,
            )


def _efa(
    itype: str, interfaces: tuple[LaunchInterface, ...], catalogue: Catalogue
) -> tuple[InstanceType | None, list[LaunchInterface]]:
    spec = catalogue.get(itype)
    efa = [n for n in interfaces if n.kind in ("efa", "efa-only")]
    return (None, []) if spec is None or not efa else (spec, efa)


NICS = "networkInterfaces"  # the list property, as the engine names it, of a launch template and an instance


def _removed(urn: str, interfaces: list[LaunchInterface], note: str) -> tuple[Edit, ...]:
    """The edits that remove `interfaces` from the resource's list, the last position first (so that each
    edit's position still names the element when applied in order), `note` said after the last."""
    ordered = sorted(interfaces, key=lambda n: -n.position)
    return tuple(Edit((NICS, n.position), "remove", None, note if n is ordered[-1] else "", urn) for n in ordered)


def layout_problems(
    itype: str, interfaces: tuple[LaunchInterface, ...], catalogue: Catalogue, urn: str = ""
) -> list[tuple[str, Fix]]:
    """What EC2 refuses in the launch interfaces on `itype` (an efa-only primary, a card the type
    lacks), and the fix: edits of the list of resource `urn`, by position; [] when fine or without EFA."""
    spec, efa = _efa(itype, interfaces, catalogue)
    if spec is None:
        return []
    out = []
    cards = Counter(n.card for n in efa)
    beyond = sorted(c for c in cards if spec.network_cards is not None and c >= spec.network_cards)
    if beyond and spec.network_cards is not None:
        on = [n for n in interfaces if n.card in beyond]
        out.append(
            (
                f"networkCardIndex {ranges(beyond)} does not exist on {itype} (cards 0-{spec.network_cards - 1})",
                Fix(
                    edits=_removed(
                        urn, on, f"network_card_index {ranges(beyond)}; {itype} has cards 0-{spec.network_cards - 1}"
                    )
                ),
            )
        )
    primary = [n for n in interfaces if n.card == 0 and n.device == 0 and n.kind == "efa-only"]
    if primary:
        first = primary[0]
        at = "network_card_index 0, device_index 0"
        if first.attached:  # the type is the attached network interface resource's: named by where it is attached
            to_efa = Edit(
                (NICS, first.position), "set", None, f"a network interface of interface_type 'efa' ({at})", urn
            )
            ena = Edit((NICS, first.position), "set", None, "an ENA network interface", urn)
        else:
            to_efa = Edit((NICS, first.position, "interfaceType"), "set", "efa", at, urn)
            ena = Edit((NICS, first.position, "interfaceType"), "set", "interface", "an ENA interface", urn)
        out.append(
            (
                "the primary interface (networkCardIndex 0, deviceIndex 0) is 'efa-only'; AWS: \"You can't use an "
                'EFA-only network interface as the primary network interface"',
                Fix(edits=(to_efa,), alternatives=(ena,)),
            )
        )
    return out


def layout_advice(
    itype: str, interfaces: tuple[LaunchInterface, ...], catalogue: Catalogue, urn: str = ""
) -> list[tuple[str, Fix]]:
    """Where the layout departs from the one AWS recommends for full bandwidth (one EFA interface per
    EFA-capable card, up to the type's limit), and the fix: edits of the list of resource `urn`; [] when it
    matches, without EFA or for a type whose cards are not published."""
    spec, efa = _efa(itype, interfaces, catalogue)
    if spec is None or not spec.efa_cards:
        return []
    out = []
    cards = Counter(n.card for n in efa)
    wanted = spec.efa_cards
    missing = [c for c in wanted if cards[c] == 0]
    if missing:
        note = (
            f"{len(missing)} network interface(s) with interface_type 'efa-only' (or 'efa'), one on each "
            f"network_card_index {ranges(missing)}"
        )
        out.append(
            (
                f"{itype} takes {len(wanted)} EFA interfaces (network cards {ranges(list(wanted))}) but has them on "
                f"{len(wanted) - len(missing)} (missing card(s) {ranges(missing)}); AWS recommends one per card for "
                f"the type's full {spec.network_bandwidth_gbps:,} Gbps",
                Fix(edits=(Edit((NICS,), "add", None, note, urn),)),
            )
        )
    doubled = sorted(c for c, n in cards.items() if n > 1 and c in wanted)
    if doubled:
        kept = {c: next(n for n in efa if n.card == c) for c in doubled}  # the first declared on each card
        extra = [n for n in efa if n.card in kept and n != kept[n.card]]
        keep = ", ".join(f"network_interfaces[{n.position}]" for n in kept.values())
        out.append(
            (
                f"more than one EFA interface on network card(s) {ranges(doubled)}; AWS recommends one per card",
                Fix(
                    edits=_removed(
                        urn, extra, f"keep one EFA interface on network_card_index {ranges(doubled)}: {keep}"
                    )
                ),
            )
        )
    return out


def ranges(numbers: list[int]) -> str:
    """[4, 5, 6, 9] -> '4-6, 9'."""
    out: list[str] = []
    start: int | None = None
    prev: int | None = None
    for n in [*sorted(numbers), None]:
        if start is not None and prev is not None and (n is None or n != prev + 1):
            out.append(str(start) if start == prev else f"{start}-{prev}")
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return ", ".join(out)
