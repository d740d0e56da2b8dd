"""Stack files in, typed model out, or every problem at once, one line each.

The schema is a contract (see docs/stack-schema.md): later checks rely on its keys, so
they are extended, never renamed. A plain mapping (Pulumi config, a component's args) goes
through the same code as a file, so every entry point rejects the same input.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any, Literal

from msgspec import Struct
from msgspec.structs import replace

from planner.core.catalogue import instance_types as _catalogue
from planner.core.catalogue import shipped_data as _data
from planner.core.input.cluster_checks import budget_problems, check_cluster
from planner.core.model.cluster import (
    GLOBAL_BATCH_TOKENS,
    INTELLIGENT_TIERING,
    LUSTRE_DEPLOYMENTS,
    LUSTRE_STORAGE_TYPES,
    PLACEMENTS,
    PRECISIONS,
    PURCHASES,
    READ_CACHE_SIZING_MODES,
    ROOT_VOLUME_GIB,
    ROOT_VOLUME_RANGE,
    SEQUENCE_LENGTH,
    Budget,
    Cluster,
    Lustre,
    Network,
    NodeGroup,
    Path,
    Schedule,
    Stack,
    Suppression,
    Workload,
)
from planner.core.model.transformer import Transformer
from planner.core.reading import yaml_lines as yamlload
from planner.core.reading.fields import (  # noqa: F401 - the old private names stay importable from here
    _NUMBER,
    _REGION,
    MAX_MAGNITUDE,
    SHOWN_CHARS,
    Field,
    Reader,
    Table,
    _closest,
    _kind,
    _one_line,
    edits,
)
from planner.core.reading.problems import InputError, Problem
from planner.core.reading.yaml_lines import Lines, line_of

CLUSTER_KEY = "planner:cluster"
REGION_KEY = "aws:region"
CLUSTER_PATH: Path = ("config", CLUSTER_KEY)

# Every pattern is matched with `fullmatch`: `$` also matches before a trailing newline,
# so `re.match("^...$")` would accept "us-east-2\n". (The anchors stay: the editor schema,
# planner.core.input.json_schema, copies these patterns, and JSON Schema patterns are not anchored.)
_STACK_FILE = re.compile(r"^Pulumi\.([A-Za-z0-9_.-]+)\.ya?ml$")
_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$")
_RESERVATION = re.compile(r"^cr-[0-9a-f]{8,17}$")
# A resource group's ARN, as the Resource Groups API reference gives its pattern (GroupIdentifier.GroupArn,
# https://docs.aws.amazon.com/ARG/latest/APIReference/API_GroupIdentifier.html): partition, region,
# 12-digit account, group name of letters, digits, `_`, `.` and `-` (at most 300).
RESOURCE_GROUP_ARN = re.compile(
    r"^arn:aws(-[a-z]+)*:resource-groups:([a-z]{2}(-[a-z]+)+-\d):[0-9]{12}:group/[a-zA-Z0-9_.-]{1,300}$"
)
_VPC = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_SUBNET = re.compile(r"^subnet-[0-9a-f]{8,17}$")

# Lower bounds below which a figure is a mistake, not a plan: it would print as 0 h or
# $0.00, or overflow the arithmetic (`mfu: 5e-324` makes training time infinite).
MIN_HOURS = 1.0  # schedule.hours: a plan is priced in hours ("0 h" is no plan)
MIN_USD = 0.01  # budgets: one cent, the smallest amount a report prints
MIN_MFU = 0.01  # workload.mfu: 1 % of peak; published MFUs are 15-43 %
# workload.sequence_length and global_batch_tokens: bounds that keep the layout search finite, far
# beyond what is trained (DeepSeek-V3: 15,360 sequences of 4,096 tokens a step, arXiv:2412.19437)
MAX_SEQUENCE = 2**20
MAX_BATCH_TOKENS = 2**30


# --- the schema ------------------------------------------------------------------------
# One table per mapping: the parser reads each key through its `Field`, and
# `planner.core.input.json_schema` turns the same table into the JSON Schema editors use, so the two
# cannot drift apart. A known instance type is checked below; checks across keys (an AZ inside
# the region, `count` or `ultraservers`, UltraServer membership) are `check_cluster`'s
# (planner.core.input.cluster_checks), run on the model whatever built it; `doc` says so.


_S3_URL = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$")  # fullmatch: "." stops at a line break
_AZ_DOC = "an Availability Zone of the stack's region (aws:region), such as us-east-2b"

SCHEMA: dict[str, Table] = {
    "cluster": Table(
        "The declared training cluster (planner:cluster): node groups, storage, schedule, workload and budget.",
        {
            "availability_zone": Field("string", f"Default AZ for everything below: {_AZ_DOC}."),
            "node_groups": Field("list", "The instances of the cluster, at least one group.", of="node_group"),
            "placement_group": Field(
                "choice", "cluster or none; default: cluster when an on-demand group uses EFA.", options=PLACEMENTS
            ),
            "lustre": Field("mapping", "Optional FSx for Lustre file system shared by the node groups.", of="lustre"),
            "schedule": Field("mapping", "How long the cluster runs.", of="schedule"),
            "workload": Field(
                "mapping", "Optional: what the cluster will train (6 x parameters x tokens FLOPs).", of="workload"
            ),
            "budget": Field("mapping", "Optional spending limits checked against the estimate.", of="budget"),
            "suppress": Field("list", "Findings this stack accepts, each with the reason.", of="suppression"),
            "network": Field("mapping", "Optional: build in an existing VPC and subnet.", of="network"),
            "root_volume_gib": Field(
                "positive_int",
                f"Size of each instance's gp3 root volume in GiB, {ROOT_VOLUME_RANGE[0]} to "
                f"{ROOT_VOLUME_RANGE[1]} (the components create it; the estimate prices it).",
                default=ROOT_VOLUME_GIB,
                maximum=ROOT_VOLUME_RANGE[1],
                what=f"{ROOT_VOLUME_RANGE[0]} to {ROOT_VOLUME_RANGE[1]} GiB (a gp3 volume)",
            ),
        },
        required=("availability_zone", "node_groups"),
    ),
    "node_group": Table(
        "A group of identical instances. Give `count` (instances) or, for an UltraServer member type, `ultraservers`.",
        {
            "name": Field(
                "pattern",
                "Unique name: lower-case letters, digits and dashes, at most 32.",
                pattern=_NAME,
                what="a lower-case name of letters, digits and dashes (at most 32)",
            ),
            "instance_type": Field("string", "An EC2 instance type from `planner catalog`, such as trn2.48xlarge."),
            "count": Field("positive_int", "Number of instances."),
            "ultraservers": Field(
                "positive_int",
                "Number of whole UltraServers (instead of `count`): the UltraServer "
                "type's members each, such as four trn2u.48xlarge per u-trn2x64.",
            ),
            "ultraserver_type": Field(
                "choice",
                "The UltraServer type the group is made of (`planner catalog`), such as "
                "u-p6e-gb200x72; needed when the instance type belongs to several (p6e-gb200.36xlarge).",
                options=tuple(u.name for u in _catalogue.load().declarable_ultraserver_types),
            ),
            "purchase": Field("choice", "How the instances are bought.", options=PURCHASES, default="on-demand"),
            "efa": Field("boolean", "One EFA interface per network card; default: true where the type supports EFA."),
            "availability_zone": Field("string", f"Overrides the cluster AZ: {_AZ_DOC}."),
            "public_ip": Field("boolean", "Request a public IP at launch.", default=False),
            "capacity_reservation_id": Field(
                "pattern",
                "The capacity reservation (or Capacity Block) to launch into; for "
                "UltraServer Capacity Blocks, a list of one id per UltraServer is accepted too.",
                pattern=_RESERVATION,
                many=True,
                what="a capacity reservation id such as cr-0123456789abcdef0",
            ),
            "capacity_reservation_resource_group_arn": Field(
                "pattern",
                "A Capacity Reservation resource group (of Capacity Blocks or Capacity Reservations) to launch into "
                "(instead of capacity_reservation_id), in the stack's region.",
                pattern=RESOURCE_GROUP_ARN,
                what="a resource group ARN such as arn:aws:resource-groups:us-east-2:123456789012:group/NAME",
            ),
        },
        required=("name", "instance_type"),
    ),
    "lustre": Table(
        "An FSx for Lustre file system in one subnet (one AZ).",
        {
            "deployment_type": Field("choice", "The FSx for Lustre deployment type.", options=LUSTRE_DEPLOYMENTS),
            "storage_type": Field(
                "choice",
                "SSD (PERSISTENT_1's HDD tiers are chosen by per_unit_storage_throughput 12 or 40), or "
                "INTELLIGENT_TIERING (PERSISTENT_2 only): elastic storage, billed by what is stored.",
                options=LUSTRE_STORAGE_TYPES,
                default="SSD",
            ),
            "storage_capacity_gib": Field(
                "positive_int",
                "Storage capacity in GiB (FSx accepts fixed steps per type); required but for INTELLIGENT_TIERING, "
                "which has none to declare.",
            ),
            "per_unit_storage_throughput": Field(
                "positive_int", "MB/s per TiB of storage; PERSISTENT_1/2 SSD and HDD only."
            ),
            "throughput_capacity_mbps": Field(
                "positive_int", "INTELLIGENT_TIERING only: the file system's throughput capacity in MBps."
            ),
            "read_cache_sizing_mode": Field(
                "choice",
                "INTELLIGENT_TIERING only: how the SSD read cache is sized.",
                options=READ_CACHE_SIZING_MODES,
            ),
            "read_cache_size_gib": Field(
                "positive_int", "INTELLIGENT_TIERING only: the SSD read cache in GiB, with USER_PROVISIONED."
            ),
            "availability_zone": Field("string", f"Defaults to the cluster AZ: {_AZ_DOC}."),
            "efa_enabled": Field("boolean", "EFA-enabled file system (PERSISTENT_2 only).", default=False),
            "s3_import_path": Field(
                "pattern",
                "S3 bucket and prefix the file system is fed from.",
                pattern=_S3_URL,
                what="an S3 URL such as s3://bucket/prefix",
            ),
        },
        required=("deployment_type",),
    ),
    "schedule": Table(
        "How long the cluster runs.",
        {
            "hours": Field(
                "positive_number",
                "Hours the cluster runs (the estimate bills these hours), at least 1.",
                minimum=MIN_HOURS,
                what="at least 1 hour (a plan is priced in hours)",
            )
        },
        required=("hours",),
    ),
    "workload": Table(
        "What the cluster will train: planner derives the hours it needs, from the model's step on this "
        "topology (`model`) or from `parameters` at a flat `mfu`.",
        {
            "model": Field(
                "string",
                "The architecture: a named preset (planner compare --help lists them) or a Hugging Face "
                "config.json, relative to this file. Without `mfu`, the hours are predicted on the declared cluster.",
            ),
            "parameters": Field("positive_number", "Model parameters, such as 70e9 (with `mfu`, without `model`)."),
            "tokens": Field("positive_number", "Training tokens, such as 15e12."),
            "precision": Field("choice", "Precision of the run's peak figure.", options=PRECISIONS, default="bf16"),
            "mfu": Field(
                "positive_number",
                "Model FLOPs utilisation, a fraction of peak between 0.01 and 1; with `model`, it overrides the prediction.",
                maximum=1.0,
                minimum=MIN_MFU,
                what="a fraction of peak between 0.01 and 1 (such as 0.4)",
            ),
            "sequence_length": Field(
                "positive_int",
                f"Tokens per training sequence, with `model` (default {SEQUENCE_LENGTH:,}).",
                default=SEQUENCE_LENGTH,
                maximum=MAX_SEQUENCE,
                what=f"a whole number of tokens up to {MAX_SEQUENCE:,}",
            ),
            "global_batch_tokens": Field(
                "positive_int",
                f"Tokens per optimizer step, a multiple of sequence_length, with `model` (default {GLOBAL_BATCH_TOKENS:,}).",
                default=GLOBAL_BATCH_TOKENS,
                maximum=MAX_BATCH_TOKENS,
                what=f"a whole number of tokens up to {MAX_BATCH_TOKENS:,}",
            ),
            "checkpoint_max_minutes": Field(
                "positive_number", "lustre-checkpoint-time threshold in minutes (default 15)."
            ),
        },
        required=("tokens",),
    ),
    "budget": Table(
        "Spending limits; give total_usd and/or monthly_usd.",
        {
            "total_usd": Field(
                "positive_number",
                "Limit for the whole schedule, in USD (at least 0.01).",
                minimum=MIN_USD,
                what="at least 0.01 USD (a budget under one cent prints as $0.00)",
            ),
            "monthly_usd": Field(
                "positive_number",
                "Limit per 730-hour month, in USD (at least 0.01).",
                minimum=MIN_USD,
                what="at least 0.01 USD (a budget under one cent prints as $0.00)",
            ),
            "allow_incomplete": Field(
                "boolean",
                "Check the budget against the priced part when the estimate is "
                "incomplete (a price unknown, compute or hours left out); default: such a budget "
                "fails (budget-incomplete-cost).",
                default=False,
            ),
        },
    ),
    "suppression": Table(
        "A rule this stack accepts, and why.",
        {
            "rule": Field("string", "The rule id, as `planner rules` lists it."),
            "reason": Field("string", "Why the finding does not apply (shown in reports)."),
        },
        required=("rule", "reason"),
    ),
    "network": Table(
        "An existing VPC and subnet to build in.",
        {
            "vpc_id": Field(
                "pattern", "The existing VPC.", pattern=_VPC, what="a VPC id such as vpc-0123456789abcdef0"
            ),
            "subnet_id": Field(
                "pattern",
                "The subnet to use (required with vpc_id).",
                pattern=_SUBNET,
                what="a subnet id such as subnet-0123456789abcdef0",
            ),
        },
    ),
}

# Top-level keys of a Pulumi stack file (Pulumi's own, besides `config`).
STACK_FILE_KEYS = ("config", "secretsprovider", "encryptedkey", "encryptionsalt", "environment")
CLUSTER_KEYS = SCHEMA["cluster"].keys
GROUP_KEYS = SCHEMA["node_group"].keys
LUSTRE_KEYS = SCHEMA["lustre"].keys
WORKLOAD_KEYS = SCHEMA["workload"].keys


def parse_cluster(
    data: Any, region: str, file: str = "<config>", lines: Lines | None = None, path: Path = CLUSTER_PATH
) -> Cluster:
    """Read a `planner:cluster` mapping; raise InputError listing every problem."""
    r = Reader(file, lines or {}, SCHEMA)
    cluster = _cluster(r, data, region, path)
    if r.problems or cluster is None:
        raise InputError(r.problems or [Problem(file, None, r.key(path), "invalid cluster")])
    return cluster


def _cluster(r: Reader, data: Any, region: str, path: Path) -> Cluster | None:
    m = r.table(data, path, "cluster")
    if m is None:
        return None
    az = r.field(m, "cluster", "availability_zone", path)
    root = r.field(m, "cluster", "root_volume_gib", path)
    groups = _node_groups(r, m.get("node_groups"), path + ("node_groups",), az or "")
    placement = r.field(m, "cluster", "placement_group", path)
    fs = lustre(r, m["lustre"], path + ("lustre",), az or "") if m.get("lustre") is not None else None
    keys = planning(r, m, path)
    network = None
    if m.get("network") is not None:
        np_ = path + ("network",)
        nm = r.table(m["network"], np_, "network")
        before = len(r.problems)
        if nm is not None:
            vpc, subnet = r.field(nm, "network", "vpc_id", np_), r.field(nm, "network", "subnet_id", np_)
            if len(r.problems) == before:  # a bad id is its own problem, not a missing one
                network = Network(vpc, subnet, np_)
    if az is None or groups is None or root is None:
        return None
    draft = Cluster(
        az,
        tuple(replace(g, root_volume_gib=root) for g in groups),
        placement,
        fs,
        keys.schedule,
        keys.workload,
        keys.budget,
        keys.suppress,
        network,
        path,
        root,
    )
    for problem in check_cluster(draft, region):
        r.fail(problem.path, problem.message)
    return None if r.problems else draft


class PlanningKeys(Struct, frozen=True):
    """The planning keys of a cluster (`PLANNING_KEYS`): what a stack file adds to its topology, and
    all a program's stack config may add to the topology its resources declare."""

    schedule: Schedule | None = None
    workload: Workload | None = None
    budget: Budget | None = None
    suppress: tuple[Suppression, ...] = ()


