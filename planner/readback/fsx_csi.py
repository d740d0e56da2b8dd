"""FSx for Lustre file systems the FSx for Lustre CSI driver provisions, read from a program's Kubernetes objects.

On EKS a file system is often not an `aws.fsx.LustreFileSystem` but a `StorageClass` whose `provisioner` is
`fsx.csi.aws.com` and a `PersistentVolumeClaim` of that class: the driver creates one file system per claim
(dynamic provisioning), from the class's `parameters` and the claim's `spec.resources.requests.storage`. A
`PersistentVolume` whose `csi.driver` is the driver mounts an existing file system (`volumeHandle`, its id:
static provisioning), which this program does not create. Read here as the driver reads them, at commit
`DRIVER_COMMIT` of kubernetes-sigs/aws-fsx-csi-driver:

- the parameters and what they mean: `PARAMETERS_DOC` (the dynamic provisioning example's README), `S3_DOC`;
- how each is parsed: `CONTROLLER_DOC` (`CreateVolume`: numbers by `strconv.ParseInt(val, 10, 64)`, booleans
  by `strconv.ParseBool`, a malformed one refused with InvalidArgument; other keys are not read);
- the size: `ROUNDING_DOC` (`RoundUpVolumeSize`: the claim's bytes rounded up to 1,200 GiB, 2,400 GiB or a
  multiple of 3,600 GiB for SCRATCH_1, to 1,200 GiB or a multiple of 2,400 GiB for the other SSD types, to a
  multiple of 6,000 GiB (12 MB/s/TiB) or 1,800 GiB for HDD; above 2^31 - 1 GiB refused, `ConvertToInt32`);
- `CLOUD_DOC` (`CreateFileSystem`: one subnet, the security groups split on ",", `EfaEnabled` only when true,
  the metadata configuration only with `metadataConfigurationMode`, its IOPS only inside it).

Each provisioned file system is given to `planner.readback.file_system` as the `aws.fsx.LustreFileSystem` it
amounts to (`Provisioned.fs`: the class's URN, the properties the FSx resource would have), so it is read,
checked and priced as one; what the driver refuses, what it ignores and what cannot be known before deploy
are `Violation`s (`readback-gap`) on the class or the claim, with the change to make there.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from msgspec import Struct

from planner.core.model.cluster import LUSTRE_DEPLOYMENTS
from planner.core.model.findings import Fix, outside
from planner.core.text.safe import excerpt
from planner.readback.resources import LUSTRE, UNKNOWN, Graph, Resource, Violation, change, known

DRIVER = "fsx.csi.aws.com"
DRIVER_COMMIT = "5b227125add708cd0b87c76abe1a4c074e71dfc5"
_AT = f"https://github.com/kubernetes-sigs/aws-fsx-csi-driver/blob/{DRIVER_COMMIT}/"
PARAMETERS_DOC = _AT + "examples/kubernetes/dynamic_provisioning/README.md"
S3_DOC = _AT + "examples/kubernetes/dynamic_provisioning_s3/README.md"
STATIC_DOC = _AT + "examples/kubernetes/static_provisioning/README.md"
CONTROLLER_DOC = _AT + "pkg/driver/controller.go"
ROUNDING_DOC = _AT + "pkg/util/util.go"
CLOUD_DOC = _AT + "pkg/cloud/cloud.go"
# Kubernetes: resource quantities (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/),
# the default StorageClass annotation (https://kubernetes.io/docs/concepts/storage/storage-classes/#default-storageclass)
QUANTITY_DOC = "https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/"
DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


# the parameters `CreateVolume` reads (CONTROLLER_DOC's volumeParams* constants); any other key is ignored
NUMBERS = ("perUnitStorageThroughput", "metadataIops", "automaticBackupRetentionDays")
BOOLEANS = ("efaEnabled", "copyTagsToBackups")
PARAMETERS = frozenset(
    {
        "subnetId",
        "securityGroupIds",
        "autoImportPolicy",
        "s3ImportPath",
        "s3ExportPath",
        "deploymentType",
        "kmsKeyId",
        "storageType",
        "driveCacheType",
        "dailyAutomaticBackupStartTime",
        "dataCompressionType",
        "weeklyMaintenanceStartTime",
        "fileSystemTypeVersion",
        "extraTags",
        "metadataConfigurationMode",
        *NUMBERS,
        *BOOLEANS,
    }
)
# Keys the external provisioner itself reads and strips before the driver sees them (csi.storage.k8s.io/...)
_PROVISIONER_PREFIX = "csi.storage.k8s.io/"
STORAGE_TYPES = ("SSD", "HDD")  # the README's two; INTELLIGENT_TIERING needs what the driver cannot send
_INT = re.compile(r"[+-]?[0-9]+")  # strconv.ParseInt(val, 10, 64): a sign, decimal digits, nothing else
_TRUE, _FALSE = ("1", "t", "T", "TRUE", "true", "True"), ("0", "f", "F", "FALSE", "false", "False")  # ParseBool
INT32_MAX = 2**31 - 1
GIB = 2**30
# a Kubernetes quantity: a decimal number and a binary or decimal SI suffix, or an exponent (QUANTITY_DOC)
_QUANTITY = re.compile(
    r"(?P<num>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]{1,3})?"
)
_SCALE: dict[str, Fraction] = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    **{s: Fraction(2 ** (10 * (i + 1))) for i, s in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))},
}
_MAX_TEXT = 64  # longer than any quantity or parameter value the driver takes: refused before it is parsed


class Bad(ValueError):
    """A value the driver (or Kubernetes) refuses, with why, in a few words."""


def quantity_bytes(value: Any) -> int:
    """A Kubernetes quantity (`1200Gi`, `1.2Ti`, `5e12`, `1200000000000`) as whole bytes, rounded up as
    Kubernetes rounds a storage request; `Bad` when it is not one, is negative, or is absurdly long."""
    if isinstance(value, bool) or value is None:
        raise Bad(f"{excerpt(value)} is not a quantity")
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Bad(f"{excerpt(value)} is not a quantity")
        text = repr(value)
    elif isinstance(value, str):
        text = value
    else:
        raise Bad(f"{excerpt(value)} is not a quantity")
    if len(text) > _MAX_TEXT:
        raise Bad(f"{excerpt(text)} is not a quantity (too long)")
    m = _QUANTITY.fullmatch(text)
    if m is None:
        raise Bad(f"{excerpt(text)} is not a Kubernetes quantity (a number and a suffix such as Gi)")
    num, suffix = m.group("num"), m.group("suffix") or ""
    if suffix[:1] in ("e", "E") and suffix not in _SCALE:
        scale = Fraction(10) ** int(suffix[1:])
    else:
        scale = _SCALE[suffix]
    amount = Fraction(num) * scale
    if amount < 0:
        raise Bad(f"{excerpt(text)} is negative")
    whole = amount.numerator // amount.denominator
    return whole + (1 if whole != amount else 0)


def parse_int(name: str, value: str) -> int:
    """A number parameter as the driver parses it (`strconv.ParseInt(val, 10, 64)`, then kept in 32 bits)."""
    if len(value) > _MAX_TEXT or _INT.fullmatch(value) is None:
        raise Bad(f"{name} {excerpt(value)} is not a number the driver parses (decimal digits): it refuses the volume")
    n = int(value)
    if not -(2**31) <= n <= INT32_MAX:
        raise Bad(f"{name} {excerpt(value)} does not fit the 32-bit number the driver passes to FSx")
    return n


def parse_bool(name: str, value: str) -> bool:
    """A boolean parameter as the driver parses it (`strconv.ParseBool`)."""
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise Bad(f'{name} {excerpt(value)} is not a boolean the driver parses ("true" or "false"): it refuses the volume')


def round_up_gib(size_bytes: int, deployment_type: str, storage_type: str, per_unit: int) -> int:
    """The capacity the driver asks FSx for: `RoundUpVolumeSize` (ROUNDING_DOC)."""

    def units(unit_gib: int) -> int:
        return -(-size_bytes // (unit_gib * GIB)) * unit_gib

    if storage_type == "HDD":
        return units(6000 if per_unit == 12 else 1800)
    if deployment_type in ("SCRATCH_1", ""):
        return units(1200) if size_bytes < 3600 * GIB else units(3600)
    return units(1200) if size_bytes < 2400 * GIB else units(2400)


class Provisioned(Struct):
    """One file system the driver creates for a claim: the FSx resource it amounts to (`fs`, with the class's
    URN), the class and the claim it comes from, and the claim's request (in words) when rounding changed it."""

    fs: Resource
    storage_class: Resource
    claim: Resource
    requested: str = ""


