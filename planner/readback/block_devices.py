"""The EBS volumes a node group's instances get, read from what launches them: `Volume`s for the estimate.

Every mapping counts, not only the root: a launch template's `blockDeviceMappings` (with an instance's
own `rootBlockDevice` and `ebsBlockDevices` over its template's), an EKS managed node group's `diskSize`
when it has no launch template, a Karpenter EC2NodeClass's `blockDeviceMappings` (or its AMI family's
defaults). A volume is priced from what is declared; what only the AMI knows (a root volume without a
mapping of its own, a type not written) or only the deploy knows (another resource's output) is kept as a
`Volume` with `unknown` saying so, which the estimate leaves out and names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from planner.core.model.cluster import ROOT_SIZE_UNKNOWN, Volume
from planner.readback import karpenter
from planner.readback.resources import ROOT_DEVICES, UNKNOWN, Resource, as_int, as_list, dig

AT_DEPLOY = "known only at deploy"
# An EKS managed node group without a launch template: "The default disk size is 20 GiB for Linux and
# Bottlerocket. The default disk size is 50 GiB for Windows." (EKS API, CreateNodegroup `diskSize`,
# https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html). The API names no volume type:
# EKS creates gp2 volumes for such groups (aws/containers-roadmap#1417, open since 2021-06-24, asks for gp3;
# bottlerocket-os/bottlerocket#4799, 2026-04-01, sees the diskSize volume created as gp2), said as the basis.
EKS_DISK_GIB = 20
EKS_WINDOWS_DISK_GIB = 50
EKS_DISK_TYPE = "gp2"
EKS_DOC = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"
EKS_TYPE_BASIS = (
    "EKS creates it as gp2 (the EKS API names no type; https://github.com/aws/containers-roadmap/issues/1417)"
)
# Karpenter's block device mappings when an EC2NodeClass declares none, per AMI family (gp3, encrypted), and
# none for `Custom` (https://karpenter.sh/docs/concepts/nodeclasses/#specblockdevicemappings): (device, GiB), the
# root first.
KARPENTER_DOC = "https://karpenter.sh/docs/concepts/nodeclasses/#specblockdevicemappings"
KARPENTER_DEFAULTS: dict[str, tuple[tuple[str, int], ...]] = {
    "AL2": (("/dev/xvda", 20),),
    "AL2023": (("/dev/xvda", 20),),
    "Bottlerocket": (("/dev/xvda", 4), ("/dev/xvdb", 20)),
    "Ubuntu": (("/dev/sda1", 20),),
    "Windows2019": (("/dev/sda1", 50),),
    "Windows2022": (("/dev/sda1", 50),),
}
KARPENTER_TYPE = "gp3"


def _device(mapping: Mapping[str, Any]) -> str:
    name = mapping.get("deviceName")
    return name if isinstance(name, str) else ""


def _unknown_root(why: str = ROOT_SIZE_UNKNOWN) -> Volume:
    return Volume("", root=True, unknown=why)


def volume(device: str, ebs: Mapping[str, Any], root: bool, size: Callable[[Any], int | None] = as_int) -> Volume:
    """One mapping's EBS volume as declared: size (`size` reads it: GiB, or a Kubernetes quantity), type,
    IOPS and throughput. A size not declared is the AMI's (or a snapshot's); a value that is another
    resource's output is known only at deploy: either makes the volume unknown, never a guess."""
    raw = {k: ebs.get(k) for k in ("volumeSize", "volumeType", "iops", "throughput")}
    deferred = [k for k, v in raw.items() if v is UNKNOWN]
    if deferred:
        return Volume(device, root=root, unknown=f"{deferred[0]} {AT_DEPLOY}")
    vtype = raw["volumeType"] if isinstance(raw["volumeType"], str) and raw["volumeType"] else None
    gib = size(raw["volumeSize"]) if raw["volumeSize"] is not None else None
    iops, mibps = as_int(raw["iops"]), as_int(raw["throughput"])
    unknown = None
    if raw["volumeSize"] is not None and (gib is None or gib <= 0):
        unknown = f"size {str(raw['volumeSize'])[:20]!r} not a whole number of GiB"
    elif gib is None:
        snapshot = ebs.get("snapshotId") or ebs.get("snapshotID")
        unknown = "size unknown: the snapshot's size" if snapshot else ROOT_SIZE_UNKNOWN
    elif vtype is None:
        unknown = "type unknown: the AMI's default mapping" if root else "type unknown: not declared"
    return Volume(device, vtype, gib, iops, mibps, root, unknown)