def planning(r: Reader, m: dict[str, Any], path: Path) -> PlanningKeys:
    """The planning keys of a `planner:cluster` mapping read through their tables (every problem to `r`)."""
    schedule = None
    if m.get("schedule") is not None:
        sm = r.table(m["schedule"], path + ("schedule",), "schedule")
        if sm is not None:
            hours = r.field(sm, "schedule", "hours", path + ("schedule",))
            if hours is not None:
                schedule = Schedule(hours, path + ("schedule",))
    workload = _workload(r, m["workload"], path + ("workload",)) if m.get("workload") is not None else None
    budget = None
    if m.get("budget") is not None:
        bp = path + ("budget",)
        bm = r.table(m["budget"], bp, "budget")
        before = len(r.problems)
        if bm is not None:
            total, monthly = r.field(bm, "budget", "total_usd", bp), r.field(bm, "budget", "monthly_usd", bp)
            allow = bool(r.field(bm, "budget", "allow_incomplete", bp))
            if len(r.problems) == before:  # a bad limit is its own problem, not a missing one
                budget = Budget(total, monthly, bp, allow)
    suppress = _suppressions(r, m.get("suppress"), path + ("suppress",))
    return PlanningKeys(schedule, workload, budget, suppress)


def _node_groups(r: Reader, data: Any, path: Path, cluster_az: str) -> tuple[NodeGroup, ...] | None:
    if data is None:
        return None
    if not isinstance(data, list) or not data:
        r.fail(path, f"expected a non-empty list of node groups, got {_kind(data)}")
        return None
    groups = (node_group(r, raw, path + (i,), cluster_az) for i, raw in enumerate(data))
    return tuple(g for g in groups if g is not None)


