"""Price books: prices as data, each with its source and the date it was read.

A book maps (instance_type, region, purchase) to USD per instance-hour, (region,
deployment_type, per_unit_storage_throughput) to USD per GB-month of FSx for Lustre, and
(region, volume_type, charge) to what an EBS volume bills: USD per GB-month of storage, per
provisioned IOPS-month (gp3 above its baseline, io1, io2 by tier) or per provisioned MiB/s-month
(gp3 throughput above its baseline), `EBS_CHARGES`.
Books layer: a user's file, or live prices, are overlaid on the built-in book and win
where they overlap, so a team can correct one price without copying the rest. Nothing
is ever priced at zero by default: a missing key is an unknown price.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any, cast

from msgspec import Struct, field
from msgspec.structs import replace

from planner.core.catalogue import shipped_data as _data
from planner.core.model.cluster import (
    LUSTRE_DEPLOYMENTS,
    PRICED_VOLUME_TYPES,
    PURCHASES,
    DeploymentType,
    Path,
    Purchase,
)
from planner.core.reading import yaml_lines as yamlload
from planner.core.reading.problems import InputError, Problem
from planner.core.reading.yaml_lines import Lines

BUILTIN = ("current", "capacity-blocks-2024")
DEFAULT = "current"

INSTANCE_KEYS = ("instance_type", "region", "purchase", "usd_per_hour", "source", "as_of", "assumption", "note")
LUSTRE_KEYS = (
    "region",
    "deployment_type",
    "per_unit_storage_throughput",
    "usd_per_gb_month",
    "source",
    "as_of",
    "assumption",
    "note",
)
EBS_KEYS = (
    "region",
    "volume_type",
    "charge",
    "usd_per_gb_month",
    "usd_per_iops_month",
    "usd_per_mibps_month",
    "source",
    "as_of",
    "assumption",
    "note",
)
EBS_VOLUME_TYPES = PRICED_VOLUME_TYPES  # what a book may price; `standard` (magnetic) bills I/O requests too


class EbsCharge(Struct, frozen=True):
    """One thing an EBS volume is billed for: the key of its price in a book entry, its unit, the types it applies to."""

    price_key: str
    unit: str
    volume_types: tuple[str, ...]


# What an EBS volume bills (the Amazon EBS pricing page, https://aws.amazon.com/ebs/pricing/): storage for
# every type; provisioned IOPS for gp3 (above its baseline), io1 and io2 (io2 in three tiers of IOPS); and
# provisioned throughput for gp3 (above its baseline). The baselines and tier bounds are
# `planner.core.cost.volumes`'.
STORAGE = "storage"
EBS_CHARGES: dict[str, EbsCharge] = {
    STORAGE: EbsCharge("usd_per_gb_month", "GB-month", EBS_VOLUME_TYPES),
    "iops": EbsCharge("usd_per_iops_month", "IOPS-month", ("gp3", "io1", "io2")),
    "iops-tier-2": EbsCharge("usd_per_iops_month", "IOPS-month", ("io2",)),
    "iops-tier-3": EbsCharge("usd_per_iops_month", "IOPS-month", ("io2",)),
    "throughput": EbsCharge("usd_per_mibps_month", "MiBps-month", ("gp3",)),
}
# What an FSx for Lustre Intelligent-Tiering file system bills beside the data it stores (which is usage, left
# out of estimates): its throughput capacity per MBps-month and its provisioned SSD read cache per GB-month
# (the price key in an entry, and its unit).
TIERING_CHARGES: dict[str, tuple[str, str]] = {
    "throughput_capacity": ("usd_per_mbps_month", "MBps-month"),
    "read_cache": ("usd_per_gb_month", "GB-month"),
}
TIERING_KEYS = ("region", "charge", "usd_per_mbps_month", "usd_per_gb_month", "source", "as_of", "assumption", "note")
DERIVED_KEYS = ("instance_type", "purchase", "from", "basis")
UNKNOWN_KEYS = ("instance_type", "region", "purchase", "reason", "source", "as_of", "note")
TOP_KEYS = ("name", "description", "as_of", "instances", "lustre", "lustre_tiering", "ebs", "derived", "unknown")
# A price more than this many days older than its book's date is said to be old in the plan (planner's
# threshold, not an AWS figure: between the pricing page's copies of 2026-03-01 and 2026-07-22, the Capacity
# Block rates of p5, p5e, p5en and p6-b200 rose by 20 to 32 %)
STALE_DAYS = 90

_AS_OF = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?", re.ASCII)
# The smallest price a book may hold: planner shows rates to at most four decimals
# (`planner.core.text.numbers.usd_rate`), so a smaller one (5e-324, say) would print as $0, and
# nothing is ever priced at zero. Every real EC2, FSx or EBS price is far above it.
MIN_USD = 0.0001


class Price(Struct, frozen=True):
    """One sourced price: USD per `unit`, read on `as_of` from `source`."""

    usd: float
    unit: str  # "instance-hour", "GB-month", "IOPS-month" or "MiBps-month"
    source: str
    as_of: str
    book: str  # the book (or file) the entry came from
    assumption: str | None = None
    note: str | None = None


class Unknown(Struct, frozen=True):
    """Why a book holds no price for an instance key that AWS's API names: `reason`, read on `as_of` from `source`."""

    reason: str
    source: str
    as_of: str
    book: str
    note: str | None = None