def launch_volumes(template: Resource | None, inst: Resource | None = None) -> tuple[Volume, ...]:
    """Every EBS volume an instance launched from `template` (and, for an instance, its own block devices
    over its template's) gets: each mapping with an `ebs` block, by device; the root volume, when nothing maps
    the root device, as the AMI's default mapping (size unknown)."""
    raw: dict[str, dict[str, Any]] = {}  # device -> the ebs settings, the instance's over its template's
    mappings = template.get("blockDeviceMappings") if template is not None else None
    if mappings is UNKNOWN:
        return (_unknown_root(f"block device mappings {AT_DEPLOY}"),)
    for m in as_list(mappings):
        if isinstance(m, dict) and isinstance(m.get("ebs"), dict) and not m.get("noDevice"):
            raw[_device(m)] = dict(m["ebs"])
    if inst is not None:
        root = inst.get("rootBlockDevice")
        if isinstance(root, dict):
            device = next((d for d in raw if d in ROOT_DEVICES), "")
            raw[device] = {**raw.get(device, {}), **{k: v for k, v in root.items() if v is not None}}
        for ebs in as_list(inst.get("ebsBlockDevices")):
            if isinstance(ebs, dict) and isinstance(ebs.get("deviceName"), str):
                raw[ebs["deviceName"]] = {**raw.get(ebs["deviceName"], {}), **ebs}
    out = [volume(d, ebs, d in ROOT_DEVICES or d == "") for d, ebs in raw.items()]
    if not any(v.root for v in out):
        out.insert(0, _unknown_root())
    return tuple(sorted(out, key=lambda v: not v.root))


def eks_volumes(group: Resource) -> tuple[Volume, ...]:
    """The volume of an EKS managed node group without a launch template: `diskSize` GiB (the API's default
    when not declared) of the type EKS creates; for a Bottlerocket AMI type, its data volume, beside the OS
    volume the AMI maps (size unknown)."""
    size, ami = group.get("diskSize"), group.get("amiType")
    if size is UNKNOWN:
        return (_unknown_root(f"diskSize {AT_DEPLOY}"),)
    windows = isinstance(ami, str) and ami.upper().startswith("WINDOWS")
    gib = as_int(size)
    if gib is not None and gib > 0:
        basis = f"EKS managed node group without a launch template: diskSize {gib} GiB; {EKS_TYPE_BASIS}"
    else:
        gib = EKS_WINDOWS_DISK_GIB if windows else EKS_DISK_GIB
        basis = (
            f"EKS managed node group without a launch template and no diskSize: {gib} GiB, the EKS API's default "
            f"for {'Windows' if windows else 'Linux and Bottlerocket'} ({EKS_DOC}); {EKS_TYPE_BASIS}"
        )
    if isinstance(ami, str) and ami.upper().startswith("BOTTLEROCKET"):  # diskSize sizes its data volume
        return (_unknown_root(), Volume("/dev/xvdb", EKS_DISK_TYPE, gib, basis=basis))
    return (Volume("", EKS_DISK_TYPE, gib, root=True, basis=basis),)


def _gib(value: Any) -> int | None:
    """A Karpenter `volumeSize` (a Kubernetes quantity, `100Gi`) in whole GiB, else None."""
    size = karpenter.quantity(value)
    return int(size // 2**30) if size is not None and size >= 2**30 and size % 2**30 == 0 else None


def _family(spec: Mapping[str, Any]) -> str | None:
    """An EC2NodeClass's AMI family: `amiFamily`, else the family of an `alias` AMI selector term (`al2023@latest`)."""
    family = spec.get("amiFamily")
    if isinstance(family, str):
        return family
    names = {k.lower(): k for k in (*KARPENTER_DEFAULTS, "Custom")}
    for term in as_list(spec.get("amiSelectorTerms")):
        alias = term.get("alias") if isinstance(term, dict) else None
        if isinstance(alias, str):
            return names.get(alias.split("@", 1)[0].lower())
    return None


def node_class_volumes(spec: Any) -> tuple[Volume, ...]:
    """Every EBS volume of an instance a Karpenter EC2NodeClass launches: its `blockDeviceMappings` (the root:
    `rootVolume: true`, else a root device name), or without any, its AMI family's defaults."""
    if spec is UNKNOWN or not isinstance(spec, Mapping):
        return (_unknown_root(f"the EC2NodeClass spec {AT_DEPLOY}" if spec is UNKNOWN else ROOT_SIZE_UNKNOWN),)
    mappings = dig(spec, "blockDeviceMappings")
    if mappings is UNKNOWN:
        return (_unknown_root(f"block device mappings {AT_DEPLOY}"),)
    declared = [m for m in as_list(mappings) if isinstance(m, dict)]
    if declared:
        flagged = any(m.get("rootVolume") is True for m in declared)
        out = []
        for m in declared:
            device = _device(m)
            root = m.get("rootVolume") is True if flagged else device in ROOT_DEVICES
            ebs = m.get("ebs")
            if isinstance(ebs, dict):
                out.append(volume(device, ebs, root, _gib))
            elif ebs is UNKNOWN:
                out.append(Volume(device, root=root, unknown=f"ebs {AT_DEPLOY}"))
        if not any(v.root for v in out):
            out.insert(0, _unknown_root())
        return tuple(sorted(out, key=lambda v: not v.root))
    family = _family(spec)
    defaults = KARPENTER_DEFAULTS.get(family or "")
    if defaults is None:  # Custom, or a family planner does not know: the AMI's own mappings
        return (_unknown_root(),)
    basis = f"no blockDeviceMappings: Karpenter's defaults for amiFamily {family} ({KARPENTER_DOC})"
    return tuple(
        Volume(device, KARPENTER_TYPE, gib, root=i == 0, basis=basis) for i, (device, gib) in enumerate(defaults)
    )


def missing_node_class(name: str) -> tuple[Volume, ...]:
    """The volumes of a pool whose EC2NodeClass is not in the program: not known."""
    return (_unknown_root(f"size unknown: EC2NodeClass '{name}' is not a resource of this stack"),)