def node_group(r: Reader, raw: Any, p: Path, cluster_az: str, **read_back: Any) -> NodeGroup | None:
    """One node group's fields read through the schema's `node_group` table (every problem to `r`), or
    None when a field is wrong. `read_back`: the fields a program's resources give that a stack file
    has no key for (`max_count`, `zones`, `interfaces`, `root_volume_gib`, a launch target known only at
    deploy), set as read. The checks across fields and groups are `check_cluster`'s."""
    cat = _catalogue.load()
    m = r.table(raw, p, "node_group")
    if m is None:
        return None
    name = r.field(m, "node_group", "name", p)
    itype = r.field(m, "node_group", "instance_type", p)
    spec = cat.get(itype) if itype else None
    if itype and spec is None:
        pending = cat.not_yet_listed(itype)
        if pending:
            sold = " and ".join(f"{u.title} ({u.accelerators} {u.accelerator.name})" for u in pending)
            r.fail(
                p + ("instance_type",),
                f"{_kind(itype)}: AWS sells {sold} since {pending[0].general_availability}, "
                f"but the EC2 API lists no {pending[0].family} instance type yet, so planner cannot plan or price one "
                "(`planner catalog` lists their figures)",
            )
        else:
            hint = _closest(itype, cat.all_names())
            r.fail(
                p + ("instance_type",),
                f"unknown instance type {_kind(itype)}{hint}; expected a type AWS's DescribeInstanceTypes lists "
                "(`planner catalog --all`)",
            )
    count = r.field(m, "node_group", "count", p)
    ultraservers = r.field(m, "node_group", "ultraservers", p)
    if "count" not in m and "ultraservers" not in m:
        r.fail(p, "missing required key 'count' (or 'ultraservers' for an UltraServer member type)")
    ultra = _ultraserver_type(r, m, p, cat, itype if spec is not None else None)
    if ultraservers is not None and count is None and "count" not in m:
        # in instances: an UltraServer's members each; a type sold one by one is refused by
        # `check_cluster` ('ultraservers' applies to member types), counted one per UltraServer meanwhile
        count = ultraservers * (ultra.members if ultra is not None else 1)
    purchase = r.field(m, "node_group", "purchase", p)
    efa = r.field(m, "node_group", "efa", p)
    if efa is None and "efa" not in m:
        efa = bool(spec and spec.efa_supported)
    az = r.field(m, "node_group", "availability_zone", p) or cluster_az
    public_ip = r.field(m, "node_group", "public_ip", p)
    reservation = r.field(m, "node_group", "capacity_reservation_id", p)
    group_arn = r.field(m, "node_group", "capacity_reservation_resource_group_arn", p)
    if None in (name, itype, count, purchase, efa, public_ip) or spec is None:
        return None
    fields: dict[str, Any] = {
        "capacity_reservation_ids": reservation or (),
        "capacity_reservation_resource_group_arn": group_arn,
        **read_back,
    }
    return NodeGroup(
        name=name,
        instance_type=itype,
        count=count,
        purchase=purchase,
        efa=efa,
        availability_zone=az,
        public_ip=public_ip,
        ultraservers=ultraservers,
        ultraserver_type=ultra.name if ultra else None,
        path=p,
        declared=frozenset(str(k) for k in m),
        **fields,
    )