InstanceKey = tuple[str, str, str]  # instance_type, region, purchase
LustreKey = tuple[str, str, int | None]  # region, deployment_type, per-unit throughput (None for SCRATCH)
EbsKey = tuple[str, str, str]  # region, volume_type, charge (`EBS_CHARGES`)
TieringKey = tuple[str, str]  # region, charge (`TIERING_CHARGES`)


class Derivation(Struct, frozen=True):
    """Price `instance_type` bought as `purchase` like `source_type` when it has no price of its own."""

    instance_type: str
    purchase: Purchase
    source_type: str
    basis: str


def lustre_key(region: str, deployment_type: DeploymentType, throughput: int | None) -> LustreKey:
    """SCRATCH file systems have a fixed throughput, so it is not part of their price key."""
    return (region, deployment_type, None if deployment_type.startswith("SCRATCH") else throughput)


class Override(Struct, frozen=True):
    """A one-off `--price TYPE[:PURCHASE][@REGION]=USD` from the command line; None matches any."""

    instance_type: str
    purchase: Purchase | None
    region: str | None
    usd: float
    text: str  # as typed, for the report

    def matches(self, instance_type: str, region: str, purchase: Purchase) -> bool:
        return (
            self.instance_type == instance_type and self.purchase in (None, purchase) and self.region in (None, region)
        )

    def price(self) -> Price:
        return Price(self.usd, "instance-hour", f"your figure (--price {self.text})", "command line", "--price")


