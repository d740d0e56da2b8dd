"""Rebuild the declared `planner:cluster` from a stack's AWS resources: the one read-back.

Both the policy pack (at `pulumi preview`) and `planner plan --program` (through
`planner.readback.program_resources`) use this module. A cluster written by hand with plain pulumi-aws
resources has no planner config, so its topology is read back from what the program
registers: launch templates
(instance type, EFA interfaces, market options, reservation, EBS volumes), Auto Scaling groups or
instances (how many, in which subnets and placement group), subnets (the AZ), placement
groups (the strategy) and FSx for Lustre. The result is a plain `planner:cluster` mapping
that goes through `parse_cluster` and `plan_stack` like a stack file, so the pack runs the
same rules as `planner plan`.

Findings point at key paths; each path of the rebuilt mapping records the URN of the
resource it came from (`Stack.resources`, the read-back's locator, see `planner.core.input.locations`),
so a finding lands on the resource at fault.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from planner.core.catalogue import instance_types as _catalogue
from planner.core.input.stack_files import CLUSTER_PATH, RESOURCE_GROUP_ARN
from planner.core.model.cluster import Cluster, LaunchInterface, Note, Path, Purchase, Stack, Unplanned, Volume
from planner.core.model.findings import Edit, Fix, advice
from planner.core.reading.fields import key_path
from planner.readback.block_devices import eks_volumes, launch_volumes
from planner.readback.elastic_compute import KINDS as ELASTIC_KINDS
from planner.readback.elastic_compute import PCS_KIND, PCS_TYPES, pcs_pool, template_volumes, unlisted_fix
from planner.readback.elastic_compute import read as read_elastic
from planner.readback.program_terms import held_in_model
from planner.readback.resources import (
    AUTOSCALING_GROUP,
    DATA_REPOSITORY_ASSOCIATION,
    EFA_INTERFACE_TYPES,
    EKS_NODE_GROUP,
    INSTANCE,
    LAUNCH_TEMPLATE,
    LUSTRE,
    NETWORK_INTERFACE,
    PLACEMENT_GROUP,
    SECURITY_GROUP,
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

_NAME_OK = re.compile(r"[^a-z0-9-]+")
_RESERVATION = re.compile(r"cr-[0-9a-f]{8,17}")
_AZ = re.compile(r"^([a-z]{2}(-gov)?-[a-z]+-\d)[a-z]$")
_MARKETS: dict[str, Purchase] = {"capacity-block": "capacity-block", "spot": "spot"}
_EKS_CAPACITY: dict[str, Purchase] = {"CAPACITY_BLOCK": "capacity-block", "SPOT": "spot", "ON_DEMAND": "on-demand"}
# families with GPUs, Trainium or Inferentia: compute worth naming when the catalogue lacks the type
_ACCELERATED = re.compile(r"^(p\d+[a-z0-9-]*|g\d+[a-z0-9-]*|trn\d+[a-z0-9]*|inf\d+[a-z0-9]*|dl\d+[a-z0-9]*)\.")
UNKNOWN_AZ = ""  # the cluster's AZ when no resource of the stack tells it
DEPLOY_TARGET = "deploy_target"  # launch values key: (model field, what it names) of a reference known at deploy
_PARENT_KEY = re.compile(r"(\.[^.\[]*|\[\d+\])$")  # the last step of a key path


@dataclass
class Rebuilt:
    """A `planner:cluster` mapping read back from resources, with where each part came from.

    `unplanned` is compute that will launch but cannot be planned (unsized, outside the
    catalogue, scaled to zero); `launches` carries, per node group (by name), the fields of the
    model a stack file has no key for, as the resources give them. `resources` is the provenance
    map: the URN each model path was read from.
    """

    data: dict[str, Any] | None
    region: str | None
    resources: dict[Path, str | None] = field(default_factory=dict)  # the URN each key path came from
    gaps: list[Violation] = field(default_factory=list)
    unplanned: list[Unplanned] = field(default_factory=list)
    launches: dict[str, Launch] = field(default_factory=dict)
    zone_known: bool = True
    # the file system's fields a stack file has no key for (`Lustre.metadata_configuration`, `efa_security_group`)
    lustre_fields: dict[str, bool | None] = field(default_factory=dict)

    def locate(self, path: Path, urn: str | None) -> None:
        self.resources[path] = urn

    def urn_of(self, path: Path) -> str | None:
        """The URN behind a key path, or behind its nearest located ancestor (None: the stack as a whole)."""
        from planner.core.input.locations import nearest

        return nearest(self.resources, tuple(path))

    def urn_of_key(self, key: str) -> str | None:
        """The URN behind a problem's key (`planner:cluster.node_groups[0].count`), or its nearest ancestor's."""
        from planner.core.reading.fields import key_path

        by_key = {key_path(p): urn for p, urn in self.resources.items()}
        while key:
            if key in by_key:
                return by_key[key]
            key = _PARENT_KEY.sub("", key)
        return None


@dataclass(frozen=True)
class Launch:
    """What a node group's resources say that a stack file has no key for, as `NodeGroup` fields:
    the most it may scale to, every AZ its subnets span, its launch interfaces, the EBS volumes each
    instance gets (`planner.readback.block_devices`), and a launch target that is another resource's output."""

    max_count: int | None = None
    zones: tuple[str, ...] = ()
    interfaces: tuple[LaunchInterface, ...] | None = None
    volumes: tuple[Volume, ...] | None = None  # None: not read (the root volume's size unknown)
    target: tuple[str, str] | None = None  # (model key, what it names) of a reference known only at deploy
    grows_with_jobs: bool = False  # launches up to `max_count` as jobs arrive (an AWS PCS group)
    in_placement_group: bool | None = None  # launches into a cluster placement group (its own or its template's)

    def fields(self) -> dict[str, Any]:
        """The `NodeGroup` fields this sets (a launch target known at deploy named by what it is)."""
        out: dict[str, Any] = {
            "max_count": self.max_count,
            "zones": self.zones,
            "interfaces": self.interfaces,
            "root_volume_gib": None,
            "volumes": self.volumes,
            "grows_with_jobs": self.grows_with_jobs,
            "in_placement_group": self.in_placement_group,
        }
        if self.target is not None:
            key, what = self.target
            if key == "capacity_reservation_id":
                out["capacity_reservation_ids"] = (what,)
            else:
                out["capacity_reservation_resource_group_arn"] = what
        return out