def parse_storage(data: Any, region: str, file: str = "<config>", path: Path = CLUSTER_PATH) -> Cluster:
    """A file system used without a cluster (`LustreStorage` alone): `availability_zone` and `lustre`
    read through the cluster's tables and checked as a cluster's, a cluster of no node groups.
    InputError listing every problem."""
    r = Reader(file, {}, SCHEMA)
    m = r.mapping(data, path, ("availability_zone", "lustre"), required=("availability_zone", "lustre"))
    az = r.field(m, "cluster", "availability_zone", path) if m is not None else None
    fs = lustre(r, m["lustre"], path + ("lustre",), az or "") if m is not None and m.get("lustre") is not None else None
    if az is not None and fs is not None:
        for problem in check_cluster(Cluster(az, (), lustre=fs, path=path, root_volume_gib=None), region):
            r.fail(problem.path, problem.message)
    if r.problems or az is None or fs is None:
        raise InputError(r.problems or [Problem(file, None, r.key(path), "invalid file system")])
    return Cluster(az, (), lustre=fs, path=path)


def _ultraserver_type(
    r: Reader, m: dict[str, Any], p: Path, cat: _catalogue.Catalogue, itype: str | None
) -> _catalogue.UltraServerType | None:
    """The group's UltraServer type: the declared one, else the only one `itype` belongs to; None for a
    type sold one by one, or a member of several (p6e-gb200.36xlarge) that does not say which.
    `check_cluster` refuses a declared type `itype` is not a member of, and the unnamed choice."""
    name = r.field(m, "node_group", "ultraserver_type", p)
    if itype is None:
        return None
    if name is not None:  # one of the declarable types (the field is a choice)
        return cat.ultraserver_types[name]
    options = cat.ultraservers_of(itype)
    return options[0] if len(options) == 1 else None


