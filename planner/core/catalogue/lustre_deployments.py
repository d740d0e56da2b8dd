"""FSx for Lustre deployment types as `fsx_lustre.yaml` describes them (throughput tiers, storage
capacities, S3 links, EFA), and the throughput a declared file system has: the rules check a file
system against them, and the run-time model writes checkpoints at that throughput.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from msgspec import Struct

from planner.core.catalogue import shipped_data as _data
from planner.core.model.cluster import Lustre

IMPORT_PATH = "import_path"
DATA_REPOSITORY_ASSOCIATION = "data_repository_association"


class StorageRule(Struct, frozen=True):
    """The storage capacities (GiB) an FSx for Lustre deployment type and tier accepts."""

    listed: tuple[int, ...]
    multiple_of: int

    def accepts(self, gib: int) -> bool:
        return gib in self.listed or gib % self.multiple_of == 0

    def describe(self) -> str:
        head = ", ".join(f"{x:,}" for x in self.listed)
        return (
            f"{head}, or a multiple of {self.multiple_of:,}" if head else f"a multiple of {self.multiple_of:,}"
        ) + " GiB"

    def nearest(self, gib: int) -> int:
        """The smallest valid capacity at or above `gib`."""
        bigger = [x for x in self.listed if x >= gib]
        step = -(-gib // self.multiple_of) * self.multiple_of
        return min(bigger + [step])

    def below(self, gib: int) -> int | None:
        """The largest valid capacity below `gib`, or None when there is none."""
        smaller = [x for x in self.listed if x < gib]
        step = (gib - 1) // self.multiple_of * self.multiple_of
        return max(smaller + ([step] if step > 0 else []), default=None)


class DeploymentSpec(Struct, frozen=True):
    """An FSx for Lustre deployment type as fsx_lustre.yaml describes it (tiers, capacities, S3 links)."""

    name: str
    fixed_throughput: int | None
    throughputs: Mapping[int, tuple[str, StorageRule]]  # per-unit MB/s/TiB -> (media, storage)
    storage: StorageRule | None  # for types with a fixed throughput
    replicated: bool
    s3_links: tuple[str, ...]  # how AWS lets a file system of this type link to S3 (fsx_lustre.yaml)
    efa: bool

    @property
    def s3_link(self) -> str | None:
        """How planner links `s3_import_path`: ImportPath where AWS accepts it, else a data
        repository association; None when AWS accepts neither for this type."""
        for way in (IMPORT_PATH, DATA_REPOSITORY_ASSOCIATION):
            if way in self.s3_links:
                return way
        return None

    def storage_for(self, throughput: int | None) -> StorageRule | None:
        if self.fixed_throughput is not None:
            return self.storage
        entry = self.throughputs.get(throughput) if throughput is not None else None
        return entry[1] if entry else None


def _storage(raw: Mapping[str, Any]) -> StorageRule:
    return StorageRule(tuple(raw.get("listed") or ()), int(raw["multiple_of"]))


@lru_cache(maxsize=1)
def deployment_types() -> Mapping[str, DeploymentSpec]:
    raw = _data.raw("fsx_lustre.yaml")[0]["deployment_types"]
    out = {}
    for name, v in raw.items():
        out[name] = DeploymentSpec(
            name=name,
            fixed_throughput=v.get("fixed_throughput"),
            throughputs={int(k): (t["media"], _storage(t["storage"])) for k, t in (v.get("throughputs") or {}).items()},
            storage=_storage(v["storage"]) if "storage" in v else None,
            replicated=bool(v["replicated"]),
            s3_links=tuple(v.get("s3_links") or ()),
            efa=bool(v["efa"]),
        )
    return out


def per_unit_throughput(fs: Lustre) -> int | None:
    """MB/s per TiB in force: the fixed SCRATCH figure, else the declared one (if valid); None for
    Intelligent-Tiering, whose throughput is the file system's (`throughput_capacity_mbps`)."""
    if fs.intelligent_tiering:
        return None
    dt = deployment_types()[fs.deployment_type]
    if dt.fixed_throughput is not None:
        return dt.fixed_throughput
    return fs.per_unit_storage_throughput if fs.per_unit_storage_throughput in dt.throughputs else None


def aggregate_throughput_mbps(fs: Lustre) -> float | None:
    """The file system's throughput in MB/s: capacity in TiB x per-unit throughput (FSx docs); for
    Intelligent-Tiering, its throughput capacity (if valid)."""
    if fs.intelligent_tiering:
        mbps = fs.throughput_capacity_mbps
        return float(mbps) if mbps is not None and intelligent_tiering().accepts(mbps) else None
    unit = per_unit_throughput(fs)
    return None if unit is None or fs.storage_capacity_gib is None else fs.storage_capacity_gib / 1024 * unit


