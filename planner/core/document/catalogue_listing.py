"""What `planner catalog --format json` writes: the instance types planner knows, every figure with its source.

A document of its own, not a section of a `Report` (nothing is planned): `planner.commands.catalog` fills it
from the catalogue (`planner.core.catalogue.instance_types`), and the codec writes it as it writes a report
(`planner.core.render.json_report.record_text`), so `codec.load(CatalogueListing, json)` reads it back.
Figures are the catalogue's, as it holds them (a whole number stays one); an UltraServer's accelerator
memory and peak PFLOPS are rounded to 3 decimals.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Struct

from planner.core.document.codec import key

# the curated training types (catalogue.yaml), or every type AWS lists (with the generated table's)
Scope = Literal["training types (curated)", "every type AWS lists"]
# (precision, peak figure or None when unknown), in the catalogue's order: bf16_dense, fp8_dense, fp8_sparse
Peaks = Annotated[tuple[tuple[str, float | None], ...], key(shape="pairs")]
# (figure, the id of the source it comes from when not the entry's own `source`), by figure
FieldSources = Annotated[tuple[tuple[str, str], ...], key(shape="pairs")]


class ListedEfa(Struct, frozen=True):
    supported: bool
    generation: int | None


class ListedNvme(Struct, frozen=True):
    """Local NVMe instance storage: the disks and the size of each (None: not published)."""

    disks: int | None
    disk_gb: int | None


class ListedZone(Struct, frozen=True):
    """A Local Zone, its parent region, and whether an account must opt in first."""

    zone: str
    region: str
    opt_in_required: bool


class ListedInstanceType(Struct, frozen=True):
    """An instance type with its figures; the accelerator's fields are None for a type with none."""

    instance_type: str
    family: str
    curated: bool
    accelerator: str | None
    accelerator_vendor: str | None
    accelerator_count: int
    accelerator_memory_gib_each: float | None
    neuron_cores: int | None
    ultraserver_types: tuple[str, ...]
    vcpus: int
    memory_gib: float
    network_cards: int | None
    network_bandwidth_gbps: float
    efa: ListedEfa
    max_network_interfaces: int | None
    local_nvme: ListedNvme
    spot: bool
    capacity_block: bool
    regions: tuple[str, ...]
    capacity_block_regions: tuple[str, ...]
    capacity_block_local_zones: tuple[ListedZone, ...]
    peak_pflops: Peaks  # per instance
    source: str
    field_sources: FieldSources
    notes: str


class ListedAccelerator(Struct, frozen=True):
    name: str
    vendor: str
    memory_gib: float
    neuron_cores: int | None
    peak_tflops: Peaks  # per chip
    source: str
    notes: str


class ListedUltraServerType(Struct, frozen=True):
    """An UltraServer type: `members` instances of `member_instance_type` (None while the EC2 API lists none,
    and then not declarable), booked whole."""

    ultraserver_type: str
    name: str
    member_instance_type: str | None
    declarable: bool
    members: int
    accelerator: str
    accelerators: int
    accelerator_memory_gib: float
    interconnect: str
    peak_pflops: Peaks  # per UltraServer
    purchase: tuple[str, ...]
    regions: tuple[str, ...]
    local_zones: tuple[ListedZone, ...]
    general_availability: str | None
    source: str
    field_sources: FieldSources
    notes: str


class ListedSource(Struct, frozen=True):
    """A public page the catalogue cites, with the date it was read."""

    id: str
    title: str
    url: str
    as_of: str


class CatalogueListing(Struct, frozen=True):
    """The catalogue as `planner catalog` lists it: the training types, or every type AWS lists (then with
    the day the generated table's data was published)."""

    scope: Scope
    generated_table_as_of: Annotated[str | None, key(omit="none")]
    instance_types: tuple[ListedInstanceType, ...]
    accelerators: tuple[ListedAccelerator, ...]
    ultraserver_types: tuple[ListedUltraServerType, ...]
    sources: tuple[ListedSource, ...]
