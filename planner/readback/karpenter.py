"""Karpenter NodePools read as Karpenter reads them, against the instance types AWS lists (planner's catalogue).

A NodePool names no instance type: its `spec.template.spec.requirements` select types by
well-known labels (`node.kubernetes.io/instance-type`, `karpenter.k8s.aws/instance-family`,
`-category`, `-generation`, `-size`, `-cpu`, `-memory`, `-gpu-count`, `-gpu-name`,
`-gpu-manufacturer`, `-accelerator-count`, `-accelerator-name`, `-accelerator-manufacturer`, and
`kubernetes.io/arch` from DescribeInstanceTypes' architectures, read from the generated table)
with `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt` and `Lt`; `karpenter.sh/capacity-type`
and `topology.kubernetes.io/zone` pick how and where. Each label's value for a catalogue
type is derived from the catalogue's own figures, so the types a pool may launch are the
catalogue types whose labels satisfy every requirement. `spec.limits` (cpu, memory,
`nvidia.com/gpu`, `aws.amazon.com/neuron`, `aws.amazon.com/neuroncore`) bound the sum of
the pool's node capacities: the most instances of each type it may run is the floor of
each limit over what one instance has, its memory less the VM overhead Karpenter subtracts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from msgspec import Struct, field

from planner.core.catalogue.instance_types import InstanceType, accelerator_kinds, architectures

SCHEDULING_DOC = "https://karpenter.sh/docs/concepts/scheduling/"
# the AWS provider's `computeRequirements`: which DescribeInstanceTypes section gives which instance label
LABELS_DOC = (
    "https://github.com/aws/karpenter-provider-aws/blob/538ac5f53cfe98a7b01048eea388182bfd93c358/"
    "pkg/providers/instancetype/types.go"
)
NODEPOOLS_DOC = "https://karpenter.sh/docs/concepts/nodepools/"
# Karpenter settings, VM_MEMORY_OVERHEAD_PERCENT: "The VM memory overhead as a percent that will be subtracted
# from the total memory for all instance types. (default = 0.075, which equals to 7.5%)". An installation may
# set another value; planner reads Karpenter's default (the controller's settings are not a program resource).
# Recent AWS provider releases also record the capacity a registered node of a type reports and use it for
# that type afterwards (their instance type tests); before any node exists, as here, the estimate is this one.
SETTINGS_DOC = "https://karpenter.sh/docs/reference/settings/"
VM_MEMORY_OVERHEAD_PERCENT = 0.075

_AWS = "karpenter.k8s.aws/"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
FAMILY = _AWS + "instance-family"
CATEGORY = _AWS + "instance-category"
CAPACITY_TYPE = "karpenter.sh/capacity-type"
ZONE = "topology.kubernetes.io/zone"
ARCH = "kubernetes.io/arch"  # amd64 or arm64, from DescribeInstanceTypes' SupportedArchitectures
_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
# labels that choose the type by name: when a pool names values here, only those can launch
NAMING = (INSTANCE_TYPE, FAMILY, CATEGORY)
_PURCHASE = {"on-demand": "on-demand", "spot": "spot", "reserved": "reserved"}
_FAMILY = re.compile(r"^([a-z]+)(\d+)")
# families with GPUs, Trainium or Inferentia (their category letters)
ACCELERATED_CATEGORIES = ("p", "g", "trn", "inf", "dl", "gr")


def labels(t: InstanceType) -> dict[str, str]:
    """The well-known Karpenter labels of a catalogue type, from its name and catalogue figures."""
    family, size = t.name.split(".", 1)
    m = _FAMILY.match(family)
    out = {
        INSTANCE_TYPE: t.name,
        FAMILY: family,
        _AWS + "instance-size": size,
        _AWS + "instance-cpu": str(t.vcpus),
        _AWS + "instance-memory": str(round(t.memory_gib * 1024)),
    }
    if m:
        out[CATEGORY], out[_AWS + "instance-generation"] = m.group(1), m.group(2)
    arch = [_ARCH[a] for a in architectures(t.name) if a in _ARCH]
    if len(arch) == 1:  # a type AWS's data gives no (or two) architectures for has no label: `In` never matches it
        out[ARCH] = arch[0]
    accel = t.accelerator
    # as the AWS provider labels them (LABELS_DOC): GPU labels from DescribeInstanceTypes' GpuInfo, accelerator labels
    # from NeuronInfo, or from InferenceAcceleratorInfo when there is no NeuronInfo; an FPGA (f2) or a media
    # accelerator (vt1) gets neither. A curated type the table does not list: NVIDIA is a GPU, AWS a Neuron device.
    kinds = accelerator_kinds(t.name) or (
        () if accel is None else ("gpu",) if accel.vendor.upper() == "NVIDIA" else ("neuron",)
    )
    if accel is None:  # a CPU type: no accelerator labels
        pass
    elif "gpu" in kinds:
        out[_AWS + "instance-gpu-count"] = str(t.accelerator_count)
        out[_AWS + "instance-gpu-name"] = _kabob(accel.ec2_name or accel.name.split("-")[0])
        out[_AWS + "instance-gpu-manufacturer"] = _kabob(accel.vendor)
    elif "neuron" in kinds or "inference" in kinds:
        out[_AWS + "instance-accelerator-count"] = str(t.accelerator_count)
        out[_AWS + "instance-accelerator-name"] = _kabob(accel.ec2_name or accel.name)
        out[_AWS + "instance-accelerator-manufacturer"] = "aws" if "neuron" in kinds else _kabob(accel.vendor)
    return out


def _kabob(text: str) -> str:
    """A label value as the AWS provider writes one (`lowerKabobCase`: lower case, spaces as dashes)."""
    return text.lower().replace(" ", "-")


def memory_bytes(t: InstanceType) -> float:
    """An instance's memory as Karpenter models it: the type's MiB less VM_MEMORY_OVERHEAD_PERCENT of them
    (SETTINGS_DOC), the overhead rounded up to a whole MiB as the AWS provider subtracts it
    (aws/karpenter-provider-aws, pkg/providers/instancetype/types.go, `memory`)."""
    mib = t.memory_gib * 1024
    return float(mib - math.ceil(mib * VM_MEMORY_OVERHEAD_PERCENT)) * 2**20


def capacity(t: InstanceType) -> dict[str, float]:
    """What one instance adds to the pool's resources, as `spec.limits` counts them."""
    vendor = t.accelerator.vendor.upper() if t.accelerator is not None else ""
    nvidia, neuron = vendor == "NVIDIA", vendor == "AWS"
    return {
        "cpu": float(t.vcpus),
        "memory": memory_bytes(t),
        "nvidia.com/gpu": float(t.accelerator_count if nvidia else 0),
        "aws.amazon.com/neuron": float(t.accelerator_count if neuron else 0),
        "aws.amazon.com/neurondevice": float(t.accelerator_count if neuron else 0),
        "aws.amazon.com/neuroncore": float(t.neuron_cores or 0),
    }