class PriceBook(Struct, frozen=True):
    """Prices by key with their sources and dates; a key missing here is unknown, never zero."""

    name: str
    instances: Mapping[InstanceKey, Price] = field(default_factory=dict)
    lustre: Mapping[LustreKey, Price] = field(default_factory=dict)
    ebs: Mapping[EbsKey, Price] = field(default_factory=dict)
    derived: Mapping[tuple[str, str], Derivation] = field(default_factory=dict)
    overrides: tuple[Override, ...] = ()  # --price: win over every entry; the last one given wins
    # why an instance key has no price (`unknown:` entries): said on the line item instead of a bare "no price"
    unknown: Mapping[InstanceKey, Unknown] = field(default_factory=dict)
    # the book's date, the day its prices are counted old to (`as_of:` at the top of the file, else its newest
    # entry's); a layered book takes the newest of its layers'
    as_of: str | None = None
    # on-demand prices of every type, from the generated per-region files (prices/on-demand/REGION.yaml), under
    # every entry of the book: read for a region only when a key has no entry, no derivation and no `unknown`
    generated_on_demand: bool = False
    # FSx for Lustre Intelligent-Tiering's charges (`lustre_tiering:` entries): (region, charge) -> price
    lustre_tiering: Mapping[TieringKey, Price] = field(default_factory=dict)

    def with_overrides(self, overrides: tuple[Override, ...]) -> PriceBook:
        """This book with the user's --price figures on top."""
        if not overrides:
            return self
        return replace(self, name=f"{self.name} + --price", overrides=self.overrides + overrides)

    def instance(self, instance_type: str, region: str, purchase: Purchase) -> Price | None:
        """The price of one instance-hour, or None when unknown. Derived prices carry their basis."""
        for o in reversed(self.overrides):
            if o.matches(instance_type, region, purchase):
                return o.price()
        direct = self.instances.get((instance_type, region, purchase))
        if direct is not None:
            return direct
        d = self.derived.get((instance_type, purchase))
        if d is None:
            if self.generated_on_demand and purchase == "on-demand":
                key = (instance_type, region, purchase)
                if key not in self.unknown:
                    return generated_on_demand(region).get(instance_type)
            return None
        base = self.instances.get((d.source_type, region, purchase))
        if base is None:
            return None
        why = f"{d.basis} ({d.source_type} {purchase} in {region}: {base.usd} USD/h)"
        if base.assumption:
            why += f"; {base.assumption}"
        return replace(base, assumption=why)

    def lustre_price(self, region: str, deployment_type: DeploymentType, throughput: int | None) -> Price | None:
        return self.lustre.get(lustre_key(region, deployment_type, throughput))

    def tiering_price(self, region: str, charge: str) -> Price | None:
        """USD per unit of `charge` (`TIERING_CHARGES`) of an FSx for Lustre Intelligent-Tiering file system in
        `region`, or None when unknown."""
        return self.lustre_tiering.get((region, charge))

    def ebs_price(self, region: str, volume_type: str, charge: str = STORAGE) -> Price | None:
        """USD per unit of `charge` (`EBS_CHARGES`: GB-month of storage, IOPS-month, MiBps-month) of an
        EBS volume of `volume_type` in `region`, or None when unknown."""
        return self.ebs.get((region, volume_type, charge))

    def overlay(self, data: dict[str, Any], origin: str, lines: Lines | None = None) -> PriceBook:
        """This book with the entries of `data` (the user-file shape) added, winning on equal keys.

        `origin` names where `data` came from (a file, "aws-price-list", ...): it is the
        `book` of every entry it adds and appears in the estimate. Invalid data raises
        InputError with one problem per bad key.
        """
        parsed = _parse(data, origin, lines or {})
        # a price in the overlay answers a key the base called unknown, and an overlay's `unknown` entry
        # takes back the base's price for its key: the overlay wins either way
        return PriceBook(
            name=f"{self.name} + {parsed.name}" if parsed.name != self.name else self.name,
            instances={**{k: v for k, v in self.instances.items() if k not in parsed.unknown}, **parsed.instances},
            lustre={**self.lustre, **parsed.lustre},
            ebs={**self.ebs, **parsed.ebs},
            derived={**self.derived, **parsed.derived},
            overrides=self.overrides,
            unknown={**{k: v for k, v in self.unknown.items() if k not in parsed.instances}, **parsed.unknown},
            as_of=max((d for d in (self.as_of, parsed.as_of) if d is not None), key=day, default=None),
            generated_on_demand=self.generated_on_demand,
            lustre_tiering={**self.lustre_tiering, **parsed.lustre_tiering},
        )

    def unknown_instance(self, instance_type: str, region: str, purchase: Purchase) -> Unknown | None:
        """Why this book has no price for the key, when it says (`unknown:`); None otherwise."""
        return self.unknown.get((instance_type, region, purchase))

    def purchases(self, instance_type: str, region: str) -> list[str]:
        """Purchase options with a known (direct or derived) price for a type in a region."""
        return [p for p in PURCHASES if self.instance(instance_type, region, p) is not None]

    def entries(self) -> list[tuple[str, Price]]:
        """Every price entry with a readable key, for listing and tests."""
        out = [(f"{t} {r} {p}", v) for (t, r, p), v in self.instances.items()]
        out += [(f"lustre {r} {d} {t or ''}".rstrip(), v) for (r, d, t), v in self.lustre.items()]
        out += [(f"ebs {r} {t}" + ("" if c == STORAGE else f" {c}"), v) for (r, t, c), v in self.ebs.items()]
        out += [(f"lustre {r} INTELLIGENT_TIERING {c}", v) for (r, c), v in self.lustre_tiering.items()]
        return out


# --- dates --------------------------------------------------------------------------------


