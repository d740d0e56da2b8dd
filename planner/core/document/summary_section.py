"""The summary section of a stack: what the declared cluster adds up to, as every format shows it.

Filled from `planner.core.planning.summary.summarize` (arithmetic on catalogue entries, rounded there), so a
renderer prints figures it does not compute; the codec (`planner.core.document.codec`) gives the JSON that function has
always produced, key for key (docs/output.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.core.document.codec import key
from planner.core.model.cluster import DeploymentType, Purchase, ReadCacheSizingMode


@dataclass(frozen=True)
class PeakPflops:
    """Peak PFLOPS of all accelerators together per precision; None when an instance type has no published figure."""

    bf16_dense: float | None
    fp8_dense: float | None
    fp8_sparse: float | None


@dataclass(frozen=True)
class GroupSummary:
    """A node group: its type and purchase, instances, UltraServers booked (whole) and accelerators."""

    name: str
    instance_type: str
    purchase: Purchase
    instances: int
    ultraservers: int  # 0 for a type not sold as UltraServers
    ultraserver_type: str | None
    accelerators: int
    accelerator: str
    availability_zone: str
    efa: bool


@dataclass(frozen=True)
class LustreSummary:
    """The FSx for Lustre file system as declared (its AZ is None when a program does not name one)."""

    deployment_type: DeploymentType
    storage_capacity_gib: int | None  # None: Intelligent-Tiering, elastic storage
    per_unit_storage_throughput: int | None
    availability_zone: str | None
    # an Intelligent-Tiering file system's storage class, throughput capacity (MBps) and SSD read cache (how it is
    # sized, and its GiB when the stack gives them); left out otherwise
    storage_type: str | None = field(default=None, metadata=key(omit="none"))
    throughput_capacity_mbps: int | None = field(default=None, metadata=key(omit="none"))
    read_cache_sizing_mode: ReadCacheSizingMode | None = field(default=None, metadata=key(omit="none"))
    read_cache_size_gib: int | None = field(default=None, metadata=key(omit="none"))


@dataclass(frozen=True)
class Summary:
    """The cluster's totals (instances, UltraServers, accelerators, memory, EFA bandwidth, peak
    compute), its placement, file system and node groups."""

    instances: int
    ultraservers: int
    accelerators: int
    neuron_cores: int
    vcpus: int
    accelerator_memory_gib: float
    efa_bandwidth_gbps: float
    peak_pflops: PeakPflops
    placement_group: str
    lustre: LustreSummary | None = None
    node_groups: tuple[GroupSummary, ...] = ()
