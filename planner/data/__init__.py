"""The shipped data, one package: every sourced figure planner uses is read through here.

The YAML files beside this module hold what AWS publishes, each entry with its source:
the instance catalogue (`catalogue.yaml`, typed by `planner.catalogue`), FSx for Lustre
(`fsx_lustre.yaml`, typed by `planner.rules.lustre`), Service Quotas codes
(`aws-quotas.yaml`, typed by `planner.aws.quotas`), AWS limits (`aws-limits.yaml`, typed
here: Capacity Block sizes and durations, documented UltraCluster sizes) and the price books
(`prices/`). Code reads them through `raw(name)` or a typed loader, never by path, so a
figure lives in one file and rule texts are built from the loaded value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from planner import yamlload
from planner.yamlload import Lines


def raw(name: str) -> tuple[Any, Lines]:
    """A data file (`catalogue.yaml`, `prices/current.yaml`, ...) as plain data, with the line of every key."""
    return yamlload.load_data(name)


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
    ints = {k: _positive(cb[k], f"capacity_blocks.{k}") for k in (
        "daily_steps_up_to_days", "weekly_step_days", "max_days", "max_instances_per_block", "max_instances_per_account",
        "termination_lead_minutes", "max_start_weeks_ahead")}
    blocks = CapacityBlockLimits(
        source=_https(cb["source"], "capacity_blocks.source"), as_of=str(cb["as_of"]),
        purchase_source=_https(cb["purchase_source"], "capacity_blocks.purchase_source"),
        ends_at_utc=str(cb["ends_at_utc"]),
        termination_source=_https(cb["termination_source"], "capacity_blocks.termination_source"), **ints)
    uc = data["ultraclusters"]
    documented = {}
    for i, d in enumerate(uc["documented"]):
        documented[str(d["accelerator"])] = UltraCluster(
            str(d["accelerator"]), _positive(d["accelerators"], f"ultraclusters.documented[{i}].accelerators"),
            str(d["family"]), _https(d["source"], f"ultraclusters.documented[{i}].source"))
    return Limits(blocks, _https(uc["page"], "ultraclusters.page"), documented)