@dataclass
class _Group:
    """One node group before it becomes a mapping: values plus the resource each came from."""

    name: str
    instance_type: str
    count: int
    capacity: Resource  # the Auto Scaling group, or the first instance
    template: Resource | None
    values: dict[str, Any]
    sources: dict[str, Resource]
    placement_groups: list[Resource]
    zones: list[str]
    maximum: int | None = None
    external_placement: str | None = None  # a placement group named that is not a resource of the stack
    interfaces: tuple[LaunchInterface, ...] | None = None
    volumes: tuple[Volume, ...] = ()  # every EBS volume each instance gets (`block_devices`)
    ultraserver: tuple[str, str, int] | None = (
        None  # (cluster, node group, k): the planner tags of one UltraServer's ASG
    )
    grows_with_jobs: bool = False  # an AWS PCS group: launches up to its maximum as jobs arrive


_GroupReader = Callable[[Graph, Any, list[Violation], list[tuple[Unplanned, str | None]]], list[_Group]]
# The compute of a fixed size that `rebuild` reads into node groups, in this order, each as a
# message names it; with the self-sizing kinds (`elastic_compute.KINDS`), `COMPUTE_KINDS`.
_FIXED_COMPUTE: tuple[tuple[str, _GroupReader], ...] = (
    ("EC2 Auto Scaling group", lambda g, c, x, u: _merge_ultraservers(_asg_groups(g, c, x, u))),
    ("EKS managed node group", lambda g, c, x, u: _eks_groups(g, c, x, u)),
    ("EC2 instance", lambda g, c, x, u: _instance_groups(g, c, x, u)),
    (PCS_KIND, lambda g, c, x, u: _pcs_groups(g, c, x, u)),
)
# Every kind of compute the read-back understands, as messages name them.
COMPUTE_KINDS: tuple[str, ...] = tuple(name for name, _ in _FIXED_COMPUTE) + tuple(k.name for k in ELASTIC_KINDS)