def _of(r: Resource, group: str, kind: str) -> bool:
    """A Kubernetes object of `group`/any version/`kind`: `STORAGE_CLASS`, `PERSISTENT_VOLUME_CLAIM` and
    `PERSISTENT_VOLUME` (planner.readback.resources) at v1 or any other version."""
    parts = r.type.split(":")
    return len(parts) == 3 and parts[0] == "kubernetes" and parts[1].split("/")[0] == group and parts[2] == kind


def _name(r: Resource) -> Any:
    """The object's Kubernetes name (`metadata.name`; UNKNOWN when an output not known yet)."""
    return r.get("metadata", "name")


def is_driver_class(r: Resource) -> bool:
    return _of(r, "storage.k8s.io", "StorageClass") and r.get("provisioner") == DRIVER


def _volumes(graph: Graph) -> list[Resource]:
    """The driver's PersistentVolumes (static provisioning), in URN order."""
    pvs = (
        r for r in graph.resources if _of(r, "core", "PersistentVolume") and r.get("spec", "csi", "driver") == DRIVER
    )
    return sorted(pvs, key=lambda r: r.urn)


def mounted(graph: Graph) -> tuple[str, ...]:
    """The existing file systems the program's static volumes of the driver mount (`spec.csi.volumeHandle`, the
    file system's id), in URN order; a volume whose handle is known only at deploy, by its name. A volume of a
    file system this program creates (a handle that is its output) is not one: that file system is read itself."""
    out: list[str] = []
    for pv in _volumes(graph):
        handle = pv.get("spec", "csi", "volumeHandle")
        ref = graph.referenced(handle)
        if ref is not None and ref.type == LUSTRE:
            continue
        label = handle if isinstance(handle, str) and known(handle) else f"PersistentVolume '{pv.name}'"
        if label not in out:
            out.append(label)
    return tuple(out)


