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

This module is the assembly (`rebuild`, `to_stack`); each family of compute is read by its own module into
`ReadGroup`s (`planner.readback.compute_groups`): Auto Scaling groups (`auto_scaling`), EKS managed node
groups (`eks_node_groups`), plain EC2 instances (`ec2_instances`), AWS PCS compute node groups
(`pcs_node_groups`), each through what their launch templates say (`launch_templates`); compute that sizes
itself is `elastic_compute`'s. `_FIXED_COMPUTE` lists the readers.

Findings point at key paths; each path of the rebuilt mapping records the URN of the
resource it came from (`Stack.resources`, the read-back's locator, see `planner.core.input.locations`),
so a finding lands on the resource at fault.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from planner.core.catalogue import instance_types as _catalogue
from planner.core.input.stack_files import CLUSTER_PATH
from planner.core.model.cluster import Cluster, LaunchInterface, Note, Path, Stack, Suppression, Unplanned, Volume
from planner.core.model.findings import Edit, Fix, outside
from planner.core.reading.fields import key_path
from planner.readback import fsx_csi as _fsx_csi
from planner.readback.auto_scaling import asg_groups, merge_ultraservers, ultraserver_type_of
from planner.readback.compute_groups import GroupReader, ReadGroup, accelerated
from planner.readback.ec2_instances import instance_groups
from planner.readback.eks_node_groups import eks_groups
from planner.readback.elastic_compute import KINDS as ELASTIC_KINDS
from planner.readback.elastic_compute import PCS_KIND
from planner.readback.elastic_compute import read as read_elastic
from planner.readback.file_system import lustre as _lustre
from planner.readback.file_system import lustre_efa_fields as _lustre_efa_fields
from planner.readback.launch_templates import DEPLOY_TARGET
from planner.readback.pcs_node_groups import pcs_groups
from planner.readback.program_terms import held_in_model
from planner.readback.resources import (
    AUTOSCALING_GROUP,
    EKS_NODE_GROUP,
    INSTANCE,
    LUSTRE,
    Graph,
    Resource,
    Violation,
    as_list,
    change,
)

_NAME_OK = re.compile(r"[^a-z0-9-]+")
_AZ = re.compile(r"^([a-z]{2}(-gov)?-[a-z]+-\d)[a-z]$")
UNKNOWN_AZ = ""  # the cluster's AZ when no resource of the stack tells it
_PARENT_KEY = re.compile(r"(\.[^.\[]*|\[\d+\])$")  # the last step of a key path


class Rebuilt(Struct):
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
    # the file system's fields a stack file has no key for (`Lustre.metadata_configuration`, `efa_security_group`,
    # `metadata_mode`, `metadata_iops`)
    lustre_fields: dict[str, bool | int | str | None] = field(default_factory=dict)
    # existing FSx for Lustre file systems the program's Kubernetes volumes mount (`fsx_csi.mounted`)
    mounted_lustre: tuple[str, ...] = ()

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


class Launch(Struct, frozen=True):
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
    subnet_ids: tuple[str, ...] = ()  # the existing subnets it names (`planner.readback.subnets`)

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
            "subnet_ids": self.subnet_ids,
        }
        if self.target is not None:
            key, what = self.target
            if key == "capacity_reservation_id":
                out["capacity_reservation_ids"] = (what,)
            else:
                out["capacity_reservation_resource_group_arn"] = what
        return out