def rebuild(
    graph: Graph,
    region: str | None = None,
    availability_zone: str | None = None,
    zone_setting: str | None = None,
) -> Rebuilt:
    """Read the cluster back from `graph`; `region`/`availability_zone` are policy-config fallbacks.

    `zone_setting` names where the caller takes such a fallback zone from (the policy pack's
    config), for the message when no zone can be read: `planner plan --program` has none, and
    must not send the user to a setting that does not apply to it."""
    cat = _catalogue.load()
    gaps: list[Violation] = []
    unplanned: list[tuple[Unplanned, str | None]] = []
    region = region or graph.region() or _region_of_zones(graph)
    # in URN order, as the unplanned entries below: a program registers from several threads, and the groups'
    # order (their key paths, the report's rows) must not depend on which ran first
    found = [g for _, read in _FIXED_COMPUTE for g in read(graph, cat, gaps, unplanned)]
    groups = sorted(found, key=lambda g: (g.capacity.urn, g.name))
    elastic, refused = read_elastic(graph, cat)
    unplanned += elastic
    gaps += [Violation(**g) for g in refused]
    out = Rebuilt(None, region, gaps=gaps)
    lustres = graph.of_type(LUSTRE)
    if not _accelerated(cat, [g.instance_type for g in groups] + [t for u, _ in unplanned for t in u.instance_types]):
        return out  # no accelerated compute: not a training cluster (its CPU groups are planned only beside one)
    if region is None:
        gaps.append(
            Violation(
                "cannot tell the AWS region (no aws provider region, and no subnet or Availability Zone "
                "in the stack); set the policy's `region` config (or `aws:region` in the stack config)",
            )
        )
        return out

    out.locate(CLUSTER_PATH, None)
    # in URN order: a program registers from several threads, and each entry's key path
    # (`planner:cluster.unplanned[i]`, reported with its findings) must not depend on which ran first
    for i, (u, urn) in enumerate(sorted(unplanned, key=lambda pair: (pair[1] or "", pair[0].resource, pair[0].reason))):
        path = CLUSTER_PATH + ("unplanned", i)
        out.locate(path, urn)
        out.unplanned.append(replace(u, path=path))

    zones = [z for g in groups for z in g.zones]
    cluster_az = availability_zone or (Counter(zones).most_common(1)[0][0] if zones else None)
    if cluster_az is None:
        out.zone_known = False
        if groups:
            gaps.append(
                Violation(
                    "cannot tell the Availability Zone of any node group (their subnets are not resources of "
                    "this stack); checks that need it (same-AZ EFA, file system AZ) are not run; give a subnet "
                    "of the stack an availability_zone" + (f" (or set {zone_setting})" if zone_setting else ""),
                    groups[0].capacity.urn,
                    fix=Fix(
                        f"or set {zone_setting}" if zone_setting else "",
                        (_in_a_known_zone(groups[0].capacity),),
                    ),
                )
            )
    origin = next((g.capacity.urn for g in groups if cluster_az in g.zones), None)
    out.locate(CLUSTER_PATH + ("availability_zone",), origin)
    node_groups: list[dict[str, Any]] = []
    names: set[str] = set()
    for g in groups:
        i = len(node_groups)
        path = CLUSTER_PATH + ("node_groups", i)
        g.name = _unique_name(g.name, names)
        values = dict(g.values)
        target = values.pop(DEPLOY_TARGET, None)
        entry: dict[str, Any] = {"name": g.name, "instance_type": g.instance_type, "count": g.count, **values}
        ultra = _ultraserver_type(g)
        if ultra is not None:
            entry["ultraserver_type"], assumed = ultra
            if assumed:
                gaps.append(
                    Violation(
                        f"node group '{g.name}': {g.instance_type} belongs to several UltraServer types; "
                        f"planned as {ultra[0]}",
                        g.capacity.urn,
                        fix=Fix(
                            edits=(
                                Edit(
                                    ("node_groups", i, "ultraserver_type"),
                                    "set",
                                    ultra[0],
                                    "the UltraServer type it books",
                                ),
                            )
                        ),
                    )
                )
        out.locate(path, g.capacity.urn)
        for key in ("name", "count"):
            out.locate(path + (key,), g.capacity.urn)
        for key, src in g.sources.items():
            out.locate(path + (key,), src.urn)
        if g.zones:
            entry["availability_zone"] = g.zones[0]
        elif cluster_az is not None:
            gaps.append(
                Violation(
                    f"cannot tell the Availability Zone of node group '{g.name}'; assumed {cluster_az}",
                    g.capacity.urn,
                    fix=Fix(
                        edits=(Edit(("node_groups", i, "availability_zone"), "set", cluster_az, "the cluster's AZ"),)
                    ),
                )
            )
        out.locate(path + ("availability_zone",), g.capacity.urn)
        if g.interfaces is not None:
            attached = any(n.attached for n in g.interfaces)  # an instance's own interfaces, not its template's
            out.locate(path + ("interfaces",), (g.capacity if attached else g.template or g.capacity).urn)
        out.launches[g.name] = Launch(
            g.maximum if g.maximum is not None and g.maximum > g.count else None,
            tuple(g.zones) if len(g.zones) > 1 else (),
            g.interfaces,
            g.volumes,
            target,
            g.grows_with_jobs,
            any(pg.get("strategy") == "cluster" for pg in g.placement_groups) or g.external_placement is not None,
        )
        node_groups.append(entry)

    data: dict[str, Any] = {"availability_zone": cluster_az or UNKNOWN_AZ, "node_groups": node_groups}
    placement = [pg for g in groups for pg in g.placement_groups if pg.get("strategy") == "cluster"]
    external = [g for g in groups if g.external_placement is not None and not g.placement_groups]
    for g in external:
        gaps.append(
            Violation(
                f"placement group '{g.external_placement}' of '{g.capacity.name}' is not a resource of this "
                "stack (an existing group); read as a cluster placement group",
                g.capacity.urn,
                fix=Fix("so it can be checked", (_declared_placement(g),)),
            )
        )
    if groups:
        data["placement_group"] = "cluster" if placement or external else "none"
        # a missing placement group is the fault of the groups launched without one
        where = placement[0].urn if placement else (external[0].capacity.urn if external else groups[0].capacity.urn)
        out.locate(CLUSTER_PATH + ("placement_group",), where)

    if lustres:  # kept with self-sizing compute too: a HyperPod cluster mounts it through its lifecycle scripts
        data["lustre"] = _lustre(graph, lustres[0], cluster_az, gaps)
        out.locate(CLUSTER_PATH + ("lustre",), lustres[0].urn)
        out.lustre_fields = _lustre_efa_fields(graph, lustres[0])
        for extra in lustres[1:]:
            gaps.append(
                Violation(
                    "planner models one FSx for Lustre file system per cluster; this one is checked by "
                    "the resource policies but not planned or priced",
                    extra.urn,
                    fix=advice(
                        "price this file system separately (a stack file with its lustre settings), or plan "
                        "each file system's cluster as its own stack"
                    ),
                )
            )
    out.data = data
    return out


# --- node groups ---------------------------------------------------------------------------


def _template_of(graph: Graph, owner: Resource, spec: Any, prop: str) -> Resource | None:
    keys = ("id", "name", "launchTemplateId", "launchTemplateName", "templateId")  # templateId: a PCS group's
    values = [dig(spec, k) for k in keys]
    if not any(v is not None for v in values):
        return None
    hits = graph.resolve(owner, prop, [v for v in values if v is not None], LAUNCH_TEMPLATE)
    return hits[0] if hits else None


def _size(desired: Any, minimum: Any, maximum: Any) -> tuple[int | None, int | None, int | None]:
    """(planned, min, max): the desired size, else the minimum (what AWS starts with); never the maximum."""
    d, lo, hi = as_int(desired), as_int(minimum), as_int(maximum)
    planned = d if d is not None else lo
    return planned, lo, hi


def _refused_sizes(
    kind: str,
    r: Resource,
    props: tuple[str, str, str],
    desired: int | None,
    lo: int | None,
    hi: int | None,
    gaps: list[Violation],
) -> None:
    """Sizes the Auto Scaling and EKS APIs refuse at creation (min above desired, desired above max, min above
    max): an error naming the resource and its properties, in the program's terms."""
    want, least, most = props
    what = f"{kind} '{r.name}'"
    if lo is not None and hi is not None and lo > hi:
        gaps.append(
            Violation(
                f"{what} has {least} {lo} above {most} {hi}: AWS refuses to create it",
                r.urn,
                fix=refused_fix(r, (least, hi), (most, lo)),
                rule="scaling-size-refused",
            )
        )
    elif desired is not None and lo is not None and desired < lo:
        gaps.append(
            Violation(
                f"{what} has {least} {lo} above {want} {desired}: AWS refuses to create it "
                f"({want} must lie between {least} and {most})",
                r.urn,
                fix=refused_fix(r, (want, lo), (least, desired)),
                rule="scaling-size-refused",
            )
        )
    elif desired is not None and hi is not None and desired > hi:
        gaps.append(
            Violation(
                f"{what} has {want} {desired} above {most} {hi}: AWS refuses to create it "
                f"({want} must lie between {least} and {most})",
                r.urn,
                fix=refused_fix(r, (most, desired), (want, hi)),
                rule="scaling-size-refused",
            )
        )