def read(graph: Graph) -> tuple[list[Provisioned], list[Violation]]:
    """The file systems the driver provisions for the claims of `graph`, in URN order, and what it could not
    read (each a `Violation` on the object at fault)."""
    classes = sorted((r for r in graph.resources if is_driver_class(r)), key=lambda r: r.urn)
    volumes = _volumes(graph)
    claims = sorted((r for r in graph.resources if _of(r, "core", "PersistentVolumeClaim")), key=lambda r: r.urn)
    gaps: list[Violation] = []
    out: list[Provisioned] = []
    if not classes and not volumes:
        return out, gaps
    for pv in volumes:
        gaps.append(_static(graph, pv))
    by_name = {n: c for c in classes if isinstance(n := _name(c), str) and known(n)}
    all_classes = {
        n: c
        for c in graph.resources
        if _of(c, "storage.k8s.io", "StorageClass") and isinstance(n := _name(c), str) and known(n)
    }
    defaults = [c for c in classes if c.get("metadata", "annotations", DEFAULT_CLASS) == "true"]
    static_free = {pv.urn: pv for pv in volumes}
    used: set[str] = set()
    for claim in claims:
        sc = _class_of(graph, claim, by_name, defaults)
        if sc is None:
            wanted = claim.get("spec", "storageClassName")
            if isinstance(wanted, str) and wanted and wanted not in all_classes and not _bound(claim, volumes):
                gaps.append(
                    Violation(
                        f"PersistentVolumeClaim '{claim.name}' asks for storage class {excerpt(wanted)}, which is not "
                        "a StorageClass of this program: not read (if the FSx for Lustre CSI driver provisions it, that "
                        "file system is not planned or priced)",
                        claim.urn,
                        fix=Fix(
                            edits=(change(claim, "spec.storageClassName", note="a StorageClass this program declares"),)
                        ),
                        severity="info",
                    )
                )
            continue
        used.add(sc.urn)
        bound = _bound(claim, volumes) or _static_of_class(sc, claim, static_free)
        if bound is not None:  # bound to a volume of an existing file system: nothing is provisioned
            static_free.pop(bound.urn, None)
            continue
        found = _provisioned(graph, sc, claim, gaps)
        if found is not None:
            out.append(found)
    for sc in classes:
        if sc.urn not in used:
            gaps.append(
                Violation(
                    f"StorageClass '{sc.name}' (the FSx for Lustre CSI driver) creates a file system only for a "
                    "PersistentVolumeClaim of its class, and no claim of this program names it: nothing planned or "
                    "priced (a claim made elsewhere, a Helm chart's, is not read)",
                    sc.urn,
                    fix=outside(
                        "record",
                        "declare the PersistentVolumeClaim in this program with its size (spec.resources.requests."
                        "storage), or drop the StorageClass",
                    ),
                )
            )
    return out, gaps