@lru_cache(maxsize=1024)  # every estimate dates each of its prices: a book has few distinct dates
def day(as_of: str, last: bool = False) -> _dt.date:
    """The day an `as_of` names: 2026-08-01 itself; a year or a month by its first day, or its `last`."""
    parts = [int(x) for x in as_of.split("-")]
    if len(parts) == 3:
        return _dt.date(*parts)
    if len(parts) == 2:
        first = _dt.date(parts[0], parts[1], 1)
        if not last:
            return first
        return (first.replace(day=28) + _dt.timedelta(days=4)).replace(day=1) - _dt.timedelta(days=1)
    return _dt.date(parts[0], 12, 31) if last else _dt.date(parts[0], 1, 1)


def is_date(text: str) -> bool:
    """Whether a price's `as_of` is a date (a `--price` figure's is "command line")."""
    return bool(_AS_OF.fullmatch(text)) and _real_date(text)


def age_days(as_of: str, book_as_of: str) -> int:
    """Days from a price's date to its book's: at least (a year or a month counts from its last day), never below 0."""
    return max(0, (day(book_as_of) - day(as_of, last=True)).days)


# --- reading and validating --------------------------------------------------------------


def _real_date(text: str) -> bool:
    """2026, 2026-08 and 2026-08-01 are dates; 2026-13 and 2026-02-30 are not."""
    year, month, day = (text.split("-") + ["01", "01"])[:3]
    try:
        _dt.date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


def _as_of(r: Any, v: Any, path: Path) -> str | None:
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, int) and not isinstance(v, bool):
        v = str(v)
    if isinstance(v, str) and _AS_OF.fullmatch(v) and _real_date(v):
        return v
    r.fail(path, f"expected a date such as 2026-08-01 (or 2026-08, 2026), got {_describe(v)}")
    return None


def _describe(v: Any) -> str:
    from planner.core.reading.fields import kind

    return kind(v)


def _price(r: Any) -> Any:
    """The converter of a price: a positive number up to the reader's bound, at least MIN_USD."""

    def conv(v: Any, path: Path) -> float | None:
        usd: float | None = r.positive_number(v, path)
        if usd is not None and usd < MIN_USD:
            r.fail(path, f"expected at least {MIN_USD:g} USD (smaller prices would show as $0), got {_describe(v)}")
            return None
        return usd

    return conv


def _entries(r: Any, data: dict[str, Any], key: str) -> list[tuple[Path, dict[str, Any]]]:
    raw = data.get(key)
    if raw is None:
        return []
    if not isinstance(raw, list):
        r.fail((key,), f"expected a list of price entries, got {_describe(raw)}")
        return []
    out = []
    for i, item in enumerate(raw):
        if isinstance(item, dict):
            out.append(((key, i), item))
        else:
            r.fail((key, i), f"expected a mapping, got {_describe(item)}")
    return out


def _repeated(r: Any, seen: dict[tuple[Any, ...], Path], key: tuple[Any, ...], path: Path, what: str) -> bool:
    """Whether `key` was priced by an earlier entry; then a problem naming both entries' lines.

    Two prices for one key, written twice or copied in through a YAML merge key (`<<: *a`),
    would leave the estimate to whichever comes last: the book is refused instead."""
    first = seen.setdefault(key, path)
    if first == path:
        return False
    from planner.core.reading.yaml_lines import line_of

    at = line_of(r.lines, first)
    where = f"line {at}" if at else f"{first[0]}[{first[1]}]"
    r.fail(path, f"a second price for {what} (the first is at {where}); expected one entry per key")
    return True