def _asg_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[_Group]:
    groups = []
    for asg in graph.of_type(AUTOSCALING_GROUP):
        template = _template_of(graph, asg, asg.get("launchTemplate"), "launchTemplate")
        types: list[Any] = []
        type_source: Resource | None = None
        if template is None:
            spec = asg.get("mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification")
            template = _template_of(graph, asg, spec, "mixedInstancesPolicy")
        overrides = as_list(asg.get("mixedInstancesPolicy", "launchTemplate", "overrides"))
        types = [o.get("instanceType") for o in overrides if isinstance(o, dict) and o.get("instanceType") is not None]
        types_at = (asg, _OVERRIDE_TYPES)
        if types:
            type_source = asg
        elif template is not None:
            types, type_source = [template.get("instanceType")], template
            types_at = (template, "instanceType")
        planned, lo, hi = _size(asg.get("desiredCapacity"), asg.get("minSize"), asg.get("maxSize"))
        itype = _pick(types, cat, asg, gaps, unplanned, "Auto Scaling group", planned, lo, hi, types_at)
        if itype is None:
            continue
        _refused_sizes(
            "Auto Scaling group",
            asg,
            ("desiredCapacity", "minSize", "maxSize"),
            as_int(asg.get("desiredCapacity")),
            lo,
            hi,
            gaps,
        )
        if planned is None:
            gaps.append(
                Violation(
                    f"cannot tell how many instances Auto Scaling group '{asg.name}' runs "
                    "(desiredCapacity and minSize unknown); not planned",
                    asg.urn,
                    fix=Fix(edits=(change(asg, "desiredCapacity", note=KNOWN_AT_PREVIEW),)),
                    left_out=f"Auto Scaling group '{asg.name}' (size unknown)",
                )
            )
            continue
        if planned == 0:
            purchase = _launch_values(graph, template, None)[0].get("purchase", "on-demand")
            unplanned.append(
                (
                    Unplanned(
                        f"Auto Scaling group '{asg.name}'",
                        "scaled-to-zero",
                        (itype,),
                        0,
                        lo,
                        hi,
                        f"{lo or 0}-{hi if hi is not None else '?'} instances",
                        fix=_zero_fix(asg, "desiredCapacity", hi),
                        maxima=((itype, hi),) if hi else (),
                        purchase=purchase,
                        name=asg.name,
                    ),
                    asg.urn,
                )
            )
            continue
        subnets = graph.resolve(asg, "vpcZoneIdentifiers", as_list(asg.get("vpcZoneIdentifiers")), SUBNET)
        zones = _zones(subnets) or [z for z in as_list(asg.get("availabilityZones")) if isinstance(z, str) and known(z)]
        zones, pgs, external = _where(graph, asg, template, zones)
        values, sources, interfaces = _launch_values(graph, template, None, gaps)
        if type_source is not None:
            sources["instance_type"] = type_source
        groups.append(
            _Group(
                asg.name,
                itype,
                planned,
                asg,
                template,
                values,
                sources,
                pgs,
                zones,
                hi,
                external,
                interfaces,
                volumes=launch_volumes(template),
                ultraserver=_ultraserver_tags(asg),
            )
        )
    return groups


# the planner components' tags (planner.components.accelerated_cluster): a node group of an UltraServer Capacity
# Block that names one reservation per UltraServer is built as one Auto Scaling group per UltraServer
_CLUSTER_TAG, _GROUP_TAG, _ULTRASERVER_TAG = "planner:cluster", "planner:node-group", "planner:ultraserver"
_ULTRASERVER_TYPE_TAG = "planner:ultraserver-type"


def _ultraserver_type(g: _Group) -> tuple[str, bool] | None:
    """(UltraServer type, assumed) for a group whose instance type is a member of several UltraServer types:
    the components' tag, else the smallest type whose members divide the count (said as a gap); None otherwise."""
    cat = _catalogue.load()
    options = cat.ultraservers_of(g.instance_type)
    if len(options) < 2:
        return None
    raw = g.capacity.get("tags")
    tags = raw if isinstance(raw, dict) else {t.get("key"): t.get("value") for t in as_list(raw) if isinstance(t, dict)}
    tagged = tags.get(_ULTRASERVER_TYPE_TAG)
    if isinstance(tagged, str) and tagged in {u.name for u in options}:
        return tagged, False
    fits = [u for u in options if g.count % u.members == 0]
    return (fits or list(options))[0].name, True


def _ultraserver_tags(asg: Resource) -> tuple[str, str, int] | None:
    tags = {t.get("key"): t.get("value") for t in as_list(asg.get("tags")) if isinstance(t, dict)}
    cluster, group, k = tags.get(_CLUSTER_TAG), tags.get(_GROUP_TAG), tags.get(_ULTRASERVER_TAG)
    if not all(isinstance(v, str) and known(v) for v in (cluster, group, k)) or not str(k).isdigit():
        return None
    return str(cluster), str(group), int(str(k))


def _place(member: _Group) -> int:
    """Which UltraServer of its node group a per-UltraServer group is (k of its planner tags)."""
    assert member.ultraserver is not None  # asked only of groups merged by their UltraServer tags
    return member.ultraserver[2]


