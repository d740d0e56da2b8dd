"""FSx for Lustre deployment types as `fsx_lustre.yaml` describes them (throughput tiers, storage
capacities, S3 links, EFA), and the throughput a declared file system has: the rules check a file
system against them, and the run-time model writes checkpoints at that throughput.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from planner.core.catalogue import shipped_data as _data
from planner.core.model.cluster import Lustre

IMPORT_PATH = "import_path"
DATA_REPOSITORY_ASSOCIATION = "data_repository_association"


@dataclass(frozen=True)
class StorageRule:
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


@dataclass(frozen=True)
class DeploymentSpec:
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
    """MB/s per TiB in force: the fixed SCRATCH figure, else the declared one (if valid)."""
    dt = deployment_types()[fs.deployment_type]
    if dt.fixed_throughput is not None:
        return dt.fixed_throughput
    return fs.per_unit_storage_throughput if fs.per_unit_storage_throughput in dt.throughputs else None


def aggregate_throughput_mbps(fs: Lustre) -> float | None:
    """The file system's throughput in MB/s: capacity in TiB x per-unit throughput (FSx docs)."""
    unit = per_unit_throughput(fs)
    return None if unit is None else fs.storage_capacity_gib / 1024 * unit
