"""The summary section of a stack: what the declared cluster adds up to, as every format shows it.

Filled from `planner.core.planning.summary.summarize` (arithmetic on catalogue entries, rounded there), so a
renderer prints figures it does not compute; `to_json` gives the JSON that function has
always produced, key for key (docs/output.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.core.model.cluster import DeploymentType, Purchase


@dataclass(frozen=True)
class PeakPflops:
    """Peak PFLOPS of all accelerators together per precision; None when an instance type has no published figure."""

    bf16_dense: float | None
    fp8_dense: float | None
    fp8_sparse: float | None

    def to_json(self) -> dict[str, Any]:
        return {"bf16_dense": self.bf16_dense, "fp8_dense": self.fp8_dense, "fp8_sparse": self.fp8_sparse}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PeakPflops:
        return cls(d.get("bf16_dense"), d.get("fp8_dense"), d.get("fp8_sparse"))


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

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "instance_type": self.instance_type,
            "purchase": self.purchase,
            "instances": self.instances,
            "ultraservers": self.ultraservers,
            "ultraserver_type": self.ultraserver_type,
            "accelerators": self.accelerators,
            "accelerator": self.accelerator,
            "availability_zone": self.availability_zone,
            "efa": self.efa,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GroupSummary:
        return cls(
            d["name"],
            d["instance_type"],
            d["purchase"],
            d["instances"],
            d["ultraservers"],
            d.get("ultraserver_type"),
            d["accelerators"],
            d["accelerator"],
            d["availability_zone"],
            d["efa"],
        )


@dataclass(frozen=True)
class LustreSummary:
    """The FSx for Lustre file system as declared (its AZ is None when a program does not name one)."""

    deployment_type: DeploymentType
    storage_capacity_gib: int
    per_unit_storage_throughput: int | None
    availability_zone: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "deployment_type": self.deployment_type,
            "storage_capacity_gib": self.storage_capacity_gib,
            "per_unit_storage_throughput": self.per_unit_storage_throughput,
            "availability_zone": self.availability_zone,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LustreSummary:
        return cls(
            d["deployment_type"],
            d["storage_capacity_gib"],
            d.get("per_unit_storage_throughput"),
            d.get("availability_zone"),
        )


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

    def to_json(self) -> dict[str, Any]:
        return {
            "instances": self.instances,
            "ultraservers": self.ultraservers,
            "accelerators": self.accelerators,
            "neuron_cores": self.neuron_cores,
            "vcpus": self.vcpus,
            "accelerator_memory_gib": self.accelerator_memory_gib,
            "efa_bandwidth_gbps": self.efa_bandwidth_gbps,
            "peak_pflops": self.peak_pflops.to_json(),
            "placement_group": self.placement_group,
            "lustre": None if self.lustre is None else self.lustre.to_json(),
            "node_groups": [g.to_json() for g in self.node_groups],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Summary:
        fs = d.get("lustre")
        return cls(
            d["instances"],
            d["ultraservers"],
            d["accelerators"],
            d["neuron_cores"],
            d["vcpus"],
            d["accelerator_memory_gib"],
            d["efa_bandwidth_gbps"],
            PeakPflops.from_json(d["peak_pflops"]),
            d["placement_group"],
            None if fs is None else LustreSummary.from_json(fs),
            tuple(GroupSummary.from_json(g) for g in d.get("node_groups") or ()),
        )