def _class_of(graph: Graph, claim: Resource, by_name: dict[str, Resource], defaults: list[Resource]) -> Resource | None:
    """The driver's StorageClass of this program a claim names (`spec.storageClassName`; an output followed through
    the engine's dependencies; none named: the program's default class, as Kubernetes assigns it)."""
    wanted = claim.get("spec", "storageClassName")
    if wanted is UNKNOWN or (isinstance(wanted, str) and wanted not in by_name and graph.referenced(wanted)):
        for urn in claim.property_dependencies.get("spec", []):
            r = graph.by_urn.get(urn)
            if r is not None and is_driver_class(r):
                return r
        return None
    if isinstance(wanted, str):
        return by_name.get(wanted)  # "" is no class at all: a claim of a pre-created volume
    if wanted is None and "storageClassName" not in (claim.get("spec") or {}) and len(defaults) == 1:
        return defaults[0]
    return None


def _bound(claim: Resource, volumes: list[Resource]) -> Resource | None:
    """The driver's PersistentVolume a claim names (`spec.volumeName`)."""
    name = claim.get("spec", "volumeName")
    return next((v for v in volumes if isinstance(name, str) and name and _name(v) == name), None)


def _static_of_class(sc: Resource, claim: Resource, free: dict[str, Resource]) -> Resource | None:
    """A free volume of the claim's class that holds its request: Kubernetes binds the claim to it, not a new one."""
    try:
        want = quantity_bytes(claim.get("spec", "resources", "requests", "storage"))
    except Bad:
        return None
    for pv in free.values():
        if pv.get("spec", "storageClassName") != _name(sc):
            continue
        try:
            if quantity_bytes(pv.get("spec", "capacity", "storage")) >= want:
                return pv
        except Bad:
            continue
    return None


def _size_refused(claim: Resource, message: str, note: str, why: str) -> Violation:
    """An error on the claim whose size the driver cannot use: its file system is left out of the estimate."""
    return Violation(
        f"PersistentVolumeClaim '{claim.name}': {message}",
        claim.urn,
        fix=Fix(edits=(change(claim, "spec.resources.requests.storage", note=note),)),
        left_out=f"FSx for Lustre file system of PersistentVolumeClaim '{claim.name}' ({why})",
        severity="error",
    )


def _static(graph: Graph, pv: Resource) -> Violation:
    """A volume of a file system that exists (static provisioning): said, never planned or priced as new."""
    handle = pv.get("spec", "csi", "volumeHandle")
    ref = graph.referenced(handle)
    if ref is not None and ref.type == LUSTRE:
        what = f"the file system of {ref.type.split(':')[-1]} '{ref.name}' of this program (read from it)"
    elif isinstance(handle, str) and known(handle):
        what = (
            f"the existing FSx for Lustre file system {excerpt(handle)} (its volumeHandle), not created by this program"
        )
    else:
        what = "an FSx for Lustre file system named by a volumeHandle not known before deploy"
    return Violation(
        f"PersistentVolume '{pv.name}' mounts {what}: it is not planned or priced as a new file system here",
        pv.urn,
        fix=outside(
            "record",
            "check and price the existing file system where it is declared (its own stack), or provision it with a "
            "StorageClass of the driver and a PersistentVolumeClaim to have it planned here",
        ),
        severity="info",
    )


