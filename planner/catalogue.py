"""The spec catalogue (data in `data/catalogue.yaml`), loaded once into typed records.

Figures live in the data file with their sources; this module only gives them types and
the few derived values (per-instance peak, UltraServer size) that rules and cost share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from planner import data as _data

PRECISIONS = ("bf16_dense", "fp8_dense", "fp8_sparse")


@dataclass(frozen=True)
class Source:
    """A public page the catalogue cites for its figures, with the date it was read."""

    id: str
    title: str
    url: str
    as_of: str


@dataclass(frozen=True)
class Accelerator:
    """An accelerator chip as its vendor documents it (memory, peak TFLOPS per precision)."""

    name: str
    vendor: str
    memory_gib: float
    peak_tflops: Mapping[str, float | None]
    source: str
    neuron_cores: int | None = None
    notes: str = ""


@dataclass(frozen=True)
class InstanceType:
    """An EC2 instance type with the figures planner plans with, each traceable to a source."""

    name: str
    family: str
    accelerator: Accelerator
    accelerator_count: int
    vcpus: int
    memory_gib: int
    network_cards: int
    network_bandwidth_gbps: int
    efa_supported: bool
    efa_generation: int | None
    efa_max_interfaces: int
    max_network_interfaces: int
    local_nvme_disks: int
    local_nvme_disk_gb: int
    spot: bool
    capacity_block: bool
    regions: tuple[str, ...]
    source: str
    field_sources: Mapping[str, str] = field(default_factory=dict)
    ultraserver_size: int | None = None
    ultraserver_interconnect: str | None = None
    notes: str = ""

    @property
    def neuron_cores(self) -> int | None:
        per_chip = self.accelerator.neuron_cores
        return per_chip * self.accelerator_count if per_chip else None

    @property
    def accelerator_memory_gib(self) -> float:
        return self.accelerator.memory_gib * self.accelerator_count

    def peak_pflops(self, precision: str) -> float | None:
        """Peak PFLOPS of one instance at `precision` (bf16_dense, fp8_dense, fp8_sparse)."""
        tf = self.accelerator.peak_tflops.get(precision)
        return None if tf is None else tf * self.accelerator_count / 1000.0

    def source_of(self, figure: str) -> str:
        return self.field_sources.get(figure, self.source)


@dataclass(frozen=True)
class Announced:
    """A type announced but not yet in the catalogue's planning set (named, not planned)."""

    id: str
    name: str
    accelerator: Accelerator
    general_availability: str
    source: str
    notes: str = ""


@dataclass(frozen=True)
class Catalogue:
    """Everything catalogue.yaml declares, keyed by name: the only source of hardware figures."""

    sources: Mapping[str, Source]
    accelerators: Mapping[str, Accelerator]
    instance_types: Mapping[str, InstanceType]
    announced: Mapping[str, Announced]

    def get(self, name: str) -> InstanceType | None:
        return self.instance_types.get(name)


def _accelerator(name: str, raw: dict[str, Any]) -> Accelerator:
    return Accelerator(
        name=name,
        vendor=raw["vendor"],
        memory_gib=raw["memory_gib"],
        peak_tflops=dict(raw["peak_tflops"]),
        source=raw["source"],
        neuron_cores=raw.get("neuron_cores"),
        notes=raw.get("notes", ""),
    )


def build(raw: dict[str, Any]) -> Catalogue:
    sources = {k: Source(k, v["title"], v["url"], str(v["as_of"])) for k, v in raw["sources"].items()}
    accelerators = {k: _accelerator(k, v) for k, v in raw["accelerators"].items()}
    types: dict[str, InstanceType] = {}
    for name, v in raw["instance_types"].items():
        efa = v["efa"]
        us = v.get("ultraserver") or {}
        types[name] = InstanceType(
            name=name,
            family=v["family"],
            accelerator=accelerators[v["accelerator"]],
            accelerator_count=v["accelerator_count"],
            vcpus=v["vcpus"],
            memory_gib=v["memory_gib"],
            network_cards=v["network_cards"],
            network_bandwidth_gbps=v["network_bandwidth_gbps"],
            efa_supported=efa["supported"],
            efa_generation=efa.get("generation"),
            efa_max_interfaces=efa.get("max_interfaces", 0),
            max_network_interfaces=v["max_network_interfaces"],
            local_nvme_disks=v["local_nvme"]["disks"],
            local_nvme_disk_gb=v["local_nvme"]["disk_gb"],
            spot=v["spot"],
            capacity_block=v["capacity_block"],
            regions=tuple(v["regions"]),
            source=v["source"],
            field_sources=dict(v.get("field_sources") or {}),
            ultraserver_size=us.get("size"),
            ultraserver_interconnect=us.get("interconnect"),
            notes=v.get("notes", ""),
        )
    announced = {
        k: Announced(k, v["name"], accelerators[v["accelerator"]], str(v["general_availability"]), v["source"], v.get("notes", ""))
        for k, v in (raw.get("announced") or {}).items()
    }
    return Catalogue(sources, accelerators, types, announced)


@lru_cache(maxsize=1)
def load() -> Catalogue:
    """The shipped catalogue (parsed once per process)."""
    return build(_data.raw("catalogue.yaml")[0])