def _parse(data: Any, origin: str, lines: Lines) -> PriceBook:
    from planner.core.catalogue import instance_types as _catalogue
    from planner.core.reading.fields import REGION as _REGION
    from planner.core.reading.fields import Reader, _closest, _kind

    r = Reader(origin, lines)
    top = r.mapping(data, (), TOP_KEYS)
    if top is None:
        raise InputError(r.problems)
    cat = _catalogue.load()
    name = r.get(top, "name", (), r.string) or os.path.basename(origin)
    region_conv = r.pattern(_REGION, "an AWS region such as us-east-2")

    def type_conv(v: Any, path: Path) -> str | None:
        """A type AWS lists (curated, or in the generated table, read only for a name the curated lack)."""
        if isinstance(v, str) and cat.lists(v):
            return v
        hint = _closest(str(v), cat.all_names()) if isinstance(v, str) else ""
        r.fail(path, f"expected an instance type AWS lists (`planner catalog --all`), got {_kind(v)}{hint}")
        return None

    seen: dict[tuple[Any, ...], Path] = {}  # each price's key -> the entry that gave it

    def instance_key(m: dict[str, Any], p: Path) -> tuple[Any, ...]:
        """An instance entry's key (type, region, purchase), each None where unusable (said as a problem)."""
        return (
            r.get(m, "instance_type", p, type_conv),
            r.get(m, "region", p, region_conv),
            r.get(m, "purchase", p, r.choice(PURCHASES)),
        )

    instances: dict[InstanceKey, Price] = {}
    for p, m in _entries(r, top, "instances"):
        r.mapping(
            m, p, INSTANCE_KEYS, required=("instance_type", "region", "purchase", "usd_per_hour", "source", "as_of")
        )
        vals: tuple[Any, ...] = instance_key(m, p) + (
            r.get(m, "usd_per_hour", p, _price(r)),
            r.get(m, "source", p, r.string),
            r.get(m, "as_of", p, lambda v, q: _as_of(r, v, q)),
        )
        if None in vals:
            continue
        itype, region, purchase, usd, source, as_of = vals
        if _repeated(r, seen, (itype, region, purchase), p, f"{itype} {purchase} in {region}"):
            continue
        instances[(itype, region, purchase)] = Price(
            usd,
            "instance-hour",
            source,
            as_of,
            name,
            r.get(m, "assumption", p, r.string),
            r.get(m, "note", p, r.string),
        )
    lustre: dict[LustreKey, Price] = {}
    for p, m in _entries(r, top, "lustre"):
        r.mapping(m, p, LUSTRE_KEYS, required=("region", "deployment_type", "usd_per_gb_month", "source", "as_of"))
        vals = (
            r.get(m, "region", p, region_conv),
            r.get(m, "deployment_type", p, r.choice(LUSTRE_DEPLOYMENTS)),
            r.get(m, "usd_per_gb_month", p, _price(r)),
            r.get(m, "source", p, r.string),
            r.get(m, "as_of", p, lambda v, q: _as_of(r, v, q)),
        )
        throughput = r.get(m, "per_unit_storage_throughput", p, r.positive_int)
        if None in vals:
            continue
        region, dtype, usd, source, as_of = vals
        if throughput is None and not dtype.startswith("SCRATCH"):
            r.fail(p, f"missing required key 'per_unit_storage_throughput' (MB/s per TiB) for {dtype}")
            continue
        tput = f" {throughput} MB/s/TiB" if throughput is not None and not dtype.startswith("SCRATCH") else ""
        if _repeated(
            r, seen, ("lustre",) + lustre_key(region, dtype, throughput), p, f"FSx for Lustre {dtype}{tput} in {region}"
        ):
            continue
        lustre[lustre_key(region, dtype, throughput)] = Price(
            usd, "GB-month", source, as_of, name, r.get(m, "assumption", p, r.string), r.get(m, "note", p, r.string)
        )
    ebs: dict[EbsKey, Price] = {}
    for p, m in _entries(r, top, "ebs"):
        r.mapping(m, p, EBS_KEYS, required=("region", "volume_type", "source", "as_of"))
        charge = r.get(m, "charge", p, r.choice(tuple(EBS_CHARGES)), STORAGE)
        vals = (
            r.get(m, "region", p, region_conv),
            r.get(m, "volume_type", p, r.choice(EBS_VOLUME_TYPES)),
            r.get(m, "source", p, r.string),
            r.get(m, "as_of", p, lambda v, q: _as_of(r, v, q)),
        )
        if charge is None:
            continue
        what = EBS_CHARGES[charge]
        wrong = [k for k in sorted({c.price_key for c in EBS_CHARGES.values()} - {what.price_key}) if k in m]
        for other in wrong:
            r.fail(p + (other,), f"the {charge} price is given as '{what.price_key}' (USD per {what.unit})")
        if wrong:
            continue
        if what.price_key not in m or m[what.price_key] is None:
            r.fail(p, f"missing required key '{what.price_key}' (USD per {what.unit}) for the {charge} price")
            continue
        usd = r.get(m, what.price_key, p, _price(r))
        if None in vals or usd is None:
            continue
        region, vtype, source, as_of = vals
        if vtype not in what.volume_types:
            r.fail(
                p + ("charge",),
                f"EBS {vtype} has no {charge} charge; expected one of: "
                + ", ".join(c for c, e in EBS_CHARGES.items() if vtype in e.volume_types),
            )
            continue
        label = f"EBS {vtype} in {region}" if charge == STORAGE else f"EBS {vtype} {charge} in {region}"
        if _repeated(r, seen, ("ebs", region, vtype, charge), p, label):
            continue
        ebs[(region, vtype, charge)] = Price(
            usd, what.unit, source, as_of, name, r.get(m, "assumption", p, r.string), r.get(m, "note", p, r.string)
        )
    tiering: dict[TieringKey, Price] = {}
    for p, m in _entries(r, top, "lustre_tiering"):
        r.mapping(m, p, TIERING_KEYS, required=("region", "charge", "source", "as_of"))
        charge = r.get(m, "charge", p, r.choice(tuple(TIERING_CHARGES)))
        vals = (
            r.get(m, "region", p, region_conv),
            r.get(m, "source", p, r.string),
            r.get(m, "as_of", p, lambda v, q: _as_of(r, v, q)),
        )
        if charge is None:
            continue
        price_key, unit = TIERING_CHARGES[charge]
        other = next(k for k, _ in TIERING_CHARGES.values() if k != price_key)
        if other in m:
            r.fail(p + (other,), f"the {charge} price is given as '{price_key}' (USD per {unit})")
            continue
        if m.get(price_key) is None:
            r.fail(p, f"missing required key '{price_key}' (USD per {unit}) for the {charge} price")
            continue
        usd = r.get(m, price_key, p, _price(r))
        if None in vals or usd is None:
            continue
        region, source, as_of = vals
        if _repeated(
            r, seen, ("lustre_tiering", region, charge), p, f"FSx for Lustre Intelligent-Tiering {charge} in {region}"
        ):
            continue
        tiering[(region, charge)] = Price(
            usd, unit, source, as_of, name, r.get(m, "assumption", p, r.string), r.get(m, "note", p, r.string)
        )
    unknown: dict[InstanceKey, Unknown] = {}
    for p, m in _entries(r, top, "unknown"):
        r.mapping(m, p, UNKNOWN_KEYS, required=("instance_type", "region", "purchase", "reason", "source", "as_of"))
        vals = instance_key(m, p) + (
            r.get(m, "reason", p, r.string),
            r.get(m, "source", p, r.string),
            r.get(m, "as_of", p, lambda v, q: _as_of(r, v, q)),
        )
        if None in vals:
            continue
        itype, region, purchase, reason, source, as_of = vals
        # one key is priced or said unknown, once: the same `seen` as the prices'
        if _repeated(r, seen, (itype, region, purchase), p, f"{itype} {purchase} in {region}"):
            continue
        unknown[(itype, region, purchase)] = Unknown(
            " ".join(reason.split()), source, as_of, name, r.get(m, "note", p, r.string)
        )
    derived: dict[tuple[str, str], Derivation] = {}
    for p, m in _entries(r, top, "derived"):
        r.mapping(m, p, DERIVED_KEYS, required=DERIVED_KEYS)
        vals = (
            r.get(m, "instance_type", p, type_conv),
            r.get(m, "purchase", p, r.choice(PURCHASES)),
            r.get(m, "from", p, type_conv),
            r.get(m, "basis", p, r.string),
        )
        if None not in vals and not _repeated(
            r, seen, ("derived", vals[0], vals[1]), p, f"{vals[0]} {vals[1]} (derived)"
        ):
            derived[(vals[0], vals[1])] = Derivation(*vals)
    declared = r.get(top, "as_of", (), lambda v, q: _as_of(r, v, q))
    if r.problems:
        raise InputError(r.problems)
    dates = [p.as_of for p in (*instances.values(), *lustre.values(), *ebs.values(), *tiering.values())] + [
        u.as_of for u in unknown.values()
    ]
    as_of = declared or max(dates, key=day, default=None)
    return PriceBook(name, instances, lustre, ebs, derived, unknown=unknown, as_of=as_of, lustre_tiering=tiering)