def lustre(r: Reader, data: Any, path: Path, cluster_az: str, **read_back: Any) -> Lustre | None:
    """The file system's fields read through the schema's `lustre` table (every problem to `r`), or None.
    `read_back`: the fields a program's resources give that a stack file has no key for (the metadata
    configuration, its mode and IOPS, the EFA security group), set as read."""
    m = r.table(data, path, "lustre")
    if m is None:
        return None
    dtype = r.field(m, "lustre", "deployment_type", path)
    storage = r.field(m, "lustre", "storage_type", path)
    capacity = r.field(m, "lustre", "storage_capacity_gib", path)
    throughput = r.field(m, "lustre", "per_unit_storage_throughput", path)
    az = r.field(m, "lustre", "availability_zone", path) or cluster_az
    efa = r.field(m, "lustre", "efa_enabled", path)
    s3 = r.field(m, "lustre", "s3_import_path", path)
    mbps = r.field(m, "lustre", "throughput_capacity_mbps", path)
    cache_mode = r.field(m, "lustre", "read_cache_sizing_mode", path)
    cache_gib = r.field(m, "lustre", "read_cache_size_gib", path)
    tiering = storage == INTELLIGENT_TIERING
    # what one storage type takes and the other has no use for (the FSx API: an SSD or HDD file system
    # takes StorageCapacity and PerUnitStorageThroughput; an Intelligent-Tiering one ThroughputCapacity and
    # DataReadCacheConfiguration, its storage elastic); every such key is said, not the first only
    misplaced = False
    for k, why in (
        ("storage_capacity_gib", "storage_type: INTELLIGENT_TIERING, whose storage is elastic (nothing to declare)"),
        ("per_unit_storage_throughput", "storage_type: INTELLIGENT_TIERING, sized by throughput_capacity_mbps"),
        ("throughput_capacity_mbps", "an SSD file system, sized by per_unit_storage_throughput"),
        ("read_cache_sizing_mode", "an SSD file system, which has no SSD read cache to size"),
        ("read_cache_size_gib", "an SSD file system, which has no SSD read cache to size"),
    ):
        if k in m and tiering == k.startswith(("storage_capacity", "per_unit")):
            r.fail(path + (k,), f"does not apply to {why}; expected no such key")
            misplaced = True
    if misplaced:
        return None
    if storage is not None and not tiering and m.get("storage_capacity_gib") is None:
        r.fail(path, "missing required key 'storage_capacity_gib'")
        return None
    if dtype is None or storage is None or (capacity is None and not tiering) or efa is None:
        return None
    return Lustre(
        dtype,
        capacity,
        throughput,
        az,
        efa,
        s3,
        path,
        frozenset(str(k) for k in m),
        storage_type=storage,
        throughput_capacity_mbps=mbps,
        read_cache_sizing_mode=cache_mode,
        read_cache_size_gib=cache_gib,
        **read_back,
    )


