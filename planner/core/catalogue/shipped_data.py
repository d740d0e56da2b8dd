"""The shipped data, one package: every sourced figure planner uses is read through here.

The YAML files beside this module hold what AWS publishes, each entry with its source:
the instance catalogue (`catalogue.yaml`, typed by `planner.core.catalogue.instance_types`), FSx for Lustre
(`fsx_lustre.yaml`, typed by `planner.core.rules.lustre`), Service Quotas codes
(`aws-quotas.yaml`, typed by `planner.aws.quotas`), AWS limits (`aws-limits.yaml`, typed
here: Capacity Block sizes and durations, documented UltraCluster sizes) and the price books
(`prices/`). Code reads them through `raw(name)` or a typed loader, never by path, so a
figure lives in one file and rule texts are built from the loaded value.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from planner.core.reading import yaml_lines as yamlload
from planner.core.reading.yaml_lines import Lines


def raw(name: str) -> tuple[Any, Lines]:
    """A data file (`catalogue.yaml`, `prices/current.yaml`, ...) as plain data, with the line of every key.

    The values come from `planner.core.catalogue.prebuilt_data` (the same files as Python literals, generated
    by tools/gen_prebuilt_data.py: PyYAML takes about 60 ms to construct them, on every `planner`
    start) while the file still has the length and CRC-32 recorded there; a file edited since
    is parsed, so what planner uses is always the YAML. No lines either way (`load_data`).
    """
    with open(os.path.join(yamlload.DATA_DIR, name), "rb") as fh:
        text = fh.read()
    built = _prebuilt(name, text)
    return (built(), {}) if built is not None else yamlload.load_data(name)


def _prebuilt(name: str, text: bytes) -> Callable[[], Any] | None:
    """The generated literals of shipped file `name`, if they were generated from exactly `text`."""
    import zlib

    from planner.core.catalogue.prebuilt_data import FILES

    entry = FILES.get(name)
    return entry[2] if entry is not None and entry[:2] == (len(text), zlib.crc32(text)) else None


@dataclass(frozen=True)
class CapacityBlockLimits:
    """What can be booked as an EC2 Capacity Block, per the EC2 User Guide (`source`)."""

    source: str
    as_of: str
    daily_steps_up_to_days: int
    weekly_step_days: int
    max_days: int
    max_instances_per_block: int
    max_instances_per_account: int
    full_block_source: (
        str  # "Capacity Block sizes of 64 instances are not supported for all instance types in all AWS Regions."
    )
    purchase_source: str
    ends_at_utc: str
    termination_source: str
    termination_lead_minutes: int
    max_start_weeks_ahead: int


@dataclass(frozen=True)
class UltraCluster:
    """An UltraCluster size AWS documents for an accelerator (on the `family`'s page, `source`)."""

    accelerator: str
    accelerators: int
    family: str
    source: str


@dataclass(frozen=True)
class Limits:
    """AWS limits (Capacity Blocks, UltraCluster sizes) read from aws-limits.yaml, so rule texts quote loaded values."""

    capacity_blocks: CapacityBlockLimits
    ultraclusters_page: str
    ultraclusters: dict[str, UltraCluster]  # by accelerator name

    @property
    def ultracluster_max(self) -> dict[str, int]:
        """Accelerator name -> its documented UltraCluster size, for callers that only need the number."""
        return {name: doc.accelerators for name, doc in self.ultraclusters.items()}


def _positive(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"planner/data/aws-limits.yaml: {where}: expected a positive integer, got {value!r}")
    return value


def _https(value: Any, where: str) -> str:
    if not (isinstance(value, str) and value.startswith("https://")):
        raise ValueError(f"planner/data/aws-limits.yaml: {where}: expected a public https source, got {value!r}")
    return value


@lru_cache(maxsize=1)
def limits() -> Limits:
    """`aws-limits.yaml`, checked and typed (a broken shipped file fails loudly, naming the key)."""
    data = raw("aws-limits.yaml")[0]
    cb = data["capacity_blocks"]
    ints = {
        k: _positive(cb[k], f"capacity_blocks.{k}")
        for k in (
            "daily_steps_up_to_days",
            "weekly_step_days",
            "max_days",
            "max_instances_per_block",
            "max_instances_per_account",
            "termination_lead_minutes",
            "max_start_weeks_ahead",
        )
    }
    blocks = CapacityBlockLimits(
        source=_https(cb["source"], "capacity_blocks.source"),
        as_of=str(cb["as_of"]),
        full_block_source=_https(cb["full_block_source"], "capacity_blocks.full_block_source"),
        purchase_source=_https(cb["purchase_source"], "capacity_blocks.purchase_source"),
        ends_at_utc=str(cb["ends_at_utc"]),
        termination_source=_https(cb["termination_source"], "capacity_blocks.termination_source"),
        **ints,
    )
    uc = data["ultraclusters"]
    documented = {}
    for i, d in enumerate(uc["documented"]):
        documented[str(d["accelerator"])] = UltraCluster(
            str(d["accelerator"]),
            _positive(d["accelerators"], f"ultraclusters.documented[{i}].accelerators"),
            str(d["family"]),
            _https(d["source"], f"ultraclusters.documented[{i}].source"),
        )
    return Limits(blocks, _https(uc["page"], "ultraclusters.page"), documented)


# "A local Zone Group is usually the Local Zone code without the ending character. For example, if the Local
# Zone is us-east-1-bue-1a the Local Zone Group is us-east-1-bue-1." (the Route 53 API's documentation of
# LocalZoneGroup, on the AWS SDK reference page below). No public data file lists the groups (botocore's
# partition data has no zones, moto's zone data no Local Zones): DescribeAvailabilityZones' GroupName is the
# account's answer, which `planner preflight` and `planner capacity` read.
LOCAL_ZONE_GROUP_DOC = (
    "https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/route53/aws.sdk.kotlin.services.route53.model/"
    "-geo-proximity-location/local-zone-group.html"
)


def local_zone_group(zone: str) -> str:
    """The zone group a Local Zone is opted into by, as AWS usually names them: the zone without its
    letter (us-east-1-dfw-2a -> us-east-1-dfw-2; LOCAL_ZONE_GROUP_DOC)."""
    return zone[:-1] if zone and zone[-1].isalpha() else zone


@dataclass(frozen=True)
class LocalZone:
    """A Local Zone a public AWS page lists (regions.yaml, or an UltraServer type's in the catalogue), its
    parent region, and whether an account must opt in first."""

    zone: str
    region: str
    opt_in: bool


@dataclass(frozen=True)
class Regions:
    """AWS's regions (botocore's partition data) with their Availability Zones (AWS's offerings data) and the
    Local Zones public pages list: `regions.yaml`, generated by tools/gen_regions.py."""

    partitions: dict[str, str]  # region -> partition (aws, aws-cn, aws-us-gov, ...)
    descriptions: dict[str, str]
    zones: dict[str, tuple[str, ...] | None]  # None: no zone data for the region (any letter is accepted)
    local_zones: dict[str, LocalZone]
    source: str

    def known(self, region: str) -> bool:
        return region in self.partitions

    def zone_of(self, name: str) -> str | None:
        """The region an Availability Zone or Local Zone name belongs to (us-east-2b: us-east-2), else None."""
        if name in self.local_zones:
            return self.local_zones[name].region
        for region, zones in self.zones.items():
            if zones is not None and name in zones:
                return region
        return None

    def closest(self, name: str) -> list[str]:
        """The known regions nearest in spelling (us-east-3: us-east-1 and us-east-2), within three edits."""
        from planner.core.reading.fields import edits

        scored = sorted((edits(name, r), r) for r in self.partitions)
        best = scored[0][0]
        return [r for d, r in scored if d == best] if best <= 3 else []


@lru_cache(maxsize=1)
def regions() -> Regions:
    """`regions.yaml`, typed."""
    data = raw("regions.yaml")[0]
    regs = data["regions"]
    return Regions(
        partitions={k: str(v["partition"]) for k, v in regs.items()},
        descriptions={k: str(v.get("description", "")) for k, v in regs.items()},
        zones={k: (None if v.get("zones") is None else tuple(v["zones"])) for k, v in regs.items()},
        local_zones={
            z["zone"]: LocalZone(z["zone"], z["region"], bool(z.get("opt_in"))) for z in data.get("local_zones") or ()
        },
        source=_https(data["sources"]["regions"]["url"], "regions.yaml sources.regions.url"),
    )
