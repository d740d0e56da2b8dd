"""Compute that sizes itself, read back as a range: what it runs now and the most it allows.

AWS Batch compute environments scale between `minvCpus` and `maxvCpus` as jobs arrive;
Karpenter NodePools launch what pending pods ask for, up to `spec.limits`; an AWS PCS compute
node group without static instances (`minInstanceCount` 0) launches up to `maxInstanceCount`
as jobs arrive (`pcs_pool`; one with static instances is a node group, read by
`planner.readback.pcs_node_groups`). Each becomes an `Unplanned`
entry with the catalogue types it may launch and, per type, the most instances it may run
at once (`maxima`), so the estimate can price its maximum; without a maximum it is
`unsized` (unbounded). SageMaker HyperPod instance groups have a fixed `InstanceCount`,
but are sold by SageMaker: counted, never priced as EC2 (`unpriced`).

Gaps are returned as keyword dicts for `planner.readback.resources.Violation`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from planner.core.model.cluster import Purchase, Unplanned, Volume
from planner.core.model.findings import Fix, outside
from planner.readback import karpenter
from planner.readback.block_devices import launch_volumes, missing_node_class, node_class_volumes
from planner.readback.resources import (
    BATCH_COMPUTE_ENVIRONMENT,
    LAUNCH_TEMPLATE,
    SUBNET,
    UNKNOWN,
    Graph,
    Resource,
    as_int,
    as_list,
    change,
    dig,
    known,
)

HYPERPOD_TYPES = ("aws-native:sagemaker:Cluster", "aws:sagemaker/cluster:Cluster")
PCS_TYPES = ("aws-native:pcs:ComputeNodeGroup", "aws:pcs/computeNodeGroup:ComputeNodeGroup")
PCS_KIND = "AWS PCS compute node group"
HYPERPOD_PRICING = "https://aws.amazon.com/sagemaker/ai/pricing/"
_ACCELERATED = re.compile(r"^(p\d+[a-z0-9-]*|g\d+[a-z0-9-]*|trn\d+[a-z0-9]*|inf\d+[a-z0-9]*|dl\d+[a-z0-9]*)(\.|$)")
_BATCH_PURCHASE: dict[str, Purchase] = {"EC2": "on-demand", "SPOT": "spot"}

Found = list[tuple[Unplanned, str | None]]
Gaps = list[dict[str, Any]]


class Kind(Struct, frozen=True):
    """One kind of self-sizing compute the read-back reads: how a message names it, whether a
    resource type is of it, and its reader (which adds what it finds to `found` and `gaps`)."""

    name: str
    of: Callable[[str], bool]
    read: Callable[[Graph, Resource, Any, Found, Gaps], None]


# What `read` reads, in this order: the one list (`planner plan --program` names these kinds
# when a program declares none of them).
KINDS = (
    Kind(
        "AWS Batch compute environment",
        lambda t: t == BATCH_COMPUTE_ENVIRONMENT,
        lambda g, r, c, f, x: _batch(g, r, c, f, x),
    ),
    Kind(
        "Karpenter NodePool",
        lambda t: t.startswith("kubernetes:karpenter.sh/") and t.endswith(":NodePool"),
        lambda g, r, c, f, x: _node_pool(g, r, c, f, x),
    ),
    Kind("SageMaker HyperPod cluster", lambda t: t in HYPERPOD_TYPES, lambda g, r, c, f, x: _hyperpod(r, c, f)),
)


def read(graph: Graph, cat: Any) -> tuple[Found, Gaps]:
    """Every self-sizing compute resource of `graph` (`KINDS`) that may launch accelerated instances."""
    found: Found = []
    gaps: Gaps = []
    for r in graph.resources:
        kind = next((k for k in KINDS if k.of(r.type)), None)
        if kind is not None:
            kind.read(graph, r, cat, found, gaps)
    return found, gaps


def _split(types: list[str], cat: Any) -> tuple[list[str], list[str]]:
    """(types AWS lists, accelerated types or families it does not list) of a list of types or families."""
    listed: list[str] = []
    outside: list[str] = []
    for t in types:
        hits = [t] if cat.lists(t) else [n for n in cat.all_names() if n.split(".")[0] == t]
        if hits:
            listed += [h for h in hits if h not in listed]
        elif _ACCELERATED.match(t):
            outside.append(t)
    return listed, outside


def _maxima(listed: list[str], per: Any) -> tuple[tuple[str, int], ...]:
    return tuple((t, per(t)) for t in listed)


def _shown(maxima: tuple[tuple[str, int], ...]) -> str:
    return " or ".join(f"{n:,} {t}" for t, n in maxima)


def _refused(what: str, prop_lo: str, lo: int | None, prop_hi: str, hi: int | None, r: Resource, gaps: Gaps) -> None:
    """A minimum above the maximum: a warning naming the resource and both properties. The Batch API reference
    calls minvCpus "The minimum number of vCPUs that a compute environment should maintain" and says of desiredvCpus
    "Batch modifies this value between the minimum and maximum values"; it does not say that creation fails
    (planner/data/rule_sources.yaml), so this is not an error."""
    if lo is not None and hi is not None and lo > hi:
        gaps.append(
            {
                "message": (
                    f"{what} '{r.name}' has {prop_lo} {lo} above {prop_hi} {hi}: the Batch API reference keeps the "
                    "desired vCPUs 'between the minimum and maximum values', which these sizes leave no room for"
                ),
                "urn": r.urn,
                "rule": "scaling-size-refused",
                "severity": "warning",
                "fix": Fix(edits=(change(r, prop_lo, hi),), alternatives=(change(r, prop_hi, lo),)),
            }
        )


def template_volumes(graph: Graph, r: Resource, spec: Any, prop: str) -> tuple[Volume, ...] | None:
    """The EBS volumes of the launch template a Batch compute environment or a PCS node group launches with
    (`spec`: its launch template specification in property `prop`); None when it names none."""
    keys = ("launchTemplateId", "launchTemplateName", "templateId", "id", "name")
    ids = [v for v in (dig(spec, k) for k in keys) if v is not None]
    if not ids:
        return None
    hits = graph.resolve(r, prop, ids, LAUNCH_TEMPLATE)
    if not hits:
        return (Volume("", root=True, unknown="size unknown: its launch template is not a resource of this stack"),)
    return launch_volumes(hits[0])


def _batch(graph: Graph, r: Resource, cat: Any, found: Found, gaps: Gaps) -> None:
    cr = r.get("computeResources")
    if not isinstance(cr, dict):
        return
    volumes = template_volumes(graph, r, cr.get("launchTemplate"), "computeResources")
    kind = "AWS Batch compute environment"
    types = [str(x) for x in as_list(cr.get("instanceTypes")) if known(x)]
    listed, outside = _split(types, cat)
    if not listed and not outside and types:
        return  # CPU-only (or "optimal": C, M and R families)
    lo, hi, desired = as_int(cr.get("minVcpus")), as_int(cr.get("maxVcpus")), as_int(cr.get("desiredVcpus"))
    _refused(kind, "computeResources.minVcpus", lo, "computeResources.maxVcpus", hi, r, gaps)
    rng = f"{lo if lo is not None else 0}-{hi if hi is not None else '?'} vCPUs"
    purchase = _BATCH_PURCHASE.get(str(cr.get("type")), "on-demand")
    name = f"{kind} '{r.name}'"
    if outside and not listed:
        found.append(
            (
                Unplanned(
                    name,
                    "unlisted",
                    tuple(outside),
                    None,
                    None,
                    None,
                    rng,
                    name=r.name,
                    fix=unlisted_fix(tuple(outside)),
                ),
                r.urn,
            )
        )
        return
    now_vcpus = desired if desired is not None else (lo or 0)
    if hi is None or not listed:
        found.append(
            (
                Unplanned(
                    name,
                    "unsized",
                    tuple(listed or types),
                    None,
                    None,
                    None,
                    rng,
                    name=r.name,
                    purchase=purchase,
                    volumes=volumes,
                    fix=Fix(edits=(change(r, "computeResources.maxVcpus", note=MOST),)),
                ),
                r.urn,
            )
        )
        return
    maxima = _maxima(listed, lambda t: hi // cat.spec(t).vcpus)
    first = cat.spec(listed[0])
    now = math.ceil(now_vcpus / first.vcpus) if now_vcpus else 0
    found.append(
        (
            Unplanned(
                name,
                "elastic",
                tuple(listed),
                now,
                lo,
                hi,
                rng,
                name=r.name,
                purchase=purchase,
                maxima=maxima,
                fill=tuple((t, cat.spec(t).vcpus) for t in listed),
                capacity=hi,
                volumes=volumes,
                detail=(
                    f"maxVcpus {hi:,} allows at most {_shown(maxima)}"
                    + (f"; also names {', '.join(outside)}, not types AWS lists" if outside else "")
                ),
                fix=_budget(r, "computeResources.maxVcpus"),
            ),
            r.urn,
        )
    )


def _node_pool(graph: Graph, r: Resource, cat: Any, found: Found, gaps: Gaps) -> None:
    spec = r.get("spec") or {}
    reqs = as_list(dig(spec, "template", "spec", "requirements"))
    if spec is UNKNOWN or any(
        q is UNKNOWN or (isinstance(q, dict) and any(v is UNKNOWN for v in [q.get("key"), *as_list(q.get("values"))]))
        for q in reqs
    ):
        gaps.append(
            {
                "message": f"cannot tell which instance types Karpenter node pool '{r.name}' may launch (its "
                "requirements are unknown during preview); not planned or priced",
                "urn": r.urn,
                "fix": Fix(edits=(change(r, "spec.template.spec.requirements", note="literals, not outputs"),)),
                "left_out": f"Karpenter node pool '{r.name}' (requirements unknown)",
            }
        )
        return
    pool = karpenter.read(spec, karpenter.candidates(spec, cat, dig, as_list), dig, as_list)
    if not pool.types and not pool.outside:
        return  # nothing it may launch is listed or named
    if karpenter.general(spec, pool, dig, as_list):
        gaps.append(
            {
                "message": (
                    f"Karpenter node pool '{r.name}' names no instance type, family or category and its requirements "
                    f"allow {len(pool.types):,} types AWS lists, with and without accelerators: Karpenter launches "
                    "what its pods request, so planner does not plan or price it as training capacity"
                ),
                "urn": r.urn,
                "severity": "info",
                "fix": Fix(
                    edits=(
                        change(
                            r,
                            "spec.template.spec.requirements",
                            note="the instance families it may launch (karpenter.k8s.aws/instance-family In [...])",
                        ),
                    )
                ),
                "left_out": f"Karpenter node pool '{r.name}' (its types follow its pods)",
            }
        )
        return
    kind = "Karpenter node pool"
    name = f"{kind} '{r.name}'"
    priced: tuple[Purchase, ...] = ("on-demand", "spot")  # the pool's capacity types planner has prices for
    purchase: Purchase = next((p for p in priced if p in pool.purchases), "on-demand")
    limits = ", ".join(f"{k} {_quantity(v)}" for k, v in sorted(pool.limits.items())) or "no limits"
    details = []
    joined, root = _node_class(graph, r, spec)
    if joined:
        details.append(joined)
    if pool.outside and pool.types:
        details.append(f"also names {', '.join(pool.outside)}, not types AWS lists (not priced)")
    if pool.purchases == ("reserved",):  # what an On-Demand Capacity Reservation bills; a Capacity Block differs
        details.append("capacity type reserved, priced at the On-Demand rate")
    elif pool.purchases and pool.purchases != ("on-demand",):
        details.append(f"capacity types {', '.join(pool.purchases)}")
    if pool.zones:
        details.append(f"zones {', '.join(pool.zones)}")
    read_keys = [k for k in pool.unread if k.startswith(("karpenter", "limits.")) or "kubernetes.io/" in k]
    if read_keys:
        details.append(f"not read: {', '.join(read_keys)}")
    types = tuple(t.name for t in pool.types)
    if not types:
        found.append(
            (
                Unplanned(
                    name,
                    "unlisted",
                    tuple(pool.outside),
                    0,
                    0,
                    None,
                    limits,
                    name=r.name,
                    detail="; ".join(details),
                    fix=unlisted_fix(tuple(pool.outside)),
                ),
                r.urn,
            )
        )
        return
    unbound = [t for t, n in pool.maxima.items() if n is None]
    if unbound:
        found.append(
            (
                Unplanned(
                    name,
                    "unsized",
                    types,
                    0,
                    0,
                    None,
                    "unbounded" if not pool.limits else f"{limits}, which do not bound {', '.join(unbound)}",
                    name=r.name,
                    purchase=purchase,
                    detail="; ".join(details),
                    fix=Fix(edits=(change(r, "spec.limits", note=f"{MOST} (cpu, or {_accelerator_resource(pool)})"),)),
                ),
                r.urn,
            )
        )
        return
    maxima = tuple((t, n) for t, n in pool.maxima.items() if n is not None)
    details.insert(0, f"spec.limits ({limits}) allow at most {_shown(maxima)}")
    fill, room = _one_limit(pool)
    found.append(
        (
            Unplanned(
                name,
                "elastic",
                types,
                0,
                0,
                max(n for _, n in maxima),
                limits,
                name=r.name,
                purchase=purchase,
                maxima=maxima,
                detail="; ".join(details),
                fill=fill,
                capacity=room,
                volumes=root,
                fix=_budget(r, "spec.limits"),
            ),
            r.urn,
        )
    )


def _one_limit(pool: karpenter.Pool) -> tuple[tuple[tuple[str, int], ...], int | None]:
    """When one limit alone binds the pool's types (integral per instance: cpu, GPUs, Neuron devices),
    what each type takes of it and the limit; else nothing (the estimate then fills with one type)."""
    binding = [k for k in pool.limits if any(karpenter.capacity(t)[k] > 0 for t in pool.types)]
    if len(binding) != 1 or binding[0] == "memory":
        return (), None
    key = binding[0]
    per = {t.name: karpenter.capacity(t)[key] for t in pool.types}
    if not all(v > 0 and float(v).is_integer() for v in per.values()):
        return (), None
    return tuple((t, int(v)) for t, v in per.items()), int(pool.limits[key])


def _accelerator_resource(pool: karpenter.Pool) -> str:
    nvidia = any(t.accelerator is not None and t.accelerator.vendor.upper() == "NVIDIA" for t in pool.types)
    return "nvidia.com/gpu" if nvidia else "aws.amazon.com/neuron"


def _quantity(v: float) -> str:
    for unit, size in (("Ti", 2**40), ("Gi", 2**30)):
        if v >= size and v % size == 0:
            return f"{int(v // size):,}{unit}"
    return f"{int(v):,}" if float(v).is_integer() else f"{v:g}"


def _node_class(graph: Graph, pool: Resource, spec: Any) -> tuple[str, tuple[Volume, ...] | None]:
    """The pool's EC2NodeClass joined in: where it launches (subnets, AZs), its security groups and
    reservations, in words; and the EBS volumes each instance gets (`block_devices.node_class_volumes`)."""
    ref = dig(spec, "template", "spec", "nodeClassRef", "name")
    if not isinstance(ref, str):
        return "", None
    classes = [
        c
        for c in graph.resources
        if c.type.startswith("kubernetes:karpenter.k8s.aws/")
        and c.type.endswith(":EC2NodeClass")
        and ref in (c.get("metadata", "name"), c.name)
    ]
    if not classes:
        return f"EC2NodeClass '{ref}' is not a resource of this stack", missing_node_class(ref)
    nc = classes[0]
    cspec = nc.get("spec") or {}
    subnets = _selected(graph, as_list(dig(cspec, "subnetSelectorTerms")), SUBNET)
    zones = sorted({z for s in subnets for z in [s.get("availabilityZone")] if isinstance(z, str) and known(z)})
    groups = _selected(graph, as_list(dig(cspec, "securityGroupSelectorTerms")), "aws:ec2/securityGroup:SecurityGroup")
    reservations = [
        t["id"]
        for t in as_list(dig(cspec, "capacityReservationSelectorTerms"))
        if isinstance(t, dict) and isinstance(t.get("id"), str)
    ]
    tagged = [
        t for t in as_list(dig(cspec, "capacityReservationSelectorTerms")) if isinstance(t, dict) and t.get("tags")
    ]
    parts = [f"EC2NodeClass '{ref}'"]
    parts.append(f"subnets in {', '.join(zones)}" if zones else "subnets not resources of this stack (AZ unknown)")
    if groups:
        parts.append(f"{len(groups)} security group(s) of this stack")
    if reservations or tagged:
        parts.append("capacity reservations " + ", ".join(reservations + [f"tagged {t['tags']}" for t in tagged]))
    return ": ".join(parts[:1]) + ": " + ", ".join(parts[1:]), node_class_volumes(nc.get("spec"))


def _selected(graph: Graph, terms: list[Any], type_: str) -> list[Resource]:
    """Resources of `type_` a Karpenter selector term list picks: by `id`, or by every tag (`*` any value)."""
    out: list[Resource] = []
    for term in terms:
        if not isinstance(term, dict):
            continue
        for res in graph.of_type(type_):
            tags = res.get("tags") or {}
            if term.get("id") is not None and term.get("id") in res.identifiers():
                out.append(res)
            elif (
                isinstance(term.get("tags"), dict)
                and isinstance(tags, dict)
                and all(k in tags and (v == "*" or tags[k] == v) for k, v in term["tags"].items())
            ):
                out.append(res)
    return list({r.urn: r for r in out}.values())


def _hyperpod(r: Resource, cat: Any, found: Found) -> None:
    """One entry per accelerated instance group: type (ml. prefix dropped for its specs) and InstanceCount."""
    groups = [g for g in as_list(r.get("instanceGroups")) if isinstance(g, dict)]
    others = []
    for g in groups:
        ml: Any = g.get("instanceType")  # a string, or unknown during preview
        if not known(ml):
            found.append(
                (
                    Unplanned(
                        f"SageMaker HyperPod cluster '{r.name}' instance group '{g.get('instanceGroupName') or '?'}'",
                        "unpriced",
                        (),
                        as_int(g.get("instanceCount")),
                        name=f"{r.name}-{g.get('instanceGroupName') or 'group'}",
                        detail="an instance type unknown during preview",
                        fix=Fix(edits=(change(r, "instanceGroups[].instanceType", note="a literal type"),)),
                    ),
                    r.urn,
                )
            )
            continue
        ec2 = ml.removeprefix("ml.") if isinstance(ml, str) else None
        if ec2 is None or not (cat.lists(ec2) or _ACCELERATED.match(ec2)):
            if isinstance(ml, str):
                others.append(f"{as_int(g.get('instanceCount'))} {ml}")
            continue
        count = as_int(g.get("instanceCount"))
        spec = cat.get(ec2)
        accel = (
            f", {count * spec.accelerator_count} {spec.accelerator.name}"
            if spec is not None and spec.accelerator is not None and count
            else ""
        )
        group = g.get("instanceGroupName") or "?"
        found.append(
            (
                Unplanned(
                    f"SageMaker HyperPod cluster '{r.name}' instance group '{group}'",
                    "unpriced",
                    (ml,),
                    count,
                    count,
                    count,
                    f"InstanceCount {count if count is not None else '?'}",
                    name=f"{r.name}-{group}",
                    detail=(
                        f"{count} x {ml} ({ec2}{accel}); EFA and placement are provided by HyperPod "
                        "(not checked as EC2 launches)"
                    ),
                    fix=outside(
                        "price",
                        f"price {count} {ml} from SageMaker HyperPod pricing ({HYPERPOD_PRICING}) and "
                        "budget for it: planner has no HyperPod price, and the EC2 price is not it",
                    ),
                ),
                r.urn,
            )
        )
    if others and found and found[-1][1] == r.urn:
        last, urn = found[-1]
        found[-1] = (
            Unplanned(
                **{
                    **last.__dict__,
                    "detail": f"{last.detail}; the cluster also runs {', '.join(others)} (no accelerators)",
                }
            ),
            urn,
        )


def pcs_pool(graph: Graph, r: Resource, cat: Any, found: Found, purchase: Purchase, detail: str = "") -> None:
    """An AWS PCS compute node group without static instances (`minInstanceCount` 0, or unknown): it
    launches up to `maxInstanceCount` instances as jobs arrive, bought as its `purchaseOption` says
    (`purchase`); `detail`: what else the read-back saw (its reservation), in the resource's terms. Sizes AWS
    refuses are the caller's to report."""
    types = [str(t) for t in (dig(i, "instanceType") for i in as_list(r.get("instanceConfigs"))) if known(t) and t]
    listed, outside = _split(types, cat)
    if not listed and not outside:
        return
    kind = PCS_KIND
    sc = r.get("scalingConfiguration") or r.get("scalingConfig") or {}
    lo, hi = as_int(dig(sc, "minInstanceCount")), as_int(dig(sc, "maxInstanceCount"))
    rng = f"{lo if lo is not None else '?'}-{hi if hi is not None else '?'} instances"
    name = f"{kind} '{r.name}'"
    volumes = template_volumes(graph, r, r.get("customLaunchTemplate"), "customLaunchTemplate")
    bought = {"capacity-block": "bought as a Capacity Block", "spot": "bought as Spot"}.get(purchase, "")
    if not listed:
        found.append(
            (
                Unplanned(
                    name, "unlisted", tuple(outside), lo, lo, hi, rng, name=r.name, fix=unlisted_fix(tuple(outside))
                ),
                r.urn,
            )
        )
    elif hi is None:
        found.append(
            (
                Unplanned(
                    name,
                    "unsized",
                    tuple(listed),
                    lo,
                    lo,
                    None,
                    rng,
                    name=r.name,
                    purchase=purchase,
                    volumes=volumes,
                    detail=detail,
                    fix=Fix(edits=(change(r, "scalingConfiguration.maxInstanceCount", note=MOST),)),
                ),
                r.urn,
            )
        )
    else:
        found.append(
            (
                Unplanned(
                    name,
                    "elastic",
                    tuple(listed),
                    lo or 0,
                    lo,
                    hi,
                    rng,
                    name=r.name,
                    purchase=purchase,
                    maxima=_maxima(listed, lambda t: hi),
                    fill=tuple((t, 1) for t in listed),
                    capacity=hi,
                    volumes=volumes,
                    detail="; ".join(
                        x for x in (f"maxInstanceCount {hi} allows at most {hi} instances", bought, detail) if x
                    ),
                    fix=_budget(r, "scalingConfiguration.maxInstanceCount"),
                ),
                r.urn,
            )
        )


MOST = "the most you mean to pay for"


def _budget(r: Resource, limit: str) -> Fix:
    """Budget for the maximum, or lower the property of `r` that sets it."""
    return Fix("budget for the maximum", alternatives=(change(r, limit, note="what you mean to pay for"),))


def unlisted_fix(types: tuple[str, ...]) -> Fix:
    return outside(
        "price",
        f"check {', '.join(types)} on AWS's instance type and pricing pages and budget for it yourself, "
        "or use a type AWS lists (`planner catalog --all`)",
    )
