"""The FSx for Lustre file system read back from a program's `aws:fsx/lustreFileSystem:LustreFileSystem`:
its `lustre` record of the stack schema (deployment type, capacity, throughput, S3 link, EFA, AZ) and
what an EFA-enabled file system needs beyond `efaEnabled` (`lustre_efa_fields`), for `planner.readback.topology`.
"""

from __future__ import annotations

from typing import Any

from planner.core.model.findings import Fix
from planner.readback.launch_templates import zones_of
from planner.readback.resources import (
    DATA_REPOSITORY_ASSOCIATION,
    LUSTRE,
    SECURITY_GROUP,
    SUBNET,
    Graph,
    Resource,
    Violation,
    as_int,
    as_list,
    change,
    known,
    truthy,
)

_A_SUBNET = "a subnet created in this program, with its availability_zone"


def lustre(
    graph: Graph, fs: Resource, cluster_az: str | None, gaps: list[Violation], subnet_prop: str = "subnetIds"
) -> dict[str, Any]:
    """The `lustre` record of `fs`; `subnet_prop`: the property of the resource behind `fs` that names its subnet
    (`parameters.subnetId` of a StorageClass the FSx CSI driver reads, `planner.readback.fsx_csi`)."""
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
    out.update(tiering_keys(fs))
    out.setdefault("deployment_type", "SCRATCH_1")  # the FSx API's default deployment type
    zones = zones_of(graph.resolve(fs, "subnetIds", as_list(fs.get("subnetIds")), SUBNET))
    if zones:
        out["availability_zone"] = zones[0]
    elif cluster_az is None:  # no node group tells an AZ either (compute HyperPod or Karpenter runs)
        gaps.append(
            Violation(
                f"cannot tell the Availability Zone of file system '{fs.name}' (its subnet is not a "
                "resource of this stack, or names no availabilityZone): checks that need it are not run",
                fs.urn,
                fix=Fix(edits=(change(fs, subnet_prop, note=_A_SUBNET + " set"),)),
            )
        )
    else:
        gaps.append(
            Violation(
                f"cannot tell the Availability Zone of file system '{fs.name}'; assumed "
                f"{cluster_az or 'the one of the node groups'}",
                fs.urn,
                fix=Fix(
                    edits=(
                        change(
                            fs,
                            subnet_prop,
                            note=_A_SUBNET + (f" {cluster_az} (the node groups' AZ)" if cluster_az else " set"),
                        ),
                    )
                ),
            )
        )
    return out


def lustre_efa_fields(graph: Graph, fs: Resource) -> dict[str, Any]:
    """What an EFA-enabled file system needs beyond `efaEnabled`, as the resources say it: a
    `metadataConfiguration` (known to be there or not), and whether its security groups, together, allow
    all traffic with themselves inbound and outbound (None when a group is not a resource of this program,
    or none is named: the subnet's default group, which the program does not show); and the metadata
    configuration's mode and IOPS where the program gives them (`metadata_keys`)."""
    from planner.readback.security_groups import DIRECTIONS, self_referencing

    meta = fs.get("metadataConfiguration")
    metadata = None if meta is not None and not known(meta) else bool(meta)
    ids = as_list(fs.get("securityGroupIds"))
    groups = graph.resolve(fs, "securityGroupIds", ids, SECURITY_GROUP) if ids else []
    if not ids or not all(isinstance(i, str) and known(i) for i in ids) or len(groups) != len(ids):
        return {"metadata_configuration": metadata, "efa_security_group": None, **metadata_keys(fs)}
    both = set().union(*(self_referencing(graph, g) for g in groups)) >= set(DIRECTIONS)
    return {"metadata_configuration": metadata, "efa_security_group": both, **metadata_keys(fs)}


def metadata_keys(fs: Resource) -> dict[str, Any]:
    """The metadata configuration's `mode` and `iops`, where the program gives them before deploy."""
    out: dict[str, Any] = {}
    mode, iops = fs.get("metadataConfiguration", "mode"), fs.get("metadataConfiguration", "iops")
    if isinstance(mode, str) and known(mode) and mode:
        out["metadata_mode"] = mode
    if isinstance(iops, (int, float)) and not isinstance(iops, bool) and known(iops):
        out["metadata_iops"] = as_int(iops)
    return out


def tiering_keys(fs: Resource) -> dict[str, Any]:
    """An Intelligent-Tiering file system's keys (`storageType: INTELLIGENT_TIERING`): its throughput capacity
    and its SSD read cache (`dataReadCacheConfiguration`'s `sizingMode` and `size`). Another storage type (SSD,
    HDD: told apart by the per-unit throughput, as before) adds nothing."""
    if fs.get("storageType") != "INTELLIGENT_TIERING":
        return {}
    out: dict[str, Any] = {"storage_type": "INTELLIGENT_TIERING"}
    for key, value in (
        ("throughput_capacity_mbps", fs.get("throughputCapacity")),
        ("read_cache_sizing_mode", fs.get("dataReadCacheConfiguration", "sizingMode")),
        ("read_cache_size_gib", fs.get("dataReadCacheConfiguration", "size")),
    ):
        if known(value) and value is not None and value != "":
            out[key] = as_int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    return out