def _merge_ultraservers(groups: list[_Group]) -> list[_Group]:
    """One node group again from the per-UltraServer Auto Scaling groups the components build for
    it (same planner tags, type and launch settings, one reservation each): its count the sum, its
    reservation ids in UltraServer order, as the stack declared them. Anything that differs stays apart."""
    parts: dict[tuple[str, str], list[_Group]] = {}
    for g in groups:
        if g.ultraserver is not None:
            parts.setdefault(g.ultraserver[:2], []).append(g)
    out: list[_Group] = []
    done: set[tuple[str, str]] = set()
    for g in groups:
        key = g.ultraserver[:2] if g.ultraserver is not None else None
        members = sorted(parts.get(key, []), key=_place) if key else []
        if key is None or len(members) < 2 or not _alike(members):
            out.append(g)
            continue
        if key in done:
            continue
        done.add(key)
        first = members[0]
        suffix = f"-us{_place(first)}"
        values = dict(first.values, capacity_reservation_id=[m.values["capacity_reservation_id"] for m in members])
        maxima = [m.maximum for m in members]
        out.append(
            replace(
                first,
                name=first.name[: -len(suffix)] if first.name.endswith(suffix) else first.name,
                count=sum(m.count for m in members),
                values=values,
                maximum=None if None in maxima else sum(m for m in maxima if m is not None),
            )
        )
    return out


def _alike(members: list[_Group]) -> bool:
    """Same type, zones and launch settings but for the reservation, one distinct reservation each."""

    def same(m: _Group) -> tuple[Any, ...]:
        rest = {k: v for k, v in m.values.items() if k != "capacity_reservation_id"}
        return (
            m.instance_type,
            tuple(m.zones),
            sorted(rest.items()),
            m.interfaces,
            tuple(pg.urn for pg in m.placement_groups),
            m.external_placement,
            m.volumes,
        )

    ids = [m.values.get("capacity_reservation_id") for m in members]
    return (
        all(isinstance(i, str) for i in ids)
        and len(set(ids)) == len(ids)
        and len({_place(m) for m in members}) == len(members)
        and all(same(m) == same(members[0]) for m in members)
    )


def _eks_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[_Group]:
    """EKS managed node groups: `scalingConfig.desiredSize` instances of `instanceTypes[0]` or the template's type."""
    groups = []
    for ng in graph.of_type(EKS_NODE_GROUP):
        template = _template_of(graph, ng, ng.get("launchTemplate"), "launchTemplate")
        types, type_source = [t for t in as_list(ng.get("instanceTypes")) if t is not None], ng
        types_at = (ng, "instanceTypes")
        if not types and template is not None:
            types, type_source = [template.get("instanceType")], template
            types_at = (template, "instanceType")
        planned, lo, hi = _size(
            ng.get("scalingConfig", "desiredSize"),
            ng.get("scalingConfig", "minSize"),
            ng.get("scalingConfig", "maxSize"),
        )
        itype = _pick(types, cat, ng, gaps, unplanned, "EKS node group", planned, lo, hi, types_at)
        if itype is None:
            continue
        _refused_sizes(
            "EKS node group",
            ng,
            ("scalingConfig.desiredSize", "scalingConfig.minSize", "scalingConfig.maxSize"),
            as_int(ng.get("scalingConfig", "desiredSize")),
            lo,
            hi,
            gaps,
        )
        if planned is None:
            gaps.append(
                Violation(
                    f"cannot tell how many instances EKS node group '{ng.name}' runs; not planned",
                    ng.urn,
                    fix=Fix(edits=(change(ng, "scalingConfig.desiredSize", note=KNOWN_AT_PREVIEW),)),
                    left_out=f"EKS node group '{ng.name}' (size unknown)",
                )
            )
            continue
        if planned == 0:
            capacity = ng.get("capacityType")
            purchase = (
                _EKS_CAPACITY.get(capacity, "on-demand")
                if isinstance(capacity, str)
                else _launch_values(graph, template, None)[0].get("purchase", "on-demand")
            )
            unplanned.append(
                (
                    Unplanned(
                        f"EKS node group '{ng.name}'",
                        "scaled-to-zero",
                        (itype,),
                        0,
                        lo,
                        hi,
                        f"{lo or 0}-{hi if hi is not None else '?'} instances",
                        fix=_zero_fix(ng, "scalingConfig.desiredSize", hi),
                        maxima=((itype, hi),) if hi else (),
                        purchase=purchase,
                        name=ng.name,
                    ),
                    ng.urn,
                )
            )
            continue
        zones, pgs, external = _where(
            graph, ng, template, _zones(graph.resolve(ng, "subnetIds", as_list(ng.get("subnetIds")), SUBNET))
        )
        values, sources, interfaces = _launch_values(graph, template, None, gaps)
        capacity = ng.get("capacityType")
        if isinstance(capacity, str) and capacity in _EKS_CAPACITY:
            values["purchase"], sources["purchase"] = _EKS_CAPACITY[capacity], ng
        sources["instance_type"] = type_source
        groups.append(
            _Group(
                ng.name,
                itype,
                planned,
                ng,
                template,
                values,
                sources,
                pgs,
                zones,
                hi,
                external,
                interfaces,
                launch_volumes(template) if template is not None else eks_volumes(ng),
            )
        )
    return groups