def _workload(r: Reader, data: Any, path: Path) -> Workload | None:
    m = r.table(data, path, "workload")
    if m is None:
        return None
    params = r.field(m, "workload", "parameters", path)
    tokens = r.field(m, "workload", "tokens", path)
    precision = r.field(m, "workload", "precision", path)
    mfu = r.field(m, "workload", "mfu", path)
    checkpoint_minutes = r.field(m, "workload", "checkpoint_max_minutes", path)
    sequence = r.field(m, "workload", "sequence_length", path)
    batch = r.field(m, "workload", "global_batch_tokens", path)
    named = r.field(m, "workload", "model", path)
    model = _model(r, named, path + ("model",)) if named is not None else None
    if "model" not in m:
        for k in ("parameters", "mfu"):
            if k not in m:
                r.fail(
                    path,
                    f"missing required key '{k}'; expected `model` (the step predicted), or `parameters` and `mfu`",
                )
        for k in ("sequence_length", "global_batch_tokens"):
            if k in m:
                r.fail(path + (k,), "applies to a workload with `model`; expected `model` beside it, or no such key")
    elif sequence is not None and batch is not None and batch % sequence:
        r.fail(
            path + ("global_batch_tokens",),
            f"expected a multiple of sequence_length ({sequence:,}), got {batch:,}; "
            f"{batch // sequence * sequence or sequence:,} is the nearest below",
        )
        return None
    if None in (tokens, precision, sequence, batch) or (named is not None and model is None):
        return None
    if model is None and None in (params, mfu):
        return None
    return Workload(
        params,
        tokens,
        precision,
        mfu,
        path,
        frozenset(str(k) for k in m),
        checkpoint_minutes,
        model,
        sequence,
        batch,
    )


def _model(r: Reader, named: str, path: Path) -> Transformer | None:
    """`workload.model`: a preset, or a config.json beside the stack file (inside its folder's tree
    or the working directory: a pull request's stack file must not read the runner's files)."""
    from planner.core.catalogue.model_configs import ModelError, presets, resolve

    if named in presets():
        return presets()[named]
    base = os.path.dirname(os.path.abspath(r.file))
    target = os.path.realpath(os.path.join(base, named))
    inside = [os.path.realpath(os.getcwd()), os.path.realpath(base)]
    if os.path.isabs(named) or not any(target == d or target.startswith(d + os.sep) for d in inside):
        r.fail(path, "expected a preset name or a config.json path inside the repository, relative to this file")
        return None
    try:
        return resolve(named, base)
    except ModelError as exc:
        r.fail(path, str(exc))
        return None


def _suppressions(r: Reader, data: Any, path: Path) -> tuple[Suppression, ...]:
    if data is None:
        return ()
    if not isinstance(data, list):
        r.fail(path, f"expected a list of {{rule, reason}}, got {_kind(data)}")
        return ()
    out = []
    for i, raw in enumerate(data):
        p = path + (i,)
        m = r.table(raw, p, "suppression")
        if m is None:
            continue
        rule = r.field(m, "suppression", "rule", p)
        reason = r.field(m, "suppression", "reason", p)
        if rule and reason:
            out.append(Suppression(rule, reason, p))
    return tuple(out)


# --- planning inputs of a program's stack -------------------------------------------------
# With `--program`, the resources declare the topology (node groups, storage, network); the
# stack config's `planner:cluster` may add only what no resource can say: how long the cluster
# runs, what it trains, what it may cost and which findings it accepts.
PLANNING_KEYS = ("schedule", "workload", "budget", "suppress")


def planning_inputs(data: Any, file: str, lines: Lines | None = None, path: Path = CLUSTER_PATH) -> PlanningKeys:
    """The planning keys of a program's `planner:cluster` config, checked with the stack schema
    (the same tables as a stack file); InputError, one line per problem with its file and line,
    for a topology key (the program's resources declare it) or a bad value. Never ignored."""
    from planner.core.reading.fields import key_path

    lines = lines or {}
    if not isinstance(data, dict):
        raise InputError(
            [
                Problem(
                    file,
                    line_of(lines, path),
                    key_path(path),
                    f"expected a mapping of planning keys ({', '.join(PLANNING_KEYS)}), got {_kind(data)}",
                )
            ]
        )
    problems = []
    for key in data:
        if key in PLANNING_KEYS:
            continue
        where = path + (key,)
        if key in CLUSTER_KEYS:
            why = (
                "cannot apply to a program's cluster: its resources declare the topology (change the program); "
                f"with --program, {CLUSTER_KEY} holds only {', '.join(PLANNING_KEYS)}"
            )
        else:
            why = f"unknown key{_closest(str(key), PLANNING_KEYS)}; with --program, {CLUSTER_KEY} holds only {', '.join(PLANNING_KEYS)}"
        problems.append(Problem(file, line_of(lines, where), key_path(where), why))
    if problems:
        raise InputError(problems)
    # the values, through the stack file's own tables and the same checks as a stack file's
    r = Reader(file, lines, SCHEMA)
    keys = planning(r, data, path)
    for problem in budget_problems(keys.budget):
        r.fail(problem.path, problem.message)
    if r.problems:
        raise InputError(r.problems)
    return keys


# --- stack files -------------------------------------------------------------------------


def stack_name(file: str) -> str | None:
    m = _STACK_FILE.fullmatch(os.path.basename(file))
    return m.group(1) if m else None


