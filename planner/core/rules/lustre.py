"""FSx for Lustre: capacity and throughput per deployment type, AZ, EFA, S3 links, durability.

What each deployment type accepts is data (`planner/data/fsx_lustre.yaml`, with sources);
this module reads it and checks a declared file system against it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from planner.core.catalogue import nitro_versions, shipped_data
from planner.core.catalogue.lustre_deployments import (
    DeploymentSpec,
    StorageRule,
    deployment_types,
    intelligent_tiering,
    metadata_iops,
    region_availability,
)
from planner.core.model.cluster import Lustre, NodeGroup, Path
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import (
    Edit,
    Fix,
    Rule,
    RuleContext,
    move_region,
    nearest_region,
    remove,
    set_to,
    storage_rule,
)

API_DOC = "https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystem.html"
LUSTRE_CONFIG_DOC = "https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystemLustreConfiguration.html"
DEPLOYMENT_DOC = "https://docs.aws.amazon.com/fsx/latest/LustreGuide/using-fsx-lustre.html"
EFA_DOC = "https://docs.aws.amazon.com/fsx/latest/LustreGuide/efa-file-systems.html"
DRA_DOC = "https://docs.aws.amazon.com/fsx/latest/LustreGuide/create-dra-linked-data-repo.html"
EFA_LIMITS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-limits"
FSX_PRICING = "https://aws.amazon.com/fsx/lustre/pricing/"
# "EFA is supported on Nitro v4 (or higher) EC2 instances that support EFA, excluding the trn2 instance family."
EFA_CLIENTS_DOC = "https://docs.aws.amazon.com/fsx/latest/LustreGuide/configure-efa-clients.html"
EFA_CLIENT_EXCLUDED = frozenset({"trn2"})  # instance families AWS names as no EFA client of FSx for Lustre
CANNOT_CREATE_DOC = "https://docs.aws.amazon.com/fsx/latest/LustreGuide/cannot-create-fs.html"
READ_CACHE_DOC = "https://docs.aws.amazon.com/fsx/latest/APIReference/API_LustreReadCacheConfiguration.html"
METADATA_MODES = ("AUTOMATIC", "USER_PROVISIONED")  # MetadataConfigurationMode, in botocore's order
METADATA_DOC = (
    "https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystemLustreMetadataConfiguration.html"
)
REGIONS_DOC = "https://docs.aws.amazon.com/fsx/latest/LustreGuide/using-fsx-lustre.html#persistent-deployment-regions"
# the metadata configuration: "EFA is supported on Persistent 2 file systems with a metadata configuration
# specified, including file systems using the Intelligent-Tiering storage class." (EFA_DOC, read 2026-12-05;
# planner/data/rule_sources.yaml)

# planner's policy, not an AWS figure: a run longer than a week on a file system that keeps
# one copy of its data is a run that should not bet its checkpoints on it.
SCRATCH_LONG_RUN_HOURS = 7 * 24


def _path(fs: Lustre, key: str) -> Path:
    return fs.path + (key,)


@storage_rule(
    id="lustre-capacity",
    severity="error",
    category="storage",
    description="An FSx for Lustre storage capacity that the deployment type (and throughput) does not accept.",
    source=API_DOC,
    remediation="Use a valid capacity: SCRATCH_2, PERSISTENT_1 SSD and PERSISTENT_2 take 1,200 or multiples of 2,400 GiB; SCRATCH_1 1,200, 2,400 or multiples of 3,600.",
)
def capacity(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    if fs.storage_capacity_gib is None:
        return  # Intelligent-Tiering: elastic storage, no capacity to declare
    dt = deployment_types()[fs.deployment_type]
    storage = dt.storage_for(fs.per_unit_storage_throughput)
    if storage is None or storage.accepts(fs.storage_capacity_gib):
        return
    media = (
        ""
        if dt.fixed_throughput is not None or fs.per_unit_storage_throughput is None
        else f" {dt.throughputs[fs.per_unit_storage_throughput][0]} at {fs.per_unit_storage_throughput} MB/s/TiB"
    )
    yield r.finding(
        ctx,
        _path(fs, "storage_capacity_gib"),
        f"{fs.storage_capacity_gib:,} GiB is not a valid capacity for {fs.deployment_type}{media}; expected "
        f"{storage.describe()} (nearest above: {storage.nearest(fs.storage_capacity_gib):,})",
        fix=_capacity_fix(ctx, fs, storage),
    )


def _capacity_fix(ctx: RuleContext, fs: Lustre, storage: StorageRule) -> Fix:
    """The nearest valid capacity above (enough room), and the one below when there is one."""
    gib = fs.storage_capacity_gib or 0
    below = storage.below(gib)
    at = _path(fs, "storage_capacity_gib")
    return Fix(
        edits=(set_to(ctx, at, storage.nearest(gib), f"the nearest valid capacity above {gib:,} GiB"),),
        alternatives=(set_to(ctx, at, below, "to stay under it"),) if below else (),
    )


@storage_rule(
    id="lustre-throughput",
    severity="error",
    category="storage",
    description="An FSx for Lustre per-unit throughput not valid for the deployment type (or missing for PERSISTENT, or given for SCRATCH).",
    source=API_DOC,
    remediation="PERSISTENT_2: 125, 250, 500 or 1000 MB/s/TiB; PERSISTENT_1: 50, 100, 200 (SSD) or 12, 40 (HDD); SCRATCH: leave it out (fixed at 200).",
)
def throughput(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    if fs.intelligent_tiering:
        return  # sized by its throughput capacity: lustre-intelligent-tiering
    dt = deployment_types()[fs.deployment_type]
    given = fs.per_unit_storage_throughput
    if dt.fixed_throughput is not None:
        if given is not None:
            yield r.finding(
                ctx,
                _path(fs, "per_unit_storage_throughput"),
                f"{fs.deployment_type} has a fixed throughput of {dt.fixed_throughput} MB/s/TiB; "
                "per_unit_storage_throughput cannot be set",
                fix=Fix(
                    f"{fs.deployment_type} runs at {dt.fixed_throughput} MB/s/TiB",
                    (remove(ctx, _path(fs, "per_unit_storage_throughput")),),
                ),
            )
        return
    valid = ", ".join(str(t) for t in sorted(dt.throughputs))
    if given is None:
        yield r.finding(
            ctx,
            fs.path,
            f"{fs.deployment_type} needs per_unit_storage_throughput (MB/s per TiB): one of {valid}",
            fix=_missing_throughput_fix(ctx, fs, dt),
        )
    elif given not in dt.throughputs:
        near = min(dt.throughputs, key=lambda t: (abs(t - given), -t))
        yield r.finding(
            ctx,
            _path(fs, "per_unit_storage_throughput"),
            f"{given} MB/s/TiB is not offered for {fs.deployment_type}; expected one of {valid}",
            fix=Fix(
                f"the nearest offered for {fs.deployment_type}; offered: {_tiers(dt)}",
                (set_to(ctx, _path(fs, "per_unit_storage_throughput"), near),),
            ),
        )


def _missing_throughput_fix(ctx: RuleContext, fs: Lustre, dt: DeploymentSpec) -> Fix:
    """The lowest throughput that also accepts the declared capacity, with the others by media; else the
    lowest of all, and a capacity that tier accepts."""
    at = _path(fs, "per_unit_storage_throughput")
    gib = fs.storage_capacity_gib or 0
    fits = {t: v for t, v in dt.throughputs.items() if v[1].accepts(gib)}
    if fits:
        return Fix(
            f"MB/s/TiB; the tiers that take {gib:,} GiB: {_tiers(dt, fits)}",
            (set_to(ctx, at, min(fits)),),
        )
    return Fix(f"MB/s/TiB: {_tiers(dt)}, and a capacity that tier accepts", (set_to(ctx, at, min(dt.throughputs)),))


def _to_persistent_2(ctx: RuleContext, fs: Lustre) -> tuple[Edit, ...]:
    """`set lustre.deployment_type: PERSISTENT_2 and lustre.per_unit_storage_throughput: 125 (...)`: a complete
    change (PERSISTENT_2 needs a throughput tier), the lowest tier that takes the declared capacity. An
    Intelligent-Tiering file system, sized by its throughput capacity, needs the deployment type alone."""
    if fs.storage_capacity_gib is None:
        return (set_to(ctx, _path(fs, "deployment_type"), "PERSISTENT_2"),)
    dt = deployment_types()["PERSISTENT_2"]
    gib = fs.storage_capacity_gib
    fits = sorted(t for t, v in dt.throughputs.items() if v[1].accepts(gib))
    tier = fits[0] if fits else min(dt.throughputs)
    why = f"the lowest tier that takes {gib:,} GiB" if fits else "and a capacity that tier accepts"
    return (
        set_to(ctx, _path(fs, "deployment_type"), "PERSISTENT_2"),
        set_to(ctx, _path(fs, "per_unit_storage_throughput"), tier, f"{why}; MB/s/TiB offered: {_tiers(dt)}"),
    )


def _tiers(dt: DeploymentSpec, only: Mapping[int, Any] | None = None) -> str:
    """`125, 250 SSD; 12, 40 HDD`: the offered throughputs of a deployment type by storage media."""
    media: dict[str, list[int]] = {}
    for t, (m, _) in sorted((only if only is not None else dt.throughputs).items()):
        media.setdefault(m, []).append(t)
    return "; ".join(f"{', '.join(map(str, ts))} {m}" for m, ts in media.items())


def _to_zone(ctx: RuleContext, groups: list[NodeGroup], zone: str) -> tuple[Edit, ...]:
    """Each of `groups` moved to `zone` (the file system's): by its own Availability Zone when it declares
    one, else by the cluster's, which the others that declare none share."""
    note = "that of the file system"
    own = [
        set_to(ctx, g.path + ("availability_zone",), zone, note) for g in groups if "availability_zone" in g.declared
    ]
    shared = [g for g in groups if "availability_zone" not in g.declared]
    return tuple(own) + ((set_to(ctx, ctx.cluster.path + ("availability_zone",), zone, note),) if shared else ())


@storage_rule(
    id="lustre-same-az",
    severity="warning",
    category="storage",
    description=(
        "The FSx for Lustre file system is in another Availability Zone than compute node groups: slower, with "
        "cross-AZ data transfer charges (an error when the file system uses EFA, which cannot cross AZs)."
    ),
    source=FSX_PRICING,
    remediation="Put the file system in the node groups' AZ (remove `lustre.availability_zone` to use the cluster's).",
)
def same_az(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    """Clients in another AZ reach the file system, at a price: the FSx for Lustre pricing page
    charges data "transferred 'in' to and 'out' from Amazon FSx across Availability Zones", so
    that is a warning naming latency and charges. EFA traffic cannot cross an AZ (EC2 EFA
    limits), so an EFA-enabled file system in another AZ is an error."""
    away = [g for g in ctx.cluster.node_groups if g.availability_zone != fs.availability_zone]
    if not away:
        return
    names = ", ".join(f"'{g.name}' ({g.availability_zone})" for g in away)
    zones = sorted({g.availability_zone for g in ctx.cluster.node_groups})
    fix = (
        Fix(edits=(set_to(ctx, _path(fs, "availability_zone"), zones[0], "that of the node groups"),))
        if len(zones) == 1
        else Fix(edits=_to_zone(ctx, away, fs.availability_zone))
    )
    if fs.efa_enabled:
        yield r.finding(
            ctx,
            _path(fs, "availability_zone"),
            f"the EFA-enabled file system is in {fs.availability_zone} but node group(s) {names} are not: "
            f"EFA traffic cannot cross Availability Zones ({EFA_LIMITS_DOC})",
            severity="error",
            fix=fix,
        )
        return
    yield r.finding(
        ctx,
        _path(fs, "availability_zone"),
        f"the file system is in {fs.availability_zone} but node group(s) {names} are not: every read and "
        "checkpoint crosses AZs, with higher latency and cross-AZ data transfer charges in both directions",
        fix=fix,
    )


@storage_rule(
    id="lustre-efa",
    severity="error",
    category="storage",
    description="`efa_enabled` on an FSx for Lustre file system that is not PERSISTENT_2 (only PERSISTENT_2 supports EFA).",
    source=EFA_DOC,
    remediation="Use `deployment_type: PERSISTENT_2` for an EFA-enabled file system, or set `efa_enabled: false`.",
)
def efa(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    dt = deployment_types()[fs.deployment_type]
    if fs.efa_enabled and not dt.efa:
        yield r.finding(
            ctx,
            _path(fs, "efa_enabled"),
            f"{fs.deployment_type} file systems cannot be EFA-enabled; only PERSISTENT_2 can",
            fix=Fix(edits=_to_persistent_2(ctx, fs), alternatives=(set_to(ctx, _path(fs, "efa_enabled"), False),)),
        )


@storage_rule(
    id="lustre-efa-clients",
    severity="warning",
    category="storage",
    description=(
        "An EFA-enabled file system read by node groups without EFA, of the trn2 instance family (which FSx for "
        "Lustre excludes from EFA clients) or of a family built on a Nitro version below v4: those clients reach it "
        "over TCP, without EFA's throughput."
    ),
    source=EFA_DOC,
    remediation="Enable EFA on the node groups that read the file system (an EFA-capable type, `efa: true`), or set `efa_enabled: false`.",
)
def efa_clients(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    dt = deployment_types()[fs.deployment_type]
    if not fs.efa_enabled or not dt.efa:
        return
    tcp = [g.name for g in ctx.cluster.node_groups if not (g.efa and ctx.catalogue.spec(g.instance_type).efa_supported)]
    if tcp:
        yield r.finding(
            ctx,
            _path(fs, "efa_enabled"),
            f"the file system is EFA-enabled but node group(s) {', '.join(tcp)} have no EFA and read it over TCP",
            fix=_efa_clients_fix(ctx, fs, tcp),
        )
    # "EFA is supported on Nitro v4 (or higher) EC2 instances that support EFA, excluding the trn2 instance
    # family." (EFA_CLIENTS_DOC): a trn2 group with EFA on still reads the file system over ENA
    excluded = [
        g.name for g in ctx.cluster.node_groups if g.name not in tcp and _family(g.instance_type) in EFA_CLIENT_EXCLUDED
    ]
    # the same sentence's "Nitro v4 (or higher)": the Nitro version of each family, from the EC2 Instance Types
    # Guide's list (nitro_versions.yaml, a dated copy); a family it does not list is not judged
    older = [
        (g.name, g.instance_type, v)
        for g in ctx.cluster.node_groups
        if g.name not in tcp
        and g.name not in excluded
        and (v := nitro_versions.of(g.instance_type)) is not None
        and v < 4
    ]
    if older:
        named = ", ".join(f"{n} ({t}: Nitro v{v})" for n, t, v in older)
        yield r.finding(
            ctx,
            _path(fs, "efa_enabled"),
            f"the file system is EFA-enabled but node group(s) {named} are built on a Nitro version below v4 "
            f"({nitro_versions.source()}); FSx for Lustre supports EFA clients on Nitro v4 or higher "
            f"({EFA_CLIENTS_DOC}): they read it over ENA",
            fix=Fix(
                "no node group here below Nitro v4 can read it over EFA (or use a Nitro v4 or later type)",
                edits=(set_to(ctx, _path(fs, "efa_enabled"), False),),
            ),
        )
    if excluded:
        yield r.finding(
            ctx,
            _path(fs, "efa_enabled"),
            f"the file system is EFA-enabled but node group(s) {', '.join(excluded)} are of the trn2 instance family, "
            f"which FSx for Lustre excludes from EFA clients ({EFA_CLIENTS_DOC}): they read it over ENA",
            fix=Fix(
                "the trn2 instance family is not an EFA client of FSx for Lustre",
                edits=(set_to(ctx, _path(fs, "efa_enabled"), False),),
            ),
        )


def _family(instance_type: str) -> str:
    return instance_type.split(".", 1)[0]


def _efa_clients_fix(ctx: RuleContext, fs: Lustre, tcp: list[str]) -> Fix:
    """Turn EFA on where the type has it; a type without EFA can only be swapped or left on TCP."""
    off = [
        g
        for g in ctx.cluster.node_groups
        if g.name in tcp
        and ctx.catalogue.spec(g.instance_type).efa_supported
        and _family(g.instance_type) not in EFA_CLIENT_EXCLUDED  # EFA on would not make it a client
    ]
    no_efa = set_to(ctx, _path(fs, "efa_enabled"), False)
    if off:
        return Fix(edits=tuple(remove(ctx, g.path + ("efa",)) for g in off), alternatives=(no_efa,))
    return Fix(
        "no node group here can read it over EFA (or use an EFA-capable instance type, outside the trn2 family, "
        "in node group(s) " + ", ".join(repr(n) for n in tcp) + ")",
        edits=(no_efa,),
    )


@storage_rule(
    id="lustre-efa-requirements",
    severity="error",
    category="storage",
    description=(
        "An EFA-enabled FSx for Lustre file system without a metadata configuration, or whose security groups do "
        "not allow all inbound and outbound traffic with themselves."
    ),
    source=CANNOT_CREATE_DOC,
    remediation=(
        'Give the file system metadata_configuration={"mode": "AUTOMATIC"} and a security group with all-traffic '
        "(protocol -1) inbound and outbound rules naming the group itself, or set `efa_enabled: false`."
    ),
)
def efa_requirements(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    """AWS (Creating an FSx for Lustre file system fails): creating an EFA-enabled file system fails with
    "Insufficient security group permissions to create an EFA-enabled file system", and "An EFA requires a
    security group that allows all inbound and outbound traffic to and from the security group itself".
    The metadata configuration: "EFA is supported on Persistent 2 file systems with a metadata configuration
    specified" (Working with EFA-enabled file systems, `EFA_DOC`). Judged only where the source says (`Lustre.metadata_configuration`, `efa_security_group`: a
    program's resources); planner's components create both for an EFA-enabled file system."""
    if not fs.efa_enabled or not deployment_types()[fs.deployment_type].efa:
        return  # not EFA-enabled, or `lustre-efa`'s finding
    missing = []
    if fs.metadata_configuration is False:
        missing.append(
            "it has no metadata configuration: AWS supports EFA on Persistent 2 file systems 'with a metadata "
            f"configuration specified' ({EFA_DOC})"
        )
    if fs.efa_security_group is False:
        missing.append(
            "its security groups do not allow all inbound and outbound traffic with themselves; AWS refuses to "
            "create an EFA-enabled file system with 'Insufficient security group permissions'"
        )
    if not missing:
        return
    needs = " and ".join(
        w
        for w, off in (
            ('a metadata configuration ({"mode": "AUTOMATIC"})', fs.metadata_configuration is False),
            (
                "a security group with all-traffic inbound and outbound rules naming itself",
                fs.efa_security_group is False,
            ),
        )
        if off
    )
    yield r.finding(
        ctx,
        _path(fs, "efa_enabled"),
        "the file system is EFA-enabled but " + "; and ".join(missing),
        fix=Fix(f"give the file system {needs}", alternatives=(set_to(ctx, _path(fs, "efa_enabled"), False),)),
    )


@storage_rule(
    id="lustre-intelligent-tiering",
    severity="error",
    category="storage",
    description=(
        "An FSx for Lustre Intelligent-Tiering file system on a deployment type other than PERSISTENT_2, with a "
        "throughput capacity AWS does not offer (or none), or EFA-enabled at a throughput that is not a multiple "
        "of 4,000 MBps."
    ),
    source=LUSTRE_CONFIG_DOC,
    remediation=(
        "Use `deployment_type: PERSISTENT_2` and `throughput_capacity_mbps` of 1,000, 2,000 or a multiple of "
        "4,000 (up to 2,000,000); an EFA-enabled one a multiple of 4,000."
    ),
)
def tiering(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    """The FSx API reference (fsx_lustre.yaml quotes each sentence): Intelligent-Tiering "is only available
    ... for Lustre file systems with the Persistent_2 deployment type" (CreateFileSystem StorageType); its
    ThroughputCapacity's "Valid values are 1000 MBps, 2000 MBps, and multiples of 4000 MBps, up to a maximum
    of 2000000 MBps"; and "you can enable EFA only when ThroughputCapacity is 4000 MBps or a multiple of 4000
    MBps" (CreateFileSystemLustreConfiguration)."""
    if not fs.intelligent_tiering:
        return
    it = intelligent_tiering()
    if fs.deployment_type not in it.deployment_types:
        yield r.finding(
            ctx,
            _path(fs, "deployment_type"),
            f"Intelligent-Tiering is only available with {', '.join(it.deployment_types)}, not {fs.deployment_type} "
            f"({API_DOC})",
            fix=Fix(
                "Intelligent-Tiering's one deployment type",
                (set_to(ctx, _path(fs, "deployment_type"), it.deployment_types[0]),),
                alternatives=(set_to(ctx, _path(fs, "storage_type"), "SSD"),),
            ),
        )
    mbps, at = fs.throughput_capacity_mbps, _path(fs, "throughput_capacity_mbps")
    if mbps is None:
        yield r.finding(
            ctx,
            fs.path,
            f"an Intelligent-Tiering file system needs throughput_capacity_mbps: {it.describe()}",
            fix=Fix(edits=(set_to(ctx, at, it.throughput.listed[0], "the smallest AWS offers"),)),
        )
        return
    if not it.accepts(mbps):
        yield r.finding(
            ctx,
            at,
            f"{mbps:,} MBps is not a throughput capacity AWS offers for Intelligent-Tiering; expected {it.describe()}",
            fix=Fix(edits=(set_to(ctx, at, it.nearest(mbps), "the nearest offered at or above it"),)),
        )
        return
    if fs.efa_enabled and mbps % it.efa_multiple_of:
        up = -(-mbps // it.efa_multiple_of) * it.efa_multiple_of
        yield r.finding(
            ctx,
            _path(fs, "efa_enabled"),
            f"an Intelligent-Tiering file system can be EFA-enabled only at a throughput capacity of a multiple "
            f"of {it.efa_multiple_of:,} MBps, not {mbps:,}",
            fix=Fix(
                edits=(set_to(ctx, at, up, f"the smallest multiple of {it.efa_multiple_of:,} MBps above it"),),
                alternatives=(set_to(ctx, _path(fs, "efa_enabled"), False),),
            ),
        )


@storage_rule(
    id="lustre-read-cache",
    severity="error",
    category="storage",
    description=(
        "An FSx for Lustre Intelligent-Tiering file system without its SSD read cache configuration, or with a "
        "USER_PROVISIONED cache of no size or of a size outside 8 to 32,768 GiB per 1,000 MBps of throughput."
    ),
    source=READ_CACHE_DOC,
    remediation=(
        "Give `read_cache_sizing_mode` (NO_CACHE, USER_PROVISIONED or PROPORTIONAL_TO_THROUGHPUT_CAPACITY); with "
        "USER_PROVISIONED, `read_cache_size_gib` of 8 to 32,768 GiB per 1,000 MBps of `throughput_capacity_mbps`."
    ),
)
def read_cache(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    """The FSx API reference (fsx_lustre.yaml quotes each sentence): DataReadCacheConfiguration is "Required
    when StorageType is set to INTELLIGENT_TIERING" (CreateFileSystemLustreConfiguration); SizeGiB is
    "Required if SizingMode is set to USER_PROVISIONED", and "Intelligent-Tiering file systems support a
    minimum of 8 GiB and maximum of 32768 GiB for SSD read cache size for every 1000 MBps of throughput
    capacity provisioned" (LustreReadCacheConfiguration)."""
    if not fs.intelligent_tiering:
        return
    mode, size, mbps = fs.read_cache_sizing_mode, fs.read_cache_size_gib, fs.throughput_capacity_mbps
    if mode is None:
        yield r.finding(
            ctx,
            fs.path,
            "an Intelligent-Tiering file system needs its SSD read cache configuration (read_cache_sizing_mode: "
            "NO_CACHE, USER_PROVISIONED or PROPORTIONAL_TO_THROUGHPUT_CAPACITY)",
            fix=Fix(
                "sized with the throughput capacity; NO_CACHE for none",
                (set_to(ctx, _path(fs, "read_cache_sizing_mode"), "PROPORTIONAL_TO_THROUGHPUT_CAPACITY"),),
                alternatives=(set_to(ctx, _path(fs, "read_cache_sizing_mode"), "NO_CACHE"),),
            ),
        )
        return
    if mode != "USER_PROVISIONED":
        if size is not None:
            yield r.finding(
                ctx,
                _path(fs, "read_cache_size_gib"),
                f"read_cache_size_gib is given with {mode}; AWS takes a size only with USER_PROVISIONED",
                fix=Fix(
                    "the cache is sized by its mode",
                    (remove(ctx, _path(fs, "read_cache_size_gib")),),
                    alternatives=(set_to(ctx, _path(fs, "read_cache_sizing_mode"), "USER_PROVISIONED"),),
                ),
            )
        return
    it = intelligent_tiering()
    valid = mbps is not None and it.accepts(mbps)
    if size is None:
        low = it.cache_range(mbps)[0] if mbps is not None and valid else it.cache_gib_per_1000_mbps[0]
        yield r.finding(
            ctx,
            fs.path,
            "a USER_PROVISIONED SSD read cache needs its size (read_cache_size_gib)",
            fix=Fix(
                "the smallest AWS allows at this throughput capacity",
                (set_to(ctx, _path(fs, "read_cache_size_gib"), low),),
                alternatives=(set_to(ctx, _path(fs, "read_cache_sizing_mode"), "PROPORTIONAL_TO_THROUGHPUT_CAPACITY"),),
            ),
        )
        return
    if mbps is None or not valid:
        return  # lustre-intelligent-tiering reports the throughput capacity
    low, high = it.cache_range(mbps)
    if not low <= size <= high:
        near = min(max(size, low), high)
        yield r.finding(
            ctx,
            _path(fs, "read_cache_size_gib"),
            f"an SSD read cache of {size:,} GiB at {mbps:,} MBps is outside what AWS supports: {low:,} to "
            f"{high:,} GiB (8 to 32,768 GiB per 1,000 MBps of throughput capacity)",
            fix=Fix(edits=(set_to(ctx, _path(fs, "read_cache_size_gib"), near, "the nearest size AWS supports"),)),
        )


@storage_rule(
    id="lustre-metadata-iops",
    severity="error",
    category="storage",
    description=(
        "An FSx for Lustre metadata configuration of a mode other than AUTOMATIC or USER_PROVISIONED, with Metadata "
        "IOPS in AUTOMATIC mode (which takes none), or with a figure AWS does not offer: 1,500, 3,000, 6,000, 12,000 "
        "or a multiple of 12,000 up to 192,000."
    ),
    source=METADATA_DOC,
    remediation=(
        "In USER_PROVISIONED mode, give `iops` of 1,500, 3,000, 6,000, 12,000 or a multiple of 12,000 up to "
        "192,000; in AUTOMATIC mode, give no `iops` (FSx for Lustre sets it)."
    ),
)
def metadata_iops_rule(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    """The FSx API reference, CreateFileSystemLustreMetadataConfiguration (fsx_lustre.yaml quotes it): Iops is
    "(USER_PROVISIONED mode only)"; "valid values are 1500, 3000, 6000, 12000, and multiples of 12000 up to a
    maximum of 192000" for SSD and Intelligent-Tiering file systems alike; "If you're using AUTOMATIC mode, you
    cannot specify a value". Only a program gives these (a stack file has no key for them; the components
    create AUTOMATIC). Not judged: "You can't provision fewer Metadata IOPS than AUTOMATIC mode provisions", a
    figure the page does not give. The mode is one of the API's two (botocore's MetadataConfigurationMode)."""
    from planner.core.text.safe import excerpt

    iops, mode = fs.metadata_iops, fs.metadata_mode
    if mode is not None and mode not in METADATA_MODES:
        yield r.finding(
            ctx,
            _path(fs, "metadata_mode"),
            f"metadata configuration mode {excerpt(mode)} is not one AWS takes: {' or '.join(METADATA_MODES)}",
            fix=Fix(edits=(set_to(ctx, _path(fs, "metadata_mode"), METADATA_MODES[iops is not None]),)),
        )
        return
    if iops is None:
        return
    at = _path(fs, "metadata_iops")
    if fs.metadata_mode == "AUTOMATIC":
        yield r.finding(
            ctx,
            at,
            f"Metadata IOPS {iops:,} given in AUTOMATIC mode: AWS takes a figure only in USER_PROVISIONED mode "
            "(in AUTOMATIC mode FSx for Lustre sets it)",
            fix=Fix(
                "AUTOMATIC mode sets the figure itself",
                (remove(ctx, at),),
                alternatives=(set_to(ctx, _path(fs, "metadata_mode"), "USER_PROVISIONED"),),
            ),
        )
        return
    allowed = metadata_iops()
    if not allowed.accepts(iops):
        near = allowed.nearest(iops)
        said = f"{iops:,}" if abs(iops) < 10**9 else f"above {allowed.maximum:,}"  # not a 300-digit figure
        yield r.finding(
            ctx,
            at,
            f"Metadata IOPS {said} is not a figure AWS offers: {allowed.describe()}",
            fix=Fix(edits=(set_to(ctx, at, near, "the nearest figure AWS offers at or above it"),)),
        )


@storage_rule(
    id="lustre-region",
    severity="warning",
    category="storage",
    description=(
        "An FSx for Lustre deployment type in a Region AWS's Deployment type availability table does not list for "
        "it, or, in a Region it lists for PERSISTENT_2 at 125 and 250 MB/s/TiB SSD without EFA only, an EFA-enabled, "
        "faster or Intelligent-Tiering file system."
    ),
    source=REGIONS_DOC,
    remediation=(
        "Use a deployment type the table lists for the stack's Region (or another Region); where PERSISTENT_2 is "
        "offered at 125 and 250 MB/s/TiB without EFA only, use one of those, SSD, with `efa_enabled: false`."
    ),
)
def region(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    """The Lustre User Guide's table (fsx_lustre.yaml's `region_availability`, a dated copy): "Scratch 2,
    Persistent 1, and Persistent 2 deployment types are available in the following AWS Regions", and of its rows
    marked *: "These AWS Regions support Persistent-125 and Persistent-250 file systems with SSD storage class
    without EFA." A warning: the copy is dated and AWS adds Regions. Not judged: other partitions, Local Zones (the
    table names them by city only), SCRATCH_1 (not in the table)."""
    avail = region_availability()
    where, dtype = ctx.stack.region, fs.deployment_type
    regs = shipped_data.regions()
    if regs.partitions.get(where) not in avail.partitions or fs.availability_zone in regs.local_zones:
        return
    if not avail.judged(dtype):
        return
    table = f"AWS's Deployment type availability table ({REGIONS_DOC}, copy of {avail.copy_of})"
    if not avail.offers(dtype, where):
        others = [t for t in avail.regions if t != dtype and avail.offers(t, where)]
        yield r.finding(
            ctx,
            _path(fs, "deployment_type"),
            f"{table} does not list {where} for {dtype}; AWS may have added it since",
            fix=Fix(
                f"a Region the table lists for {dtype}"
                + (f"; or a deployment type it lists for {where}: {', '.join(others)}" if others else ""),
                move_region(ctx, nearest_region(where, sorted(avail.regions[dtype])), f"listed for {dtype}"),
            ),
        )
        return
    if dtype != "PERSISTENT_2" or where not in avail.limited:
        return
    allowed = avail.limited_throughputs
    said = (
        f"{table} marks {where} for PERSISTENT_2 with the note 'These AWS Regions support Persistent-125 and "
        "Persistent-250 file systems with SSD storage class without EFA.'"
    )
    if fs.intelligent_tiering:
        yield r.finding(
            ctx,
            _path(fs, "storage_type"),
            f"an Intelligent-Tiering file system in {where}: {said}",
            fix=Fix(
                f"a Region the table lists for PERSISTENT_2 without that note; or SSD storage at "
                f"{' or '.join(map(str, allowed))} MB/s/TiB",
                move_region(ctx, nearest_region(where, sorted(avail.regions[dtype])), "listed for PERSISTENT_2"),
            ),
        )
        return
    unit = fs.per_unit_storage_throughput
    if unit is not None and unit in deployment_types()[dtype].throughputs and unit not in allowed:
        yield r.finding(
            ctx,
            _path(fs, "per_unit_storage_throughput"),
            f"{unit} MB/s/TiB in {where}: {said}",
            fix=Fix(
                edits=(set_to(ctx, _path(fs, "per_unit_storage_throughput"), max(allowed), "the most the note lists"),)
            ),
        )
    if fs.efa_enabled:
        yield r.finding(
            ctx,
            _path(fs, "efa_enabled"),
            f"an EFA-enabled file system in {where}: {said}",
            fix=Fix(edits=(set_to(ctx, _path(fs, "efa_enabled"), False),)),
        )


@storage_rule(
    id="lustre-s3-association",
    severity="error",
    category="storage",
    description=(
        "An S3 link (`s3_import_path`) on a deployment type that AWS lets link to S3 neither through "
        "ImportPath nor through a data repository association."
    ),
    source=LUSTRE_CONFIG_DOC,
    remediation="Use a deployment type that links to S3 (SCRATCH_1, SCRATCH_2 and PERSISTENT_1 through ImportPath, PERSISTENT_2 through a data repository association), or copy the data in another way.",
)
def s3_association(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    """planner sends `s3_import_path` as ImportPath where AWS accepts it (SCRATCH_1, SCRATCH_2,
    PERSISTENT_1) and as a data repository association on PERSISTENT_2, which bars ImportPath;
    only a type that accepts neither is an error (none of the shipped ones)."""
    dt = deployment_types()[fs.deployment_type]
    if fs.s3_import_path and dt.s3_link is None:
        yield r.finding(
            ctx,
            _path(fs, "s3_import_path"),
            f"{fs.deployment_type} file systems cannot be linked to S3 ({fs.s3_import_path}): AWS accepts "
            "neither ImportPath nor a data repository association for them",
            fix=Fix(
                "and copy the data in another way, or use a deployment type that links to S3: "
                + ", ".join(n for n, t in deployment_types().items() if t.s3_link),
                (remove(ctx, _path(fs, "s3_import_path")),),
            ),
        )


@storage_rule(
    id="lustre-scratch-long-run",
    severity="warning",
    category="storage",
    description=f"A SCRATCH file system (data not replicated, no backups) for a run longer than {SCRATCH_LONG_RUN_HOURS} hours (planner's policy).",
    source=DEPLOYMENT_DOC,
    remediation="Use PERSISTENT_2 for long runs, or export checkpoints to S3 regularly.",
)
def scratch_long_run(r: Rule, ctx: RuleContext, fs: Lustre) -> Iterator[Finding]:
    sched = ctx.cluster.schedule
    if sched is None or deployment_types()[fs.deployment_type].replicated:
        return
    if sched.hours > SCRATCH_LONG_RUN_HOURS:
        yield r.finding(
            ctx,
            _path(fs, "deployment_type"),
            f"{fs.deployment_type} keeps one copy of the data and has no backups, for a {sched.hours:g}-hour run; "
            "a file server failure loses checkpoints written since the last export",
            fix=Fix("or export checkpoints to S3 regularly", _to_persistent_2(ctx, fs)),
        )
