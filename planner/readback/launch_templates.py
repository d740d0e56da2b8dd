"""What a launch says, from an instance or its launch template: purchase, EFA and public IP, the capacity
reservation it targets, the launch interfaces, and where it launches (Availability Zones, placement groups).

Shared by every reader of fixed-size compute (`auto_scaling`, `eks_node_groups`, `ec2_instances`,
`pcs_node_groups`).
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import Struct

from planner.core.input.stack_files import RESOURCE_GROUP_ARN
from planner.core.model.cluster import LaunchInterface, Purchase, Volume
from planner.core.model.findings import Fix, outside
from planner.readback.compute_groups import ReadGroup
from planner.readback.resources import (
    EFA_INTERFACE_TYPES,
    LAUNCH_TEMPLATE,
    NETWORK_INTERFACE,
    PLACEMENT_GROUP,
    SUBNET,
    UNKNOWN,
    Graph,
    Resource,
    Violation,
    as_int,
    as_list,
    change,
    dig,
    known,
    truthy,
)

_RESERVATION = re.compile(r"cr-[0-9a-f]{8,17}")
_MARKETS: dict[str, Purchase] = {"capacity-block": "capacity-block", "spot": "spot"}
DEPLOY_TARGET = "deploy_target"  # launch values key: (model field, what it names) of a reference known at deploy


def template_of(graph: Graph, owner: Resource, spec: Any, prop: str) -> Resource | None:
    keys = ("id", "name", "launchTemplateId", "launchTemplateName", "templateId")  # templateId: a PCS group's
    values = [dig(spec, k) for k in keys]
    if not any(v is not None for v in values):
        return None
    hits = graph.resolve(owner, prop, [v for v in values if v is not None], LAUNCH_TEMPLATE)
    return hits[0] if hits else None


def launched_group(
    graph: Graph,
    r: Resource,
    template: Resource | None,
    itype: str,
    count: int,
    maximum: int | None,
    zones: list[str],
    gaps: list[Violation],
    volumes: tuple[Volume, ...],
    **more: Any,
) -> ReadGroup:
    """The node group of `count` instances of `itype` that `r` (an Auto Scaling, EKS or PCS group) launches from
    `template`: what the launch says and where it launches (`zones`, else its template's); each reader then adds
    what its own resource says (how it buys, where the type came from)."""
    zones, pgs, external = where_launched(graph, r, template, zones)
    values, sources, interfaces = launch_values(graph, template, None, gaps)
    return ReadGroup(
        r.name, itype, count, r, template, values, sources, pgs, zones, maximum, external, interfaces, volumes, **more
    )


def interface_subnets(graph: Graph, inst: Resource) -> list[Resource]:
    enis = attached_interfaces(graph, inst)
    return [s for e in enis for s in graph.resolve(e, "subnetId", [e.get("subnetId")], SUBNET)]


def attached_interfaces(graph: Graph, inst: Resource) -> list[Resource]:
    """The network interfaces attached to `inst` at launch (`networkInterfaces[].networkInterfaceId`)."""
    ids = [n.get("networkInterfaceId") for n in as_list(inst.get("networkInterfaces")) if isinstance(n, dict)]
    return graph.resolve(inst, "networkInterfaces", [i for i in ids if i is not None], NETWORK_INTERFACE) if ids else []


def launch_values(
    graph: Graph, template: Resource | None, inst: Resource | None, gaps: list[Violation] | None = None
) -> tuple[dict[str, Any], dict[str, Resource], tuple[LaunchInterface, ...] | None]:
    """purchase, efa, public_ip and capacity reservation from the instance, else its launch template;
    and the launch interfaces, each at its position in the `networkInterfaces` list that declares it."""
    values: dict[str, Any] = {}
    sources: dict[str, Resource] = {}
    layout: tuple[LaunchInterface, ...] | None = None
    for res in (template, inst):  # the instance's own settings override its template's
        if res is None:
            continue
        market = res.get("instanceMarketOptions", "marketType")
        if isinstance(market, str) and known(market):
            values["purchase"] = _MARKETS.get(market, "on-demand")
            sources["purchase"] = res
        declared = [(k, n) for k, n in enumerate(as_list(res.get("networkInterfaces"))) if isinstance(n, dict)]
        interfaces = [n for _, n in declared]
        if res.type == LAUNCH_TEMPLATE:
            layout = tuple(_card(k, n, n.get("interfaceType")) for k, n in declared)
            if any(truthy(n.get("associatePublicIpAddress")) for n in interfaces):
                values["public_ip"] = True
                sources["public_ip"] = res
        elif interfaces:  # an instance's interfaces are network interface resources attached at launch
            enis = attached_interfaces(graph, res)
            by_id = {ident: e for e in enis for ident in e.identifiers()}
            cards = []
            for j, (k, n) in enumerate(declared):
                ident = n.get("networkInterfaceId")
                eni = by_id.get(ident) if isinstance(ident, str) else None
                if eni is None and len(enis) == len(interfaces):  # ids unknown at preview: in declaration order
                    eni = enis[j]
                cards.append(_card(k, n, eni.get("interfaceType") if eni is not None else None, attached=True))
            layout = tuple(cards)
        if truthy(res.get("associatePublicIpAddress")):
            values["public_ip"] = True
            sources["public_ip"] = res
        for target in _TARGETS:
            _launch_target(graph, res, target, values, sources, gaps)
    # EFA as declared, never assumed: no EFA interface means no EFA
    values["efa"] = any(n.kind in EFA_INTERFACE_TYPES for n in layout or ())
    efa_source = template if template is not None and inst is None else (inst or template)
    if efa_source is not None:
        sources["efa"] = efa_source
    return values, {k: v for k, v in sources.items() if v is not None}, (layout or None)


class _Target(Struct, frozen=True):
    """Where a launch goes: one capacityReservationTarget property, its model key, the form AWS takes,
    and what to say when the value is wrong or only known at deploy."""

    prop: str
    key: str
    pattern: re.Pattern[str]
    what: str
    at_deploy: str  # said of a reference to another resource (`{res}`, `{ref}`)
    at_deploy_fix: str  # what to check, in words (the message names the resource)
    wrong: str  # said of a literal value AWS refuses (`{res}`, `{value}`)
    wrong_value: str  # what to write instead, in words (the property is `prop`)


_TARGETS = (
    _Target(
        "capacityReservationResourceGroupArn",
        "capacity_reservation_resource_group_arn",
        RESOURCE_GROUP_ARN,
        "resource group ARN",
        "'{res}' targets the capacity reservation resource group '{ref}', whose ARN is known only at deploy: its "
        "region and the reservations it holds are not checked",
        "check that the resource group is in the stack's region and holds the reservations the group launches into",
        "'{res}' targets capacity reservation resource group '{value}', which is not a resource group ARN: the "
        "launch would fail; planned without it",
        "arn:aws:resource-groups:REGION:ACCOUNT:group/NAME",
    ),
    _Target(
        "capacityReservationId",
        "capacity_reservation_id",
        _RESERVATION,
        "reservation id",
        "'{res}' targets capacity reservation '{ref}', whose id is known only at deploy: that it matches the "
        "group's type, AZ and size is not checked",
        "check that the capacity reservation matches the instance type, AZ and count of the group that targets it",
        "'{res}' targets capacity reservation '{value}', which is not a reservation id (cr- and 8 to 17 hex "
        "digits): the launch would fail; planned without it",
        "the reservation id (cr-...) of the booked block or reservation",
    ),
)


def _launch_target(
    graph: Graph,
    res: Resource,
    t: _Target,
    values: dict[str, Any],
    sources: dict[str, Resource],
    gaps: list[Violation] | None,
) -> None:
    """A capacity reservation target as declared. A value that is another resource's output (unknown at
    preview, or the made-up id or ARN of the mocks) is known only at deploy: a stated gap, never judged."""
    value = res.get("capacityReservationSpecification", "capacityReservationTarget", t.prop)
    if value is UNKNOWN or (isinstance(value, str) and graph.referenced(value) is not None):
        ref = graph.referenced(value)
        values[DEPLOY_TARGET] = (
            t.key,
            f"the {t.what} of '{ref.name}' (at deploy)" if ref else f"a {t.what} known at deploy",
        )
        sources[t.key] = res
        if gaps is not None:
            name = ref.name if ref else "another resource"
            gaps.append(
                Violation(
                    t.at_deploy.format(res=res.name, ref=name),
                    res.urn,
                    fix=outside("confirm", t.at_deploy_fix),
                )
            )
    elif isinstance(value, str) and value:
        if t.pattern.fullmatch(value):
            values[t.key] = value  # the parser checks a resource group's region
            sources[t.key] = res
        elif gaps is not None:
            prop = f"capacityReservationSpecification.capacityReservationTarget.{t.prop}"
            gaps.append(
                Violation(
                    t.wrong.format(res=res.name, value=value[:60]),
                    res.urn,
                    fix=Fix(edits=(change(res, prop, note=t.wrong_value),)),
                )
            )


def _card(position: int, n: dict[str, Any], kind: Any, attached: bool = False) -> LaunchInterface:
    """The interface at `position` of a `networkInterfaces` list (`kind`: its interfaceType, from the
    element itself or, `attached`, from the network interface resource attached there)."""
    return LaunchInterface(
        position,
        as_int(n.get("networkCardIndex")) or 0,
        as_int(n.get("deviceIndex")) or 0,
        kind if isinstance(kind, str) and known(kind) else "interface",
        attached,
    )


def where_launched(
    graph: Graph, owner: Resource, template: Resource | None, zones: list[str]
) -> tuple[list[str], list[Resource], str | None]:
    """AZs (the owner's, else its template's), placement groups (the owner's, else its
    template's), and the name of a placement group that is not a resource of the stack."""
    if not zones and template is not None:
        zones = _template_zones(graph, template)
    named = owner.get("placementGroup")
    pgs = graph.resolve(owner, "placementGroup", [named], PLACEMENT_GROUP)
    external = named if not pgs and isinstance(named, str) and known(named) and named else None
    if not pgs and external is None and template is not None:
        pgs = _template_placement(graph, template)
        name = template.get("placement", "groupName")
        if not pgs and isinstance(name, str) and known(name) and name:
            external = name
    return zones, pgs, external


def _template_zones(graph: Graph, template: Resource) -> list[str]:
    az = template.get("placement", "availabilityZone")
    if isinstance(az, str) and known(az) and az:
        return [az]
    subnets = [n.get("subnetId") for n in as_list(template.get("networkInterfaces")) if isinstance(n, dict)]
    return zones_of(graph.resolve(template, "networkInterfaces", [s for s in subnets if s is not None], SUBNET))


def _template_placement(graph: Graph, template: Resource) -> list[Resource]:
    name = template.get("placement", "groupName")
    return graph.resolve(template, "placement", [name], PLACEMENT_GROUP) if name is not None else []


def zones_of(subnets: list[Resource]) -> list[str]:
    zones = [s.get("availabilityZone") for s in subnets]
    return list(dict.fromkeys(z for z in zones if isinstance(z, str) and known(z)))