def unknown_region(region: str) -> str | None:
    """Why `region` is not one of AWS's regions (botocore's partition data, `planner/data/regions.yaml`),
    with a did-you-mean; None for a known region. A zone given as a region (us-east-2b) is named as
    such. A misspelt region is an input error, not an Availability Zone or price problem further down."""
    regs = _data.regions()
    if regs.known(region):
        return None
    parent = regs.zone_of(region)
    if parent is not None:
        kind = "a Local Zone" if region in regs.local_zones else "an Availability Zone"
        return (
            f"'{region}' is {kind} of {parent}, not a region: set aws:region: {parent} "
            f"(and availability_zone: {region})"
        )
    close = regs.closest(region)
    quoted = [f"'{c}'" for c in close]
    hint = (
        f" (did you mean {', '.join(quoted[:-1]) + ' or ' if len(quoted) > 1 else ''}{quoted[-1]}?)"
        if close
        else " (expected one of AWS's regions, such as us-east-2)"
    )
    return f"unknown region '{region}'{hint}"


def parse_stack(data: Any, lines: Lines, file: str, name: str) -> Stack:
    r = Reader(file, lines, SCHEMA)
    top = r.mapping(data, (), STACK_FILE_KEYS, required=("config",))
    if top is None or r.problems:
        raise InputError(r.problems)
    config = top["config"]
    if not isinstance(config, dict):
        r.fail(("config",), f"expected a mapping, got {_kind(config)}")
        raise InputError(r.problems)
    region = config.get(REGION_KEY)
    if region is None:
        r.fail(("config",), f"missing required key '{REGION_KEY}' (the AWS region, such as us-east-2)")
    elif not isinstance(region, str) or (
        not _REGION.fullmatch(region) and _data.regions().zone_of(region) is None and not _data.regions().known(region)
    ):
        r.fail(("config", REGION_KEY), f"expected an AWS region such as us-east-2, got {_kind(region)}")
        region = None
    elif (unknown := unknown_region(region)) is not None:
        r.fail(("config", REGION_KEY), unknown)
        region = None
    if CLUSTER_KEY not in config or config[CLUSTER_KEY] is None:
        r.fail(
            ("config",),
            f"missing required key '{CLUSTER_KEY}' (the declared cluster; for the cluster a Pulumi "
            "program declares in code: planner plan --program DIR --stack NAME)",
        )
        raise InputError(r.problems)
    cluster = _cluster(r, config[CLUSTER_KEY], region or "", CLUSTER_PATH)
    if r.problems or cluster is None or region is None:
        raise InputError(r.problems or [Problem(file, None, CLUSTER_KEY, "invalid cluster")])
    return Stack(name, file, region, cluster, lines)


def load_stack(file: str) -> Stack:
    """Read one `Pulumi.<stack>.yaml` file."""
    data, lines, name = _read_stack_file(file)
    return parse_stack(data, lines, file, name)


def _read_stack_file(file: str) -> tuple[Any, Lines, str]:
    if os.path.basename(file) in ("Pulumi.yaml", "Pulumi.yml"):
        raise InputError(
            [
                Problem(
                    file,
                    None,
                    "",
                    "is the Pulumi project file, not a stack file; expected Pulumi.<stack>.yaml "
                    "(planner plan with no path reads the project's stackConfigDir)",
                )
            ]
        )
    name = stack_name(file) or os.path.splitext(os.path.basename(file))[0]
    data, lines = yamlload.load_path(file)
    return data, lines, name


# What a `planner:cluster` mapping is: a whole cluster (a stack file: it has topology keys), a
# Pulumi program's planning keys (no topology key: the program's resources declare it), or absent
# (a plain Pulumi stack). Every entry point reads a stack file through this one test, as does the
# editor schema (`planner.core.input.json_schema`).
TOPOLOGY_KEYS = tuple(k for k in CLUSTER_KEYS if k not in PLANNING_KEYS)
ConfigKind = Literal["cluster", "planning", "plain"]


def config_kind(data: Any) -> ConfigKind:
    """`cluster` when the stack file's `planner:cluster` declares topology (any of `TOPOLOGY_KEYS`),
    or when the file is no Pulumi stack file at all (then the parser says what is wrong with it);
    `planning` when it is a mapping without topology keys (a program's config: schedule, workload,
    budget, suppress); `plain` when there is no `planner:cluster`."""
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        return "cluster"
    value = data["config"].get(CLUSTER_KEY)
    if value is None:
        return "plain"
    if isinstance(value, dict) and not any(k in TOPOLOGY_KEYS for k in value):
        return "planning"
    return "cluster"


def declares_cluster(data: Any) -> bool:
    """A stack file's data declares a planner cluster (`config: {planner:cluster: ...}`), or is
    not a plain Pulumi stack file at all (then the parser says what is wrong with it).

    A folder of an ordinary Pulumi project holds stacks of other programs too (`Pulumi.web.yaml`):
    those have a config without `planner:cluster`, and are skipped, not refused.
    """
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        return True
    return data["config"].get(CLUSTER_KEY) is not None


def matches(path: str, globs: Iterable[str]) -> bool:
    """`path` matches one of the `--include`/`--exclude` globs: by its path as given (`stacks/Pulumi.prod-*.yaml`,
    `*/gpu/*`) or by its file name (`Pulumi.prod-*.yaml`)."""
    globs = tuple(globs)
    if not globs:  # the common case: no --include/--exclude, and no fnmatch import
        return False
    import fnmatch

    norm = os.path.normpath(path)
    return any(
        fnmatch.fnmatchcase(norm, os.path.normpath(g)) or fnmatch.fnmatchcase(os.path.basename(norm), g) for g in globs
    )


