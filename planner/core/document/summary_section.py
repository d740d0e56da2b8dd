"""The summary section of a stack: what the declared cluster adds up to, as every format shows it.

Filled from `planner.core.planning.summary.summarize` (arithmetic on catalogue entries, rounded there), so a
renderer prints figures it does not compute; the codec (`planner.core.document.codec`) gives the JSON that function has
always produced, key for key (docs/output.md).
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Struct

from planner.core.document.codec import key
from planner.core.model.cluster import DeploymentType, Purchase, ReadCacheSizingMode


class PeakPflops(Struct, frozen=True):
    """Peak PFLOPS of all accelerators together per precision; None when an instance type has no published figure."""

    bf16_dense: float | None
    fp8_dense: float | None
    fp8_sparse: float | None


class GroupSummary(Struct, frozen=True):
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


class LustreSummary(Struct, frozen=True):
    """The FSx for Lustre file system as declared (its AZ is None when a program does not name one)."""

    deployment_type: DeploymentType
    storage_capacity_gib: int | None  # None: Intelligent-Tiering, elastic storage
    per_unit_storage_throughput: int | None
    availability_zone: str | None
    # an Intelligent-Tiering file system's storage class, throughput capacity (MBps) and SSD read cache (how it is
    # sized, and its GiB when the stack gives them); left out otherwise
    storage_type: Annotated[str | None, key(omit="none")] = None
    throughput_capacity_mbps: Annotated[int | None, key(omit="none")] = None
    read_cache_sizing_mode: Annotated[ReadCacheSizingMode | None, key(omit="none")] = None
    read_cache_size_gib: Annotated[int | None, key(omit="none")] = None


class Summary(Struct, frozen=True):
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