def _instance_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[_Group]:
    """Instances launched directly: one group per (launch template, type, AZ, placement group, interfaces)."""
    by_key: dict[tuple[Any, ...], _Group] = {}
    outside: dict[str, tuple[list[Resource], str]] = {}
    for inst in graph.of_type(INSTANCE):
        template = _template_of(graph, inst, inst.get("launchTemplate"), "launchTemplate")
        itype = inst.get("instanceType")
        type_source = inst
        if not known(itype) and template is not None:
            itype, type_source = template.get("instanceType"), template
        if not known(itype):
            gaps.append(
                Violation(
                    f"cannot tell the instance type of '{inst.name}' (unknown during preview); not planned",
                    inst.urn,
                    fix=Fix(
                        edits=(change(inst, "instanceType", note=LITERAL_TYPE),),
                        alternatives=(change(template, "instanceType", note=LITERAL_TYPE),) if template else (),
                    ),
                    left_out=f"EC2 instance '{inst.name}' (instance type unknown)",
                )
            )
            continue
        if not isinstance(itype, str) or not cat.lists(itype):
            if isinstance(itype, str) and _ACCELERATED.match(itype):
                outside.setdefault(itype, ([], inst.urn))[0].append(inst)
            continue
        az = inst.get("availabilityZone")
        zones = [az] if isinstance(az, str) and known(az) else []
        if not zones:
            zones = _zones(graph.resolve(inst, "subnetId", [inst.get("subnetId")], SUBNET))
        values, sources, interfaces = _launch_values(graph, template, inst, gaps)
        if not zones:
            zones = _zones(_interface_subnets(graph, inst))
        zones, pgs, external = _where(graph, inst, template, zones)
        sources["instance_type"] = type_source
        root = launch_volumes(template, inst)
        key = (
            template.urn if template else None,
            itype,
            tuple(zones),
            tuple(p.urn for p in pgs),
            external,
            tuple(sorted((k, str(v)) for k, v in values.items())),
            interfaces,
            root,
        )
        if key in by_key:
            by_key[key].count += 1
            continue
        name = template.name if template is not None else re.sub(r"[-_]?\d+$", "", inst.name) or inst.name
        by_key[key] = _Group(
            name, itype, 1, inst, template, values, sources, pgs, zones, None, external, interfaces, root
        )
    for itype, (instances, urn) in outside.items():
        unplanned.append(
            (
                Unplanned(
                    f"{len(instances)} EC2 instance(s) ({', '.join(i.name for i in instances[:3])}"
                    f"{', ...' if len(instances) > 3 else ''})",
                    "unlisted",
                    (itype,),
                    len(instances),
                    fix=unlisted_fix((itype,)),
                ),
                urn,
            )
        )
    return list(by_key.values())


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


def _pcs_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[_Group]:
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
        template = _template_of(graph, r, spec, "customLaunchTemplate")
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
        itype = _pick([t for t in types if t is not None], cat, r, gaps, unplanned, PCS_KIND, lo, lo, hi, types_at)
        if itype is None:
            continue
        _pcs_refused(r, lo, hi, gaps)
        zones = _zones(graph.resolve(r, "subnetIds", as_list(r.get("subnetIds")), SUBNET))
        zones, pgs, external = _where(graph, r, template, zones)
        values, sources, interfaces = _launch_values(graph, template, None, gaps)
        values["purchase"], sources["purchase"] = purchase, r
        sources["instance_type"] = r
        volumes = template_volumes(graph, r, spec, "customLaunchTemplate")  # None: no launch template (the AMI's)
        groups.append(
            _Group(
                r.name,
                itype,
                lo,
                r,
                template,
                values,
                sources,
                pgs,
                zones,
                hi,
                external,
                interfaces,
                volumes if volumes is not None else launch_volumes(None),
                grows_with_jobs=True,
            )
        )
    return groups


def _pcs_refused(r: Resource, lo: int | None, hi: int | None, gaps: list[Violation]) -> None:
    props = ("", "scalingConfiguration.minInstanceCount", "scalingConfiguration.maxInstanceCount")
    _refused_sizes(PCS_KIND, r, props, None, lo, hi, gaps)


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


def _accelerated(cat: Any, types: list[str]) -> bool:
    """True when one of `types` has an accelerator (listed with one, or named like an accelerated family)."""
    for t in (name.removeprefix("ml.") for name in types):  # a SageMaker type names its EC2 type after "ml."
        spec = cat.get(t)
        if (spec is not None and spec.accelerator is not None) or (spec is None and _ACCELERATED.match(t + ".")):
            return True
    return False


def _pcs_unpriced(
    r: Resource, cat: Any, lo: int | None, hi: int | None, unplanned: list[tuple[Unplanned, str | None]]
) -> None:
    """A PCS group bought as an interruptible capacity reservation: counted, named, never priced."""
    types = [t for t in (dig(i, "instanceType") for i in as_list(r.get("instanceConfigs"))) if isinstance(t, str)]
    accelerated = [t for t in types if cat.lists(t) or _ACCELERATED.match(t)]
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
                fix=advice("price it yourself: planner does not price it at the On-Demand rate"),
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


def _pick(
    types: list[Any],
    cat: Any,
    res: Resource,
    gaps: list[Violation],
    unplanned: list[tuple[Unplanned, str | None]],
    kind: str,
    planned: int | None,
    lo: int | None,
    hi: int | None,
    types_at: tuple[Resource, str],
) -> str | None:
    """The type a group is planned with: the first catalogue type it may launch.

    A bastion or head node (no accelerated type) is not the training cluster: skipped.
    Accelerated types outside the catalogue are kept as unplanned compute, named with their count.
    `types_at`: the resource and property the types were read from, which a fix sets.
    """
    if not types or not all(known(t) for t in types):
        gaps.append(
            Violation(
                f"cannot tell the instance type of '{res.name}' (unknown during preview, or set nowhere); not planned",
                res.urn,
                fix=Fix(edits=(change(*types_at, note=LITERAL_TYPE),)),
                left_out=f"{kind} '{res.name}' (instance type unknown)",
            )
        )
        return None
    names = [t for t in types if isinstance(t, str)]
    listed = [t for t in names if cat.lists(t)]
    others = [t for t in names if not cat.lists(t) and _ACCELERATED.match(t)]
    if not listed:
        if others:
            unplanned.append(
                (
                    Unplanned(
                        f"{kind} '{res.name}'",
                        "unlisted",
                        tuple(others),
                        planned,
                        lo,
                        hi,
                        f"{lo if lo is not None else '?'}-{hi if hi is not None else '?'} instances",
                        fix=unlisted_fix(tuple(others)),
                    ),
                    res.urn,
                )
            )
        return None
    if len(names) > 1:
        gaps.append(
            Violation(
                f"{kind} '{res.name}' may launch any of {', '.join(names)}; planned as {listed[0]}",
                res.urn,
                fix=Fix(
                    "or split it into one group per type, so each is planned and priced",
                    (change(*types_at, note=f"the one type {listed[0]}"),),
                ),
            )
        )
    return listed[0]