_SUFFIX = {
    "m": 1e-3,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}
_QUANTITY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(Ki|Mi|Gi|Ti|Pi|Ei|m|k|K|M|G|T|P|E)?\s*$")


def quantity(value: Any) -> float | None:
    """A Kubernetes resource quantity (`1000`, `1000Gi`, `500m`) as a number; None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    m = _QUANTITY.match(value) if isinstance(value, str) else None
    if not m:
        return None
    return float(m.group(1)) * (_SUFFIX[m.group(2)] if m.group(2) else 1.0)


class Requirement(Struct, frozen=True):
    key: str
    operator: str
    values: tuple[str, ...]

    def matches(self, value: str | None) -> bool:
        """Kubernetes node-selector semantics: NotIn and DoesNotExist match a type without the label."""
        op = self.operator
        if op == "In":
            return value is not None and value in self.values
        if op == "NotIn":
            return value is None or value not in self.values
        if op == "Exists":
            return value is not None
        if op == "DoesNotExist":
            return value is None
        if op in ("Gt", "Lt") and value is not None and self.values:
            try:
                have, bound = int(value), int(self.values[0])
            except ValueError:
                return False
            return have > bound if op == "Gt" else have < bound
        return False


class Pool(Struct):
    """What a NodePool may launch: types AWS lists, named types it does not list, how, where, how many."""

    types: list[InstanceType]
    outside: list[str]  # accelerated types, families or categories it names that the catalogue lacks
    accelerated: bool  # False: it can only launch instances without accelerators (planned too, since issue 35)
    purchases: tuple[str, ...]
    zones: tuple[str, ...]
    maxima: dict[str, int | None]  # per catalogue type: most instances under the limits (None: no limit binds)
    limits: dict[str, float]
    unread: list[str] = field(default_factory=list)  # requirement keys and limits not evaluated


def requirements(spec: Any, dig: Callable[..., Any], as_list: Callable[[Any], list[Any]]) -> list[Requirement]:
    reqs = []
    for q in as_list(dig(spec, "template", "spec", "requirements")):
        if isinstance(q, dict) and isinstance(q.get("key"), str) and isinstance(q.get("operator"), str):
            values = tuple(
                str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in as_list(q.get("values"))
            )
            reqs.append(Requirement(q["key"], q["operator"], values))
    return reqs


def candidates(
    spec: Any, cat: Any, dig: Callable[..., Any], as_list: Callable[[Any], list[Any]]
) -> dict[str, InstanceType]:
    """The types a pool is matched against: the curated training types, and the types AWS lists that the pool
    names by type, family or category (`In`: a g6e pool, an m7i system pool), read from the generated table
    only when it names a family, a category or a type the curated catalogue lacks. A pool that names none is
    matched against every type AWS lists: its requirements are constraints ("The NodePool sets constraints on
    the nodes that can be created by Karpenter", NODEPOOLS_DOC), so what they leave is every type that meets
    them; a pool of `karpenter.k8s.aws/instance-gpu-name In [a10g]` is its g5 types (`general` says when the
    set is not all accelerated)."""
    out: dict[str, InstanceType] = dict(cat.instance_types)
    named = [q for q in requirements(spec, dig, as_list) if q.key in NAMING and q.operator == "In"]
    if not named:
        return {**out, **{n: cat.spec(n) for n in cat.all_names() if n not in out}}
    if all(q.key == INSTANCE_TYPE and all(v in out for v in q.values) for q in named):
        return out  # names curated types only: the table is not read
    for name in cat.all_names():
        family = name.split(".", 1)[0]
        m = _FAMILY.match(family)
        category = m.group(1) if m else family
        for q in named:
            value = {INSTANCE_TYPE: name, FAMILY: family, CATEGORY: category}[q.key]
            if value in q.values and name not in out:
                out[name] = cat.spec(name)
    return out


def general(spec: Any, pool: Pool, dig: Callable[..., Any], as_list: Callable[[Any], list[Any]]) -> bool:
    """True for a pool that names no type, family or category and whose requirements leave types without an
    accelerator: a general-purpose pool, whose instances follow what its pods request (a CPU pod gets a CPU
    type, a GPU pod a GPU type), so no set of its types is the cluster's training capacity."""
    named = [q for q in requirements(spec, dig, as_list) if q.key in NAMING and q.operator == "In"]
    return not named and any(t.accelerator is None for t in pool.types)


def read(
    spec: Any, catalogue: dict[str, InstanceType], dig: Callable[..., Any], as_list: Callable[[Any], list[Any]]
) -> Pool:
    """The pool `spec` (a NodePool's `spec`) describes, resolved against `catalogue`."""
    reqs = requirements(spec, dig, as_list)
    known_keys = set().union(*(labels(t) for t in catalogue.values())) | {CAPACITY_TYPE, ZONE}
    unread = sorted({q.key for q in reqs if q.key not in known_keys})
    typed = [q for q in reqs if q.key in known_keys and q.key not in (CAPACITY_TYPE, ZONE)]
    types = [t for t in catalogue.values() if all(q.matches(labels(t).get(q.key)) for q in typed)]
    named = [q for q in typed if q.key in NAMING and q.operator == "In"]
    outside = _outside(named, catalogue)
    accelerated = any(t.accelerator is not None for t in types) or bool(outside)
    purchases: tuple[str, ...] = ("on-demand",)  # Karpenter's default when the pool does not say
    for q in reqs:
        if q.key == CAPACITY_TYPE:
            all_types = tuple(_PURCHASE)
            purchases = tuple(p for p in all_types if q.matches(p))
    zones = tuple(v for q in reqs if q.key == ZONE and q.operator == "In" for v in q.values)
    limits: dict[str, float] = {}
    raw = dig(spec, "limits")
    for key, value in raw.items() if isinstance(raw, dict) else ():
        amount = quantity(value)
        if amount is None or key not in capacity(next(iter(catalogue.values()))):
            unread.append(f"limits.{key}")
        else:
            limits[key] = amount
    maxima = {t.name: most(capacity(t), limits) for t in types}
    return Pool(types, outside, accelerated, purchases, zones, maxima, limits, unread)


def most(per_instance: dict[str, float], limits: dict[str, float]) -> int | None:
    """Instances of one type that fit under every limit on a resource it has; None when none binds it."""
    counts = [int(limits[k] // v) for k, v in per_instance.items() if k in limits and v > 0]
    return min(counts) if counts else None


def _outside(named: list[Requirement], catalogue: dict[str, InstanceType]) -> list[str]:
    """Accelerated types, families and categories the pool names (In) that the catalogue has none of."""
    out: list[str] = []
    have = {key: {labels(t).get(key) for t in catalogue.values()} for key in NAMING}
    for q in named:
        for v in q.values:
            family = v.split(".", 1)[0]
            m = _FAMILY.match(family)
            category = m.group(1) if m else family
            if category in ACCELERATED_CATEGORIES and v not in have[q.key] and v not in out:
                out.append(v)
    return out