def _provisioned(graph: Graph, sc: Resource, claim: Resource, gaps: list[Violation]) -> Provisioned | None:
    """The file system the driver creates for `claim` of class `sc`, as the FSx resource's properties; None (with
    the reason in `gaps`) when the driver would refuse it or a value it needs is not known before deploy."""
    raw = sc.get("parameters")
    params: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if raw is UNKNOWN or (raw is not None and not isinstance(raw, dict)):
        gaps.append(_not_planned(sc, claim, "its parameters are not known before deploy", "parameters"))
        return None
    problems: list[tuple[str, str]] = []  # (parameter, why)
    ignored: list[str] = []
    values: dict[str, Any] = {}
    for key in sorted(params, key=str):
        value = params[key]
        name = str(key)
        if name.startswith(_PROVISIONER_PREFIX):
            continue
        if name not in PARAMETERS:
            ignored.append(name)
            continue
        if value is UNKNOWN:
            values[name] = UNKNOWN
            continue
        if not isinstance(value, str):
            shown = int(value) if isinstance(value, float) and value.is_integer() else value  # the engine's 250.0
            problems.append((name, f"{name} is {excerpt(shown)}, not a string (StorageClass parameters are strings)"))
            continue
        try:
            values[name] = (
                parse_int(name, value) if name in NUMBERS else parse_bool(name, value) if name in BOOLEANS else value
            )
        except Bad as bad:
            problems.append((name, str(bad)))
    for name in ignored:
        gaps.append(
            Violation(
                f"StorageClass '{sc.name}': parameter {excerpt(name)} is not one the FSx for Lustre CSI driver reads "
                "(it is ignored)"
                + (
                    ": the size is the PersistentVolumeClaim's spec.resources.requests.storage"
                    if "capacity" in name.lower()
                    else ""
                ),
                sc.urn,
                fix=Fix(edits=(change(sc, f"parameters.{name}", op="remove"),)),
            )
        )
    dtype = values.get("deploymentType", "SCRATCH_1")  # the README's default (and the FSx API's)
    if isinstance(dtype, str) and dtype not in LUSTRE_DEPLOYMENTS:
        problems.append(
            (
                "deploymentType",
                f"deploymentType {excerpt(dtype)} is not one FSx for Lustre takes: {', '.join(LUSTRE_DEPLOYMENTS)}",
            )
        )
    storage_type = values.get("storageType", "SSD")
    if storage_type == "INTELLIGENT_TIERING":
        problems.append(
            (
                "storageType",
                "storageType INTELLIGENT_TIERING needs a throughput capacity and no storage capacity, which the driver "
                "cannot send (it has no such parameter and always sends the claim's size): FSx refuses the volume",
            )
        )
    elif isinstance(storage_type, str) and storage_type not in STORAGE_TYPES:
        problems.append(
            ("storageType", f"storageType {excerpt(storage_type)} is not one the driver documents: SSD or HDD")
        )
    per_unit = values.get("perUnitStorageThroughput")
    if isinstance(per_unit, int) and per_unit <= 0:
        per_unit = None  # the driver sends none for 0 (CLOUD_DOC); a negative figure wraps nowhere useful
        if values["perUnitStorageThroughput"] < 0:
            problems.append(("perUnitStorageThroughput", "perUnitStorageThroughput is negative"))
    iops = values.get("metadataIops")
    if iops is not None and "metadataConfigurationMode" not in values:
        gaps.append(
            Violation(
                f"StorageClass '{sc.name}': metadataIops is ignored without metadataConfigurationMode (the driver "
                "sends a metadata configuration only with a mode)",
                sc.urn,
                fix=Fix(edits=(change(sc, "parameters.metadataConfigurationMode", "USER_PROVISIONED"),)),
            )
        )
    for name, why in problems:
        gaps.append(
            Violation(
                f"StorageClass '{sc.name}': {why}; the file system of PersistentVolumeClaim '{claim.name}' is not "
                "planned or priced",
                sc.urn,
                fix=Fix(
                    edits=(change(sc, f"parameters.{name}", note=_EXPECTED.get(name, "a value the driver takes")),)
                ),
                left_out=f"FSx for Lustre file system of PersistentVolumeClaim '{claim.name}' (not read)",
                severity="error",
            )
        )
    if problems:
        return None
    sizing = [k for k in ("deploymentType", "storageType", "perUnitStorageThroughput") if values.get(k) is UNKNOWN]
    if sizing:
        gaps.append(_not_planned(sc, claim, f"{', '.join(sizing)} not known before deploy", f"parameters.{sizing[0]}"))
        return None
    request = claim.get("spec", "resources", "requests", "storage")
    if request is UNKNOWN:
        gaps.append(
            _not_planned(claim, claim, "its size is not known before deploy", "spec.resources.requests.storage")
        )
        return None
    try:
        if request is None:
            raise Bad("no storage request (spec.resources.requests.storage), which Kubernetes requires")
        size = quantity_bytes(request)
        if size == 0:
            raise Bad(f"a storage request of {excerpt(request)}")
    except Bad as bad:
        message = f"{bad}: its FSx for Lustre file system is not planned or priced"
        gaps.append(_size_refused(claim, message, "a size such as 1200Gi", "size not read"))
        return None
    gib = round_up_gib(size, str(dtype), str(storage_type), per_unit or 0)
    if gib > INT32_MAX:
        message = (
            f"a storage request of {excerpt(request)} is above the {INT32_MAX:,} GiB the driver can ask for (it "
            "refuses the volume): not planned or priced"
        )
        gaps.append(_size_refused(claim, message, "a size FSx for Lustre offers", "size refused"))
        return None
    props: dict[str, Any] = {
        "deploymentType": dtype,
        "storageCapacity": gib,
        "subnetIds": [values["subnetId"]] if "subnetId" in values else [],
        "securityGroupIds": values["securityGroupIds"].split(",")
        if isinstance(values.get("securityGroupIds"), str)
        else [values["securityGroupIds"]]
        if "securityGroupIds" in values
        else [],
        "storageType": storage_type,
    }
    if per_unit:
        props["perUnitStorageThroughput"] = per_unit
    if "s3ImportPath" in values and values["s3ImportPath"] != "":
        props["importPath"] = values["s3ImportPath"]
    if values.get("efaEnabled") is True:
        props["efaEnabled"] = True
    mode = values.get("metadataConfigurationMode")
    if mode is not None and mode != "":
        props["metadataConfiguration"] = {"mode": mode, **({"iops": iops} if iops is not None else {})}
    deps = sc.property_dependencies.get("parameters", [])
    fs = Resource(
        LUSTRE,
        sc.urn,
        claim.name,
        props,
        property_dependencies={"subnetIds": deps, "securityGroupIds": deps},
    )
    requested = excerpt(request) if size != gib * GIB else ""
    return Provisioned(fs, sc, claim, requested)


_EXPECTED = {
    "deploymentType": "SCRATCH_1, SCRATCH_2, PERSISTENT_1 or PERSISTENT_2",
    "storageType": "SSD or HDD",
    "perUnitStorageThroughput": 'a figure in decimal digits, as a string ("200")',
    "metadataIops": 'a figure in decimal digits, as a string ("6000")',
    "automaticBackupRetentionDays": 'a number of days in decimal digits, as a string ("7")',
    "efaEnabled": '"true" or "false"',
    "copyTagsToBackups": '"true" or "false"',
}


def _not_planned(r: Resource, claim: Resource, why: str, prop: str) -> Violation:
    return Violation(
        f"cannot read the FSx for Lustre file system of PersistentVolumeClaim '{claim.name}' ({why}): not planned or "
        "priced",
        r.urn,
        fix=Fix(edits=(change(r, prop, note="literals, not outputs"),)),
        left_out=f"FSx for Lustre file system of PersistentVolumeClaim '{claim.name}' (not known before deploy)",
    )