# what a fix writes where a value must be known at preview (a literal, not another resource's output)
KNOWN_AT_PREVIEW = "a number known at preview"
LITERAL_TYPE = "a literal type, not an output of another resource"
_OVERRIDE_TYPES = "mixedInstancesPolicy.launchTemplate.overrides[].instanceType"
# the property that names the subnets (and so the Availability Zone) a resource launches into
_SUBNETS = {AUTOSCALING_GROUP: "vpcZoneIdentifiers", INSTANCE: "subnetId", EKS_NODE_GROUP: "subnetIds"}


def _zero_fix(r: Resource, desired: str, hi: int | None) -> Fix:
    most = f" (at most {hi}, its maximum)" if hi is not None else ""
    return Fix(
        "to have it planned and priced:", (change(r, desired, note=f"the number of instances it will run{most}"),)
    )


def refused_fix(r: Resource, first: tuple[str, int], instead: tuple[str, int]) -> Fix:
    """Sizes AWS refuses: set one size property of `r` (engine names) to a value that fits, or another instead."""
    return Fix(edits=(change(r, first[0], first[1]),), alternatives=(change(r, instead[0], instead[1]),))


def _in_a_known_zone(r: Resource) -> Edit:
    """Launch `r` into a subnet whose Availability Zone the program says."""
    return change(
        r, _SUBNETS.get(r.type, "subnetIds"), note="a subnet created in this program with its availability zone set"
    )


def _declared_placement(g: _Group) -> Edit:
    """Name a cluster placement group the program declares, where the group names one it does not."""
    owner = g.capacity if g.capacity.get("placementGroup") == g.external_placement else g.template
    prop = "placementGroup" if owner is g.capacity else "placement.groupName"
    note = 'an aws.ec2.PlacementGroup with strategy "cluster" declared in this program'
    return change(owner or g.capacity, prop, note=note)


def _interface_subnets(graph: Graph, inst: Resource) -> list[Resource]:
    enis = _attached(graph, inst)
    return [s for e in enis for s in graph.resolve(e, "subnetId", [e.get("subnetId")], SUBNET)]


def _attached(graph: Graph, inst: Resource) -> list[Resource]:
    """The network interfaces attached to `inst` at launch (`networkInterfaces[].networkInterfaceId`)."""
    ids = [n.get("networkInterfaceId") for n in as_list(inst.get("networkInterfaces")) if isinstance(n, dict)]
    return graph.resolve(inst, "networkInterfaces", [i for i in ids if i is not None], NETWORK_INTERFACE) if ids else []