def parse_data(data: Any, origin: str, lines: Lines | None = None) -> PriceBook:
    """`data` (the price-book file's shape, as loaded from YAML) read exactly as `--price-book
    FILE` reads it; InputError with one problem per unusable key. `prices refresh` checks what
    it is about to write with this, so it never writes a book planner refuses."""
    return _parse(data, origin, lines or {})


def parse_override(text: str) -> Override:
    """`TYPE[:PURCHASE][@REGION]=USD_PER_HOUR`, checked like a stack's keys (did you mean)."""
    import math

    from planner.core.catalogue import instance_types as _catalogue
    from planner.core.reading.fields import _REGION, MAX_MAGNITUDE, SHOWN_CHARS, _closest

    def bad(why: str) -> InputError:
        shown = text if len(text) <= 2 * SHOWN_CHARS else text[: 2 * SHOWN_CHARS - 3] + "..."
        return InputError([Problem("<command line>", None, "--price", f"'{shown}': {why}")])

    key, eq, value = text.partition("=")
    if not eq:
        raise bad(
            "expected TYPE[:PURCHASE][@REGION]=USD_PER_HOUR, such as trn2.48xlarge:capacity-block@us-east-2=35.76"
        )
    try:
        usd = float(value)
    except ValueError:
        usd = math.nan
    if not (math.isfinite(usd) and 0 < usd <= MAX_MAGNITUDE):  # 1e308 x hours would overflow the estimate
        raise bad(
            f"expected a positive USD per instance-hour up to {MAX_MAGNITUDE:g} after '=', got '{value[:SHOWN_CHARS]}'"
        )
    key, at, region = key.partition("@")
    itype, colon, purchase = key.partition(":")
    cat = _catalogue.load()
    if not cat.lists(itype):
        raise bad(f"unknown instance type '{itype}'{_closest(itype, cat.all_names())}")
    if colon and purchase not in PURCHASES:
        raise bad(
            f"unknown purchase '{purchase}'{_closest(purchase, PURCHASES)}; expected one of: {', '.join(PURCHASES)}"
        )
    if at and not _REGION.fullmatch(region):
        raise bad(f"expected an AWS region such as us-east-2 after '@', got '{region}'")
    return Override(
        itype, cast(Purchase, purchase) if colon else None, region if at else None, usd, text
    )  # checked above