class IntelligentTiering(Struct, frozen=True):
    """What an Intelligent-Tiering file system accepts (`fsx_lustre.yaml`'s `intelligent_tiering`): its
    deployment types, throughput capacities (MBps), the throughputs EFA takes, and the SSD read cache's
    range per 1,000 MBps of throughput capacity."""

    deployment_types: tuple[str, ...]
    throughput: StorageRule  # listed values and multiples, MBps (the same arithmetic as capacities)
    maximum_mbps: int
    efa_multiple_of: int
    cache_gib_per_1000_mbps: tuple[int, int]

    def accepts(self, mbps: int) -> bool:
        return mbps <= self.maximum_mbps and self.throughput.accepts(mbps)

    def describe(self) -> str:
        listed = ", ".join(f"{x:,}" for x in self.throughput.listed)
        return f"{listed} or a multiple of {self.throughput.multiple_of:,} MBps up to {self.maximum_mbps:,}"

    def nearest(self, mbps: int) -> int:
        """The smallest valid throughput capacity at or above `mbps` (the maximum when above it)."""
        return min(self.throughput.nearest(mbps), self.maximum_mbps)

    def cache_range(self, mbps: int) -> tuple[int, int]:
        """The SSD read cache sizes (GiB) a throughput capacity allows: per 1,000 MBps provisioned."""
        low, high = self.cache_gib_per_1000_mbps
        return math.ceil(low * mbps / 1000), high * mbps // 1000


@lru_cache(maxsize=1)
def intelligent_tiering() -> IntelligentTiering:
    raw = _data.raw("fsx_lustre.yaml")[0]["intelligent_tiering"]
    t = raw["throughput_capacity_mbps"]
    cache = raw["read_cache_gib_per_1000_mbps"]
    return IntelligentTiering(
        deployment_types=tuple(raw["deployment_types"]),
        throughput=_storage(t),
        maximum_mbps=int(t["maximum"]),
        efa_multiple_of=int(raw["efa_multiple_of"]),
        cache_gib_per_1000_mbps=(int(cache["minimum"]), int(cache["maximum"])),
    )


class MetadataIops(Struct, frozen=True):
    """The Metadata IOPS a USER_PROVISIONED metadata configuration takes (`fsx_lustre.yaml`'s `metadata_iops`):
    listed values and multiples up to a maximum, the same for SSD and Intelligent-Tiering file systems."""

    steps: StorageRule
    maximum: int

    def accepts(self, iops: int) -> bool:
        return 0 < iops <= self.maximum and self.steps.accepts(iops)

    def describe(self) -> str:
        listed = ", ".join(f"{x:,}" for x in self.steps.listed)
        return f"{listed} or a multiple of {self.steps.multiple_of:,} up to {self.maximum:,}"

    def nearest(self, iops: int) -> int:
        """The smallest valid figure at or above `iops` (the maximum when above it)."""
        return min(self.steps.nearest(max(iops, 1)), self.maximum)


@lru_cache(maxsize=1)
def metadata_iops() -> MetadataIops:
    raw = _data.raw("fsx_lustre.yaml")[0]["metadata_iops"]
    return MetadataIops(_storage(raw), int(raw["maximum"]))


class RegionAvailability(Struct, frozen=True):
    """Where AWS's "Deployment type availability" table offers each deployment type (`fsx_lustre.yaml`'s
    `region_availability`, with its dated copy): the Regions of each type's column, and the rows marked * that
    offer PERSISTENT_2 only at some throughputs, SSD, without EFA. Partitions outside `partitions` (the page's)
    are not judged."""

    partitions: tuple[str, ...]
    regions: Mapping[str, frozenset[str]]  # deployment type -> the Regions its column marks
    limited: frozenset[str]  # PERSISTENT_2 rows marked *
    limited_throughputs: tuple[int, ...]
    copy_of: str  # the day of the page the copy holds (its guide's latest documentation update)

    def judged(self, deployment_type: str) -> bool:
        return deployment_type in self.regions

    def offers(self, deployment_type: str, region: str) -> bool:
        if deployment_type == "PERSISTENT_2" and region in self.limited:
            return True
        return region in self.regions.get(deployment_type, frozenset())


@lru_cache(maxsize=1)
def region_availability() -> RegionAvailability:
    raw = _data.raw("fsx_lustre.yaml")[0]["region_availability"]
    limited = raw["persistent_2_without_efa"]
    return RegionAvailability(
        partitions=tuple(raw["partitions"]),
        regions={k: frozenset(v) for k, v in raw["deployment_types"].items()},
        limited=frozenset(limited["regions"]),
        limited_throughputs=tuple(int(t) for t in limited["throughputs"]),
        copy_of=str(raw["copy_of"]),
    )