def _launch_values(
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
            enis = _attached(graph, res)
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


@dataclass(frozen=True)
class _Target:
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
                    fix=advice(t.at_deploy_fix),
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


def _where(
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
    return _zones(graph.resolve(template, "networkInterfaces", [s for s in subnets if s is not None], SUBNET))


def _template_placement(graph: Graph, template: Resource) -> list[Resource]:
    name = template.get("placement", "groupName")
    return graph.resolve(template, "placement", [name], PLACEMENT_GROUP) if name is not None else []


def _zones(subnets: list[Resource]) -> list[str]:
    zones = [s.get("availabilityZone") for s in subnets]
    return list(dict.fromkeys(z for z in zones if isinstance(z, str) and known(z)))


def _unique_name(raw: str, taken: set[str]) -> str:
    """A valid node group name (lower-case letters, digits, dashes, at most 32) from a resource name."""
    base = _NAME_OK.sub("-", raw.lower()).strip("-")[:32].strip("-") or "group"
    name, n = base, 2
    while name in taken:
        suffix = f"-{n}"
        name = base[: 32 - len(suffix)].strip("-") + suffix
        n += 1
    taken.add(name)
    return name


# --- file system and region ----------------------------------------------------------------


def _lustre(graph: Graph, fs: Resource, cluster_az: str | None, gaps: list[Violation]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, prop in (
        ("deployment_type", "deploymentType"),
        ("storage_capacity_gib", "storageCapacity"),
        ("per_unit_storage_throughput", "perUnitStorageThroughput"),
        ("s3_import_path", "importPath"),
    ):
        v = fs.get(prop)
        if known(v) and v != "":
            out[key] = as_int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    if "s3_import_path" not in out:  # PERSISTENT_2 links S3 through data repository associations
        for dra in graph.of_type(DATA_REPOSITORY_ASSOCIATION):
            linked = graph.resolve(dra, "fileSystemId", [dra.get("fileSystemId")], LUSTRE)
            path = dra.get("dataRepositoryPath")
            if any(f.urn == fs.urn for f in linked) and isinstance(path, str) and known(path):
                out["s3_import_path"] = path
                break
    if known(fs.get("efaEnabled")):
        out["efa_enabled"] = truthy(fs.get("efaEnabled"))
    out.setdefault("deployment_type", "SCRATCH_1")  # the FSx API's default deployment type
    zones = _zones(graph.resolve(fs, "subnetIds", as_list(fs.get("subnetIds")), SUBNET))
    if zones:
        out["availability_zone"] = zones[0]
    elif cluster_az is None:  # no node group tells an AZ either (compute HyperPod or Karpenter runs)
        gaps.append(
            Violation(
                f"cannot tell the Availability Zone of file system '{fs.name}' (its subnet is not a "
                "resource of this stack, or names no availabilityZone): checks that need it are not run",
                fs.urn,
                fix=f"give file system '{fs.name}' a subnet created in this program with availability_zone set",
            )
        )
    else:
        gaps.append(
            Violation(
                f"cannot tell the Availability Zone of file system '{fs.name}'; assumed "
                f"{cluster_az or 'the one of the node groups'}",
                fs.urn,
                fix=(
                    f"give file system '{fs.name}' a subnet created in this program with availability_zone"
                    + (f": {cluster_az} (the node groups' AZ)" if cluster_az else " set")
                ),
            )
        )
    return out


def _lustre_efa_fields(graph: Graph, fs: Resource) -> dict[str, bool | None]:
    """What an EFA-enabled file system needs beyond `efaEnabled`, as the resources say it: a
    `metadataConfiguration` (known to be there or not), and whether its security groups, together, allow
    all traffic with themselves inbound and outbound (None when a group is not a resource of this program,
    or none is named: the subnet's default group, which the program does not show)."""
    from planner.readback.security_groups import DIRECTIONS, self_referencing

    meta = fs.get("metadataConfiguration")
    metadata = None if meta is not None and not known(meta) else bool(meta)
    ids = as_list(fs.get("securityGroupIds"))
    groups = graph.resolve(fs, "securityGroupIds", ids, SECURITY_GROUP) if ids else []
    if not ids or not all(isinstance(i, str) and known(i) for i in ids) or len(groups) != len(ids):
        return {"metadata_configuration": metadata, "efa_security_group": None}
    both = set().union(*(self_referencing(graph, g) for g in groups)) >= set(DIRECTIONS)
    return {"metadata_configuration": metadata, "efa_security_group": both}


def _region_of_zones(graph: Graph) -> str | None:
    """The region of the first Availability Zone any resource names (`us-east-2b` is in `us-east-2`)."""
    for r in graph.resources:
        for value in (
            r.get("availabilityZone"),
            r.get("placement", "availabilityZone"),
            *as_list(r.get("availabilityZones")),
        ):
            m = _AZ.match(str(value)) if isinstance(value, str) else None
            if m:
                return m.group(1)
    return None


# --- the planner model ---------------------------------------------------------------------


def to_stack(
    rebuilt: Rebuilt, name: str, file: str, extra: dict[str, Any] | None = None
) -> tuple[Stack | None, list[Violation]]:
    """The read-back as a `Stack`, or the problems that keep it from being planned, each with the URN
    at fault. None: nothing to plan.

    Each node group and the file system are read through the stack schema's tables (the same
    field checks as a stack file's), built with what the resources give beyond them (`launches`),
    and the cluster is checked by `check_cluster`, as any source's. `extra` adds planning keys
    (the stack config's, or the policy pack's) and may replace the node groups. A zone the
    resources do not tell is "" (unknown); gaps become notes that the `readback-gap` rule reports,
    located at the resource they concern.
    """
    from planner.core.input.cluster_checks import check_cluster
    from planner.core.input.stack_files import SCHEMA, lustre, node_group, planning
    from planner.core.reading.fields import Reader

    if rebuilt.region is None or (rebuilt.data is None and not rebuilt.unplanned):
        return None, []
    data = dict(rebuilt.data or {"availability_zone": UNKNOWN_AZ, "node_groups": []}, **(extra or {}))
    r = Reader(file, {}, SCHEMA)
    zone = data["availability_zone"]
    groups = []
    for i, entry in enumerate(data.get("node_groups") or ()):
        read = rebuilt.launches.get(str(entry.get("name"))) if isinstance(entry, dict) else None
        g = node_group(r, entry, CLUSTER_PATH + ("node_groups", i), zone, **(read or Launch()).fields())
        if g is not None:
            groups.append(g)
    fs = lustre(r, data["lustre"], CLUSTER_PATH + ("lustre",), zone) if data.get("lustre") is not None else None
    if fs is not None and rebuilt.lustre_fields:
        fs = replace(fs, **rebuilt.lustre_fields)  # type: ignore[arg-type]
    if not zone and not groups and fs is not None:  # the file system's AZ is the only one the stack names
        zone = fs.availability_zone
    keys = planning(r, data, CLUSTER_PATH)
    notes = []
    groups_at = CLUSTER_PATH + ("node_groups",)  # each node group's index, by the resource it was read from
    held = {urn: p[-1] for p, urn in rebuilt.resources.items() if p[:-1] == groups_at and urn}
    for k, gap in enumerate(rebuilt.gaps):
        path = CLUSTER_PATH + ("notes", k)
        rebuilt.locate(path, gap.urn)
        fix = advice(gap.fix) if isinstance(gap.fix, str) else gap.fix  # words alone: the file system's
        notes.append(Note(gap.message, path, held_in_model(fix, held) if fix else None, gap.rule, gap.left_out))
    cluster = Cluster(
        zone,
        tuple(groups),
        data.get("placement_group"),
        fs,
        keys.schedule,
        keys.workload,
        keys.budget,
        keys.suppress,
        path=CLUSTER_PATH,
        root_volume_gib=None,
        unplanned=tuple(rebuilt.unplanned),
        notes=tuple(notes),
    )
    problems = [(p.key, p.message) for p in r.problems]
    problems += [(key_path(p.path), p.message) for p in check_cluster(cluster, rebuilt.region)]
    if problems:
        return None, [
            Violation(
                f"cannot plan the cluster read from the stack's resources: {key}: {message}", rebuilt.urn_of_key(key)
            )
            for key, message in problems
        ]
    return Stack(name, file, rebuilt.region, cluster, resources=dict(rebuilt.resources)), []
