"""AWS PCS compute node groups into node groups: their static instances planned, the rest up to their maximum as
compute that sizes itself (`elastic_compute.pcs_pool`), bought as `purchaseOption` says.
"""

from __future__ import annotations

from typing import Any

from planner.core.model.cluster import Purchase, Unplanned
from planner.core.model.findings import Fix, outside
from planner.readback.block_devices import launch_volumes
from planner.readback.compute_groups import ACCELERATED, ReadGroup, pick_type, refused_fix
from planner.readback.elastic_compute import PCS_KIND, PCS_TYPES, pcs_pool, template_volumes
from planner.readback.launch_templates import launched_group, template_of, zones_of
from planner.readback.resources import SUBNET, UNKNOWN, Graph, Resource, Violation, as_int, as_list, change, dig, known

# AWS PCS CreateComputeNodeGroup `purchaseOption` ("If you don't provide this option, it defaults to On-Demand"):
# https://docs.aws.amazon.com/pcs/latest/APIReference/API_CreateComputeNodeGroup.html; botocore 1.44's PCS model
# also lists INTERRUPTIBLE_CAPACITY_RESERVATION, which planner has no price for
PCS_PURCHASE_DOC = "https://docs.aws.amazon.com/pcs/latest/APIReference/API_CreateComputeNodeGroup.html"
_PCS_PURCHASE: dict[str, Purchase] = {"ONDEMAND": "on-demand", "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}
# "Your launch template must include: The value MarketType of InstanceMarketOptions must be set to capacity-block
# [and] A CapacityReservationSpecification with a valid CapacityReservationId ... Set the purchaseOption of the
# compute node group to CAPACITY_BLOCK. The maxInstanceCount of the compute node group must not exceed the size of
# the Capacity Block." (AWS PCS User Guide, Configure an AWS PCS compute node group to use a Capacity Block)
PCS_CAPACITY_BLOCK_DOC = "https://docs.aws.amazon.com/pcs/latest/userguide/capacity-blocks-configure-cng.html"


def pcs_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[ReadGroup]:
    """AWS PCS compute node groups, as AWS PCS reads them: `minInstanceCount` static instances (planned) and up
    to `maxInstanceCount` (the maximum: PCS launches the instances between them as jobs arrive, "AWS PCS uses
    job-level scaling to manage the dynamic capacity of your cluster (the instances between the minimum and
    maximum counts you set on a compute node group)", https://docs.aws.amazon.com/pcs/latest/userguide/scaling-job-level.html),
    bought as `purchaseOption` says, in the subnets' AZ (a Local Zone too), launched from `customLaunchTemplate`
    (its reservation, interfaces, placement group and volumes). A group without static instances runs none until
    jobs arrive: compute that sizes itself (`elastic_compute.pcs_pool`)."""
    groups = []
    for r in graph.resources:
        if r.type not in PCS_TYPES:
            continue
        spec = r.get("customLaunchTemplate")
        template = template_of(graph, r, spec, "customLaunchTemplate")
        sc = r.get("scalingConfiguration") or {}
        lo, hi = as_int(dig(sc, "minInstanceCount")), as_int(dig(sc, "maxInstanceCount"))
        purchase = _pcs_purchase(r, template, gaps)
        if purchase is None:
            _pcs_unpriced(r, cat, lo, hi, unplanned)
            continue
        if not lo:  # no static instances (or a minimum unknown at preview): launched as jobs arrive
            pcs_pool(graph, r, cat, unplanned, purchase, _pcs_target(template))
            _pcs_refused(r, lo, hi, gaps)
            continue
        types = [dig(i, "instanceType") for i in as_list(r.get("instanceConfigs"))]
        types_at = (r, "instanceConfigs[].instanceType")
        itype = pick_type([t for t in types if t is not None], cat, r, gaps, unplanned, PCS_KIND, lo, lo, hi, types_at)
        if itype is None:
            continue
        _pcs_refused(r, lo, hi, gaps)
        zones = zones_of(graph.resolve(r, "subnetIds", as_list(r.get("subnetIds")), SUBNET))
        volumes = template_volumes(graph, r, spec, "customLaunchTemplate")
        if volumes is None:  # no launch template: the AMI's
            volumes = launch_volumes(None)
        group = launched_group(graph, r, template, itype, lo, hi, zones, gaps, volumes, grows_with_jobs=True)
        group.values["purchase"], group.sources["purchase"] = purchase, r
        group.sources["instance_type"] = r
        groups.append(group)
    return groups


def _pcs_refused(r: Resource, lo: int | None, hi: int | None, gaps: list[Violation]) -> None:
    """A minimum above the maximum: a warning. The PCS API reference (ScalingConfigurationRequest) calls
    minInstanceCount "The lower bound of the number of instances allowed in the compute fleet" and maxInstanceCount
    "The upper bound [...]"; it does not say that creation fails (planner/data/rule_sources.yaml)."""
    if lo is None or hi is None or lo <= hi:
        return
    least, most = "scalingConfiguration.minInstanceCount", "scalingConfiguration.maxInstanceCount"
    gaps.append(
        Violation(
            f"{PCS_KIND} '{r.name}' has {least} {lo} above {most} {hi}: the PCS API reference calls them the lower "
            "and upper bounds of the number of instances allowed in the compute fleet",
            r.urn,
            fix=refused_fix(r, (least, hi), (most, lo)),
            rule="scaling-size-refused",
            severity="warning",
        )
    )


def _pcs_purchase(r: Resource, template: Resource | None, gaps: list[Violation]) -> Purchase | None:
    """How a PCS group's instances are bought: its `purchaseOption` (On-Demand when not given), with a gap when
    its launch template's market type disagrees (a Capacity Block needs both); None: an interruptible capacity
    reservation, which planner has no price for."""
    what = f"{PCS_KIND} '{r.name}'"
    option = r.get("purchaseOption")
    market = template.get("instanceMarketOptions", "marketType") if template is not None else None
    if option == "INTERRUPTIBLE_CAPACITY_RESERVATION":
        return None  # no price: `_pcs_unpriced`
    if option is None:
        purchase: Purchase = "on-demand"  # the API's default
    elif isinstance(option, str) and option in _PCS_PURCHASE:
        purchase = _PCS_PURCHASE[option]
    else:
        shown = "unknown during preview" if not known(option) else f"'{str(option)[:40]}', not one AWS PCS takes"
        gaps.append(
            Violation(
                f"cannot tell how {what} buys its instances (purchaseOption {shown}); planned on demand, the "
                f"API's default ({PCS_PURCHASE_DOC})",
                r.urn,
                fix=Fix(edits=(change(r, "purchaseOption", note="ONDEMAND, SPOT or CAPACITY_BLOCK, as a literal"),)),
            )
        )
        purchase = "on-demand"
    if template is not None and market is not UNKNOWN:  # None: no market type (on demand)
        block_market = market == "capacity-block"
        if (purchase == "capacity-block") != block_market:
            said = f"market type '{market}'" if isinstance(market, str) else "no market type"
            gaps.append(
                Violation(
                    f"{what} has purchaseOption {option or 'ONDEMAND (the default)'} but its launch template "
                    f"'{template.name}' has {said}: AWS PCS launches a Capacity Block group only with both "
                    f"purchaseOption CAPACITY_BLOCK and market type capacity-block ({PCS_CAPACITY_BLOCK_DOC}); "
                    f"planned as purchaseOption says",
                    r.urn,
                    fix=Fix(
                        edits=(
                            change(r, "purchaseOption", "CAPACITY_BLOCK")
                            if block_market
                            else change(
                                template,
                                "instanceMarketOptions.marketType",
                                "capacity-block",
                                "with the block's capacity reservation id",
                            ),
                        )
                    ),
                )
            )
    return purchase


def _pcs_unpriced(
    r: Resource, cat: Any, lo: int | None, hi: int | None, unplanned: list[tuple[Unplanned, str | None]]
) -> None:
    """A PCS group bought as an interruptible capacity reservation: counted, named, never priced."""
    types = [t for t in (dig(i, "instanceType") for i in as_list(r.get("instanceConfigs"))) if isinstance(t, str)]
    accelerated = [t for t in types if cat.lists(t) or ACCELERATED.match(t)]
    if not accelerated:
        return
    what = f"{PCS_KIND} '{r.name}'"
    rng = f"{lo if lo is not None else '?'}-{hi if hi is not None else '?'} instances"
    unplanned.append(
        (
            Unplanned(
                what,
                "unpriced",
                tuple(accelerated),
                lo,
                lo,
                hi,
                rng,
                name=r.name,
                detail=f"{rng} of {', '.join(accelerated)} (purchaseOption INTERRUPTIBLE_CAPACITY_RESERVATION)",
                unpriced_because="planner has no price for interruptible capacity reservations, so it is not priced",
                fix=outside("price", "price it yourself: planner does not price it at the On-Demand rate"),
            ),
            r.urn,
        )
    )


def _pcs_target(template: Resource | None) -> str:
    """The reservation a PCS group's launch template targets, in words ("" when none)."""
    if template is None:
        return ""
    rid = template.get("capacityReservationSpecification", "capacityReservationTarget", "capacityReservationId")
    arn = template.get(
        "capacityReservationSpecification", "capacityReservationTarget", "capacityReservationResourceGroupArn"
    )
    if isinstance(rid, str) and known(rid) and rid:
        return f"launch template '{template.name}' targets capacity reservation {rid}"
    if isinstance(arn, str) and known(arn) and arn:
        return f"launch template '{template.name}' targets capacity reservation resource group {arn}"
    return ""