# The compute of a fixed size that `rebuild` reads into node groups, in this order, each as a
# message names it; with the self-sizing kinds (`elastic_compute.KINDS`), `COMPUTE_KINDS`.
_FIXED_COMPUTE: tuple[tuple[str, GroupReader], ...] = (
    ("EC2 Auto Scaling group", lambda g, c, x, u: merge_ultraservers(asg_groups(g, c, x, u))),
    ("EKS managed node group", lambda g, c, x, u: eks_groups(g, c, x, u)),
    ("EC2 instance", lambda g, c, x, u: instance_groups(g, c, x, u)),
    (PCS_KIND, lambda g, c, x, u: pcs_groups(g, c, x, u)),
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
    if not accelerated(cat, [g.instance_type for g in groups] + [t for u, _ in unplanned for t in u.instance_types]):
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
        ultra = ultraserver_type_of(g)
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

    # the FSx resources first, then the file systems the FSx for Lustre CSI driver provisions for the claims of a
    # StorageClass of its own (`fsx_csi`): planner models one per cluster, the first
    provisioned, csi_gaps = _fsx_csi.read(graph)
    gaps += csi_gaps
    out.mounted_lustre = _fsx_csi.mounted(graph)
    file_systems: list[tuple[Resource, _fsx_csi.Provisioned | None]] = [(fs, None) for fs in lustres]
    file_systems += [(p.fs, p) for p in provisioned]
    if file_systems:  # kept with self-sizing compute too: a HyperPod cluster mounts it through its lifecycle scripts
        first, csi = file_systems[0]
        data["lustre"] = _lustre(graph, first, cluster_az, gaps, "parameters.subnetId" if csi else "subnetIds")
        out.locate(CLUSTER_PATH + ("lustre",), first.urn)
        out.lustre_fields = _lustre_efa_fields(graph, first)
        if csi is not None:
            out.locate(CLUSTER_PATH + ("lustre", "storage_capacity_gib"), csi.claim.urn)
            if csi.requested:
                gaps.append(
                    Violation(
                        f"PersistentVolumeClaim '{csi.claim.name}' requests {csi.requested}; the FSx for Lustre CSI "
                        f"driver rounds it up to {data['lustre']['storage_capacity_gib']:,} GiB for "
                        f"{data['lustre']['deployment_type']}, the size planned and priced",
                        csi.claim.urn,
                        fix=Fix(
                            edits=(
                                change(
                                    csi.claim,
                                    "spec.resources.requests.storage",
                                    f"{data['lustre']['storage_capacity_gib']}Gi",
                                    "the size the driver creates",
                                ),
                            )
                        ),
                        severity="info",
                    )
                )
        for extra, extra_csi in file_systems[1:]:
            if extra_csi is None:
                gaps.append(
                    Violation(
                        "planner models one FSx for Lustre file system per cluster; this one is checked by "
                        "the resource policies but not planned or priced",
                        extra.urn,
                        fix=outside(
                            "record",
                            "price this file system separately (a stack file with its lustre settings), or plan "
                            "each file system's cluster as its own stack",
                        ),
                        left_out=f"FSx for Lustre file system '{extra.name}'",
                    )
                )
                continue
            gaps.append(
                Violation(
                    "planner models one FSx for Lustre file system per cluster; the one the FSx for Lustre CSI "
                    f"driver provisions for PersistentVolumeClaim '{extra_csi.claim.name}' is not planned, checked "
                    "or priced",
                    extra_csi.claim.urn,
                    fix=outside(
                        "record",
                        "price this file system separately (a stack file with its lustre settings), or plan "
                        "each file system's cluster as its own stack",
                    ),
                    left_out=f"FSx for Lustre file system of PersistentVolumeClaim '{extra_csi.claim.name}'",
                )
            )
    out.data = data
    return out


# the property that names the subnets (and so the Availability Zone) a resource launches into
_SUBNETS = {AUTOSCALING_GROUP: "vpcZoneIdentifiers", INSTANCE: "subnetId", EKS_NODE_GROUP: "subnetIds"}


def _in_a_known_zone(r: Resource) -> Edit:
    """Launch `r` into a subnet whose Availability Zone the program says."""
    return change(
        r, _SUBNETS.get(r.type, "subnetIds"), note="a subnet created in this program with its availability zone set"
    )


def _declared_placement(g: ReadGroup) -> Edit:
    """Name a cluster placement group the program declares, where the group names one it does not."""
    owner = g.capacity if g.capacity.get("placementGroup") == g.external_placement else g.template
    prop = "placementGroup" if owner is g.capacity else "placement.groupName"
    note = 'an aws.ec2.PlacementGroup with strategy "cluster" declared in this program'
    return change(owner or g.capacity, prop, note=note)


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


# --- region -------------------------------------------------------------------------------------


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
    rebuilt: Rebuilt,
    name: str,
    file: str,
    extra: dict[str, Any] | None = None,
    suppress: tuple[Suppression, ...] = (),
) -> tuple[Stack | None, list[Violation]]:
    """The read-back as a `Stack`, or the problems that keep it from being planned, each with the URN
    at fault. None: nothing to plan.

    Each node group and the file system are read through the stack schema's tables (the same
    field checks as a stack file's), built with what the resources give beyond them (`launches`),
    and the cluster is checked by `check_cluster`, as any source's. `extra` adds planning keys
    (the stack config's, or the policy pack's) and may replace the node groups; `suppress`, the resources'
    own suppressions (their tags and comments), follows the planning keys'. A zone the
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
    fs = (
        lustre(r, data["lustre"], CLUSTER_PATH + ("lustre",), zone, **rebuilt.lustre_fields)
        if data.get("lustre") is not None
        else None
    )
    if not zone and not groups and fs is not None:  # the file system's AZ is the only one the stack names
        zone = fs.availability_zone
    keys = planning(r, data, CLUSTER_PATH)
    notes = []
    groups_at = CLUSTER_PATH + ("node_groups",)  # each node group's index, by the resource it was read from
    held = {urn: p[-1] for p, urn in rebuilt.resources.items() if p[:-1] == groups_at and urn}
    for k, gap in enumerate(rebuilt.gaps):
        path = CLUSTER_PATH + ("notes", k)
        rebuilt.locate(path, gap.urn)
        fix = gap.fix
        notes.append(
            Note(gap.message, path, held_in_model(fix, held) if fix else None, gap.rule, gap.left_out, gap.severity)  # type: ignore[arg-type]
        )
    cluster = Cluster(
        zone,
        tuple(groups),
        data.get("placement_group"),
        fs,
        keys.schedule,
        keys.workload,
        keys.budget,
        keys.suppress + suppress,
        path=CLUSTER_PATH,
        root_volume_gib=None,
        unplanned=tuple(rebuilt.unplanned),
        notes=tuple(notes),
        mounted_lustre=rebuilt.mounted_lustre,
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