def load_file(path: str, base: PriceBook | None = None) -> PriceBook:
    """Read a price book file; layered over `base` when given."""
    data, lines = yamlload.load_path(path, "price book")
    if data is None:
        raise InputError(
            [Problem(path, None, "", "empty price book; expected a mapping with 'instances', 'lustre' and/or 'ebs'")]
        )
    if base is None:
        return _parse(data, path, lines)
    return base.overlay(data, path, lines)


@cache
def builtin(name: str) -> PriceBook:
    """A price book shipped in `planner/data/prices/NAME.yaml`; "current" over the generated on-demand prices."""
    data, lines = _data.raw(f"prices/{name}.yaml")
    book = _parse(data, f"planner/data/prices/{name}.yaml", lines)
    return replace(book, generated_on_demand=True) if name == DEFAULT else book


GENERATED_DIR = "prices/on-demand"  # one file per region, written by tools/gen_on_demand_prices.py
_REGION_FILE = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]")  # a region name, never a path


@cache
def generated_on_demand(region: str) -> Mapping[str, Price]:
    """The on-demand prices of every type in `region` from its generated file (none when there is no file):
    each names the dated copy of AWS's price data it was read from."""
    if not _REGION_FILE.fullmatch(region):
        return {}
    try:
        data = _data.raw(f"{GENERATED_DIR}/{region}.yaml")[0]
    except FileNotFoundError:
        return {}
    sources = data["sources"]
    out: dict[str, Price] = {}
    origin = f"planner/data/{GENERATED_DIR}/{region}.yaml"
    for itype, (usd, ref) in data["prices"].items():
        src = sources[ref]
        out[itype] = Price(float(usd), "instance-hour", src["url"], str(src["as_of"]), origin, None, src["note"])
    return out


def load_price_book(spec: str | None) -> PriceBook:
    """None or "current": the built-in book; "capacity-blocks-2024": the Capacity Block rates of late 2024
    (re:Invent 2024); a path: that file over "current"."""
    if spec is None or spec in BUILTIN:
        return builtin(spec or DEFAULT)
    if not os.path.isfile(spec):
        raise InputError(
            [
                Problem(
                    spec,
                    None,
                    "--price-book",
                    f"no such file; expected a YAML price book or one of: {', '.join(BUILTIN)}",
                )
            ]
        )
    return load_file(spec, builtin(DEFAULT))