class Found(Struct, frozen=True):
    """A stack file to read, and whether it was named on the command line (else found in a folder)."""

    path: str
    named: bool


def discover(paths: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = ()) -> list[str]:
    """Stack files named by `paths` (files, or folders searched for Pulumi.<stack>.yaml)."""
    return [f.path for f in find(paths, include, exclude)]


def find(paths: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = ()) -> list[Found]:
    """Stack files named by `paths` (files, or folders searched for Pulumi.<stack>.yaml),
    kept when they match an `include` glob (when any is given) and no `exclude` glob.

    In the order given, folders sorted; a file named twice (`stacks stacks/Pulumi.x.yaml`)
    is planned once, as first named, so its findings and cost are not counted twice.

    A stack file found in a folder must resolve inside that folder: a symlink out of it
    (to a key, a token, another checkout) is refused unless named explicitly, since the
    documented workflow puts error messages in a pull-request comment.
    """
    include, exclude = tuple(include), tuple(exclude)
    found: list[Found] = []
    real: dict[str, str] = {}  # path -> where it resolves, for the files found in folders
    problems: list[Problem] = []
    candidates = 0  # stack files before the globs select among them
    for p in paths:
        if os.path.isdir(p):
            try:
                names = sorted(f for f in os.listdir(p) if stack_name(f))
            except OSError as exc:
                problems.append(Problem(p, None, "", f"cannot list the folder: {exc.strerror or exc}"))
                continue
            if not names:
                problems.append(Problem(p, None, "", "no stack files (Pulumi.<stack>.yaml) in this folder"))
            root = os.path.realpath(p)
            candidates += len(names)
            for f in names:
                full = (
                    f if p == os.curdir else os.path.join(p, f)
                )  # `planner plan` in the project: Pulumi.x.yaml, not ./Pulumi.x.yaml
                if (include and not matches(full, include)) or matches(full, exclude):
                    continue
                # a plain file in `root` resolves beside it (one lstat, where `realpath` has one per
                # component of the path: 2 of them per stack file were a tenth of planning 1,000 stacks)
                real[full] = os.path.join(root, f) if not os.path.islink(full) else os.path.realpath(full)
                if os.path.commonpath([root, real[full]]) != root:
                    problems.append(
                        Problem(
                            full,
                            None,
                            "",
                            "is a link to a file outside the folder; refused (name the file itself to plan it)",
                        )
                    )
                else:
                    found.append(Found(full, False))
        elif os.path.isfile(p):
            candidates += 1
            if not ((include and not matches(p, include)) or matches(p, exclude)):
                found.append(Found(p, True))
        elif os.path.exists(p):
            problems.append(
                Problem(p, None, "", "not a regular file (a device, FIFO or socket); expected a stack file")
            )
        else:
            problems.append(Problem(p, None, "", "no such file or folder"))
    if not problems and candidates and not found and (include or exclude):
        # a mistyped glob must not turn the gate into "0 stacks, exit 0"
        globs = ", ".join([f"--include {g}" for g in include] + [f"--exclude {g}" for g in exclude])
        problems.append(
            Problem(
                "<command line>",
                None,
                "--include/--exclude",
                f"none of the {candidates} stack file{'s' if candidates != 1 else ''} found is selected "
                f"by {globs}; expected globs that select at least one (by path as given or by file name)",
            )
        )
    if problems:
        raise InputError(problems)
    seen: set[str] = set()
    unique: list[Found] = []
    for one in found:
        resolved = real.get(one.path) or os.path.realpath(one.path)
        if resolved not in seen:
            seen.add(resolved)
            unique.append(one)
    return unique


class Loaded(Struct, frozen=True):
    """The stacks read from some paths, and the plain Pulumi stack files skipped among them."""

    stacks: list[Stack]
    skipped: list[str]


def load_stacks(paths: Iterable[str]) -> list[Stack]:
    """Every stack under `paths`; all problems of all files in one InputError."""
    return read_stacks(paths).stacks


def read_stacks(paths: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Loaded:
    """Every stack under `paths` (see `find`); all problems of all files in one InputError.

    A stack file found in a folder that declares no `planner:cluster` (another program's
    stack) is skipped and named in `skipped`; one named on the command line is an error.
    """
    paths = list(paths)
    stacks: list[Stack] = []
    skipped: list[str] = []
    problems: list[Problem] = []
    for f in find(paths, include, exclude):
        try:
            data, lines, name = _read_stack_file(f.path)
            if not f.named and not declares_cluster(data):
                skipped.append(f.path)
                continue
            stacks.append(parse_stack(data, lines, f.path, name))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    if skipped and not stacks:
        raise InputError([only_plain_stacks(paths, skipped)])
    return Loaded(stacks, skipped)


def only_plain_stacks(paths: Iterable[str], skipped: list[str]) -> Problem:
    """Folders of plain Pulumi stack files alone: nothing to plan, and how to plan a program's cluster."""
    return Problem(
        ", ".join(paths),
        None,
        "",
        f"no stack here declares '{CLUSTER_KEY}' ("
        f"{len(skipped)} plain Pulumi stack file{'s' if len(skipped) != 1 else ''}); "
        "to plan the cluster a program declares, use --program DIR --stack NAME",
    )
