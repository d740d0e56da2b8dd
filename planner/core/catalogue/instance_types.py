"""The spec catalogue (data in `data/catalogue.yaml`), loaded once into typed records.

Figures live in the data file with their sources; this module only gives them types and
the few derived values (per-instance peak, an UltraServer's chips) that rules and cost share.
UltraServer types are entries of their own (`Catalogue.ultraserver_types`), each naming its
member instance type: code asks the catalogue which UltraServer a node group is made of
(`Catalogue.ultraserver_of`), never a type name.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct, field

from planner.core.catalogue import shipped_data as _data
from planner.core.catalogue.shipped_data import LocalZone

if TYPE_CHECKING:
    from planner.core.model.cluster import Purchase

PRECISIONS = ("bf16_dense", "fp8_dense", "fp8_sparse")


class Source(Struct, frozen=True):
    """A public page the catalogue cites for its figures, with the date it was read."""

    id: str
    title: str
    url: str
    as_of: str


GIB = 2**30  # bytes in a GiB, the unit EC2 gives accelerator memory in (DescribeInstanceTypes' SizeInMiB)


class Accelerator(Struct, frozen=True):
    """An accelerator chip as its vendor documents it (memory, peak TFLOPS per precision).

    `memory_gib`: its memory in GiB, the unit planner computes with. A source that gives it in
    decimal GB (`memory_gb` in the catalogue, as AWS gives GB200's) is converted, never relabelled.
    """

    name: str
    vendor: str
    memory_gib: float
    peak_tflops: Mapping[str, float | None]
    source: str
    neuron_cores: int | None = None
    notes: str = ""
    memory_gb: float | None = None  # the decimal GB its source gives, when it gives GB (memory_gib is converted)
    # the name EC2's DescribeInstanceTypes gives the chip: the types of the generated table with it get this
    # record (its peak FLOPS), not a bare one
    ec2_name: str | None = None


class InstanceType(Struct, frozen=True):
    """An EC2 instance type with the figures planner plans with, each traceable to a source."""

    name: str
    family: str
    accelerator: Accelerator | None  # None: the type has no accelerator (a CPU type from the generated table)
    accelerator_count: int
    vcpus: int
    memory_gib: float
    network_cards: int | None  # None: not published for the type (p6e-gb200.36xlarge)
    network_bandwidth_gbps: float
    efa_supported: bool
    efa_generation: int | None
    efa_max_interfaces: int | None
    max_network_interfaces: int | None
    local_nvme_disks: int | None
    local_nvme_disk_gb: int | None
    spot: bool
    capacity_block: bool
    regions: tuple[str, ...]
    source: str
    field_sources: Mapping[str, str] = field(default_factory=dict)
    notes: str = ""
    efa_first_card: int = 0  # the first network card that takes EFA (p6-b300.48xlarge: card 0 is ENA only)
    # regions where the Capacity Blocks pricing page sells the type's blocks beyond `regions` (the offerings)
    capacity_block_regions: tuple[str, ...] = ()
    capacity_block_local_zones: tuple[LocalZone, ...] = ()  # Local Zones the pricing page sells its blocks in
    # True for the hand-curated training types of catalogue.yaml; False for a type built from the table
    # generated from DescribeInstanceTypes (instance_types.yaml: no peak FLOPS, no interconnect domain)
    curated: bool = True

    @property
    def accelerator_name(self) -> str:
        """The accelerator's name, or "" for a type with none."""
        return self.accelerator.name if self.accelerator is not None else ""

    def sold_in(self, region: str, purchase: Purchase) -> bool:
        """Listed in `region` for `purchase`: the offerings, plus the Capacity Blocks pricing page's regions for blocks."""
        return region in self.regions or (purchase == "capacity-block" and region in self.capacity_block_regions)

    @property
    def efa_cards(self) -> tuple[int, ...]:
        """The network cards that take one EFA interface each for the type's full bandwidth; () when unknown."""
        if not self.efa_supported or self.network_cards is None or self.efa_max_interfaces is None:
            return ()
        n = min(self.network_cards - self.efa_first_card, self.efa_max_interfaces)
        return tuple(range(self.efa_first_card, self.efa_first_card + n))

    @property
    def neuron_cores(self) -> int | None:
        per_chip = self.accelerator.neuron_cores if self.accelerator is not None else None
        return per_chip * self.accelerator_count if per_chip else None

    @property
    def accelerator_memory_gib(self) -> float:
        return self.accelerator.memory_gib * self.accelerator_count if self.accelerator is not None else 0.0

    def peak_pflops(self, precision: str) -> float | None:
        """Peak PFLOPS of one instance at `precision` (bf16_dense, fp8_dense, fp8_sparse); None when unknown."""
        if self.accelerator is None:
            return None
        tf = self.accelerator.peak_tflops.get(precision)
        return None if tf is None else tf * self.accelerator_count / 1000.0

    def source_of(self, figure: str) -> str:
        return self.field_sources.get(figure, self.source)


class UltraServerType(Struct, frozen=True):
    """An UltraServer type as AWS sells it: `members` instances of one type joined by an accelerator
    interconnect, booked whole (one Capacity Block per UltraServer).

    `member_instance_type` is None while AWS's EC2 API lists no instance type for it (Trn3):
    then it is listed with its figures and not declarable."""

    name: str  # AWS's UltraserverType, such as u-trn2x64
    title: str
    member_instance_type: str | None
    members: int
    accelerator: Accelerator
    accelerators_per_member: int
    interconnect: str
    purchase: tuple[str, ...]
    regions: tuple[str, ...]
    local_zones: tuple[LocalZone, ...]
    source: str
    general_availability: str | None = None
    field_sources: Mapping[str, str] = field(default_factory=dict)
    notes: str = ""
    family: str | None = None  # the instance family its members will have, while the API lists none (trn3)

    @property
    def accelerators(self) -> int:
        return self.members * self.accelerators_per_member

    @property
    def declarable(self) -> bool:
        return self.member_instance_type is not None

    @property
    def accelerator_memory_gib(self) -> float:
        return self.accelerator.memory_gib * self.accelerators

    def peak_pflops(self, precision: str) -> float | None:
        """Peak PFLOPS of one whole UltraServer at `precision`."""
        tf = self.accelerator.peak_tflops.get(precision)
        return None if tf is None else tf * self.accelerators / 1000.0


class _Grouped(Protocol):
    """What `Catalogue.ultraserver_of` reads from a node group (planner.core.model.cluster.NodeGroup)."""

    @property
    def instance_type(self) -> str: ...

    @property
    def ultraserver_type(self) -> str | None: ...


class _Counted(_Grouped, Protocol):
    """What `Catalogue.ultraservers_in` reads: a node group with its instance count."""

    @property
    def count(self) -> int: ...


class Catalogue(Struct, frozen=True, dict=True):  # dict: its cached look-ups
    """Everything catalogue.yaml declares, keyed by name: the only source of hardware figures."""

    sources: Mapping[str, Source]
    accelerators: Mapping[str, Accelerator]
    instance_types: Mapping[str, InstanceType]
    ultraserver_types: Mapping[str, UltraServerType]

    def get(self, name: str) -> InstanceType | None:
        """Any instance type AWS lists: a curated training type, else one built from the generated table
        (`instance_types.yaml`, read only when a name is not curated); None when AWS lists no such type."""
        found = self.instance_types.get(name)
        return found if found is not None else generated_type(name)

    def spec(self, name: str) -> InstanceType:
        """`get(name)` for a name already checked to be listed (a parsed node group's type); KeyError otherwise."""
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def lists(self, name: str) -> bool:
        """True for a type AWS lists (curated or in the generated table)."""
        return name in self.instance_types or name in generated_names()

    def all_names(self) -> tuple[str, ...]:
        """Every listed type, sorted: the curated ones and the generated table's (which this reads)."""
        return tuple(sorted(set(self.instance_types) | set(generated_names())))

    def ultraservers_of(self, instance_type: str) -> tuple[UltraServerType, ...]:
        """The UltraServer types `instance_type` is a member of, smallest first (p6e-gb200.36xlarge: two)."""
        return self._memberships.get(instance_type, ())

    @cached_property
    def _memberships(self) -> Mapping[str, tuple[UltraServerType, ...]]:
        """Member instance type -> its UltraServer types, smallest first: asked of every node group, built once."""
        out: dict[str, list[UltraServerType]] = {}
        for u in sorted(self.ultraserver_types.values(), key=lambda u: (u.members, u.name)):
            if u.member_instance_type is not None:
                out.setdefault(u.member_instance_type, []).append(u)
        return {k: tuple(v) for k, v in out.items()}

    def is_member(self, instance_type: str) -> bool:
        """True for an instance type sold only as part of UltraServers."""
        return bool(self.ultraservers_of(instance_type))

    def ultraserver_of(self, group: _Grouped) -> UltraServerType | None:
        """The UltraServer type a node group is made of: the one it names, else the only one its
        instance type belongs to; None for instance types sold one by one (or a member type of
        several UltraServer types whose group names none, which only a read-back can produce)."""
        if group.ultraserver_type is not None:
            return self.ultraserver_types.get(group.ultraserver_type)
        types = self.ultraservers_of(group.instance_type)
        return types[0] if len(types) == 1 else None

    def unit_of(self, group: _Grouped) -> int:
        """Instances a group is bought in: its UltraServer's members, else 1."""
        ultra = self.ultraserver_of(group)
        return ultra.members if ultra else 1

    def ultraservers_in(self, group: _Counted) -> int:
        """UltraServers a group occupies: booked whole, so 6 members of 4-member UltraServers occupy 2
        (the cost bills a Capacity Block group that way); 0 for instance types sold one by one."""
        ultra = self.ultraserver_of(group)
        return -(-group.count // ultra.members) if ultra else 0

    def not_yet_listed(self, instance_type: str) -> tuple[UltraServerType, ...]:
        """UltraServer types of the family `instance_type` names (trn3.48xlarge: Trn3) that AWS sells but
        whose instance types the EC2 API does not list yet."""
        family = instance_type.split(".")[0].lower()
        return tuple(
            u for u in self.ultraserver_types.values() if not u.declarable and u.family and family.startswith(u.family)
        )

    @property
    def declarable_ultraserver_types(self) -> tuple[UltraServerType, ...]:
        return tuple(u for u in self.ultraserver_types.values() if u.declarable)


def _accelerator(name: str, raw: dict[str, Any]) -> Accelerator:
    """One accelerator; its memory in GiB as given (`memory_gib`), or from decimal GB (`memory_gb`: x 10^9 / 2^30)."""
    gb = raw.get("memory_gb")
    return Accelerator(
        name=name,
        vendor=raw["vendor"],
        memory_gib=raw["memory_gib"] if gb is None else round(gb * 1e9 / GIB, 2),
        memory_gb=gb,
        peak_tflops=dict(raw["peak_tflops"]),
        source=raw["source"],
        neuron_cores=raw.get("neuron_cores"),
        notes=raw.get("notes", ""),
        ec2_name=raw.get("ec2_name"),
    )


def _zones(raw: Any) -> tuple[LocalZone, ...]:
    return tuple(LocalZone(z["zone"], z["region"], bool(z.get("opt_in"))) for z in raw or ())


def build(raw: dict[str, Any]) -> Catalogue:
    sources = {k: Source(k, v["title"], v["url"], str(v["as_of"])) for k, v in raw["sources"].items()}
    accelerators = {k: _accelerator(k, v) for k, v in raw["accelerators"].items()}
    types: dict[str, InstanceType] = {}
    for name, v in raw["instance_types"].items():
        efa = v["efa"]
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
            efa_max_interfaces=efa.get("max_interfaces", 0) if efa["supported"] else 0,
            efa_first_card=efa.get("first_card", 0),
            capacity_block_regions=tuple(v.get("capacity_block_regions") or ()),
            capacity_block_local_zones=_zones(v.get("capacity_block_local_zones")),
            max_network_interfaces=v["max_network_interfaces"],
            local_nvme_disks=v["local_nvme"]["disks"],
            local_nvme_disk_gb=v["local_nvme"]["disk_gb"],
            spot=v["spot"],
            capacity_block=v["capacity_block"],
            regions=tuple(v["regions"]),
            source=v["source"],
            field_sources=dict(v.get("field_sources") or {}),
            notes=v.get("notes", ""),
        )
    ultra = {}
    for name, v in (raw.get("ultraserver_types") or {}).items():
        ultra[name] = UltraServerType(
            name=name,
            title=v["name"],
            member_instance_type=v.get("member_instance_type"),
            members=v["members"],
            accelerator=accelerators[v["accelerator"]],
            accelerators_per_member=v["accelerators_per_member"],
            interconnect=v["interconnect"],
            purchase=tuple(v.get("purchase") or ()),
            regions=tuple(v.get("regions") or ()),
            local_zones=_zones(v.get("local_zones")),
            source=v["source"],
            general_availability=None if v.get("general_availability") is None else str(v["general_availability"]),
            field_sources=dict(v.get("field_sources") or {}),
            notes=v.get("notes", ""),
            family=v.get("family"),
        )
    for u in ultra.values():
        if u.member_instance_type is not None and u.member_instance_type not in types:
            raise ValueError(
                f"catalogue: UltraServer type {u.name} names unknown member instance type {u.member_instance_type}"
            )
    return Catalogue(sources, accelerators, types, ultra)


@lru_cache(maxsize=1)
def load() -> Catalogue:
    """The shipped catalogue (parsed once per process)."""
    return build(_data.raw("catalogue.yaml")[0])


# --- the generated table: every type AWS's DescribeInstanceTypes lists (instance_types.yaml) ---------------

GENERATED_FILE = "instance_types.yaml"
DESCRIBE_SOURCE = "ec2-describe-instance-types"  # the catalogue's source ids the generated figures rest on
OFFERINGS_SOURCE = "ec2-instance-type-offerings"


@lru_cache(maxsize=1)
def _generated() -> dict[str, Any]:
    """The generated table's entries by type name: read on the first lookup of a type the curated catalogue
    lacks, never by a plan of curated types only (start-up stays as it was)."""
    entries: dict[str, Any] = _data.raw(GENERATED_FILE)[0]["instance_types"]
    return entries


def generated_names() -> frozenset[str]:
    """Every type name in the generated table (reads it)."""
    return frozenset(_generated())


def architectures(name: str) -> tuple[str, ...]:
    """The processor architectures DescribeInstanceTypes gives a type (x86_64, arm64); () when the generated
    table does not list it (p6e-gb200.36xlarge). Reads the table."""
    e = _generated().get(name)
    return tuple(e.get("architectures") or ()) if e is not None else ()


def accelerator_kinds(name: str) -> tuple[str, ...]:
    """The kinds of accelerator DescribeInstanceTypes gives a type, as the generated table records them (`gpu`
    from GpuInfo, `neuron` from NeuronInfo, `inference` from InferenceAcceleratorInfo, `fpga`, `media`); () when
    the table does not list it. Reads the table."""
    e = _generated().get(name)
    return tuple(str(a.get("kind")) for a in (e.get("accelerators") or ())) if e is not None else ()


def generated_as_of() -> str:
    """The day the generated table's data was published (its `as_of`)."""
    return str(_data.raw(GENERATED_FILE)[0]["as_of"])


def _bandwidth(entry: Mapping[str, Any]) -> float:
    """Gbps: NetworkPerformance's figure ("Up to 12.5 Gigabit": 12.5), as the curated entries take it; else
    the sum of the network cards' peak bandwidth; 0 when AWS's data gives neither."""
    words = str(entry.get("network_performance") or "").removeprefix("Up to ").split()
    if len(words) == 2 and words[1] == "Gigabit":
        try:
            return float(words[0])
        except ValueError:
            pass
    return float(entry.get("peak_bandwidth_gbps") or 0.0)


@cache
def generated_type(name: str) -> InstanceType | None:
    """The type `name` built from the generated table (DescribeInstanceTypes' figures, the offerings' regions),
    or None when the table does not list it. Its accelerator, if any, has no peak FLOPS (AWS's API gives
    none): the figures that need one are unknown for it, never guessed."""
    e = _generated().get(name)
    if e is None:
        return None
    accs = e.get("accelerators") or []
    acc = None
    count = 0
    if accs:
        a = accs[0]
        memory = a.get("memory_mib")
        curated = next((c for c in load().accelerators.values() if c.ec2_name and c.ec2_name == a.get("name")), None)
        acc = curated or Accelerator(
            name=str(a.get("name") or a.get("kind")),
            vendor=str(a.get("maker") or ""),
            memory_gib=round(memory / 1024, 2) if memory else 0.0,
            peak_tflops={},
            source=DESCRIBE_SOURCE,
            neuron_cores=a.get("cores"),
            notes=f"EC2 DescribeInstanceTypes: {a.get('kind')} accelerator; no peak FLOPS in AWS's API data.",
        )
        count = int(a.get("count") or 0)
    efa_max = int(e.get("efa_max_interfaces") or 0)
    storage = e.get("local_storage") or []
    nvme = bool(e.get("local_nvme")) and bool(storage)
    usage = set(e.get("usage_classes") or ())
    return InstanceType(
        name=name,
        family=name.split(".")[0],
        accelerator=acc,
        accelerator_count=count,
        vcpus=int(e["vcpus"]),
        memory_gib=e["memory_mib"] / 1024,
        network_cards=e.get("network_cards"),
        network_bandwidth_gbps=_bandwidth(e),
        efa_supported=efa_max > 0,
        efa_generation=None,
        efa_max_interfaces=efa_max,
        efa_first_card=int(e.get("efa_first_card") or 0),
        max_network_interfaces=e.get("max_network_interfaces"),
        local_nvme_disks=int(storage[0]["count"]) if nvme else 0,
        local_nvme_disk_gb=int(storage[0]["size_gb"]) if nvme else 0,
        spot="spot" in usage,
        capacity_block="capacity-block" in usage,
        regions=tuple(e.get("regions") or ()),
        source=DESCRIBE_SOURCE,
        field_sources={"regions": OFFERINGS_SOURCE},
        notes="Generated from EC2 DescribeInstanceTypes and DescribeInstanceTypeOfferings (instance_types.yaml).",
        curated=False,
    )
