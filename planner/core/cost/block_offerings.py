"""Where and when a Capacity Block for a cluster can be bought, and which one to buy.

AWS prices each Capacity Block offering by supply and demand and answers only through
DescribeCapacityBlockOfferings, one region at a time, for one duration and one instance
(or UltraServer) count per call. This module is the arithmetic around those calls, with no
AWS client: which durations and counts to ask for (`queries`), how the offerings found
become options (`combine`: several blocks of up to 64 instances in one Availability Zone
with the same dates for a larger cluster), which option to pick (`choose`: the cheapest
that finishes before the deadline and within the budget), and what to run next (the
purchase commands and the stack keys, printed, never applied). The calls themselves are
`planner.aws.block_offering_requests`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue.shipped_data import local_zone_group
from planner.core.document import block_offerings_section as doc
from planner.core.input.fix_words import in_group_terms
from planner.core.model.findings import Edit
from planner.core.text.safe import excerpt

if TYPE_CHECKING:
    from planner.core.document.compare_section import Candidate

ACTION = "ec2:DescribeCapacityBlockOfferings"
EXTENSION_ACTION = "ec2:DescribeCapacityBlockExtensionOfferings"
OFFERINGS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockOfferings.html"
EXTENSION_DOC = (
    "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockExtensionOfferings.html"
)
PURCHASE_DOC = "https://docs.aws.amazon.com/cli/latest/reference/ec2/purchase-capacity-block.html"
# "Use DescribeAvailabilityZones to view the value for GroupName" (ModifyAvailabilityZoneGroup)
LOCAL_ZONE_OPT_IN_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyAvailabilityZoneGroup.html"
INSTANCE_PLATFORM = "Linux/UNIX"  # PurchaseCapacityBlock's InstancePlatform for the Linux AMIs ML clusters run
CURRENCY = "USD"
LOCAL_ZONE = "local-zone"  # CapacityBlockOffering.ZoneType of a Local Zone


# --- UltraServer types ------------------------------------------------------------------


def ultraserver_type(catalogue: Any, name: str, declared: str | None = None) -> Any:
    """The UltraServer type (`planner.core.catalogue.instance_types.UltraServerType`) a search for `name` is for, or None.

    `name` is an instance type or an UltraServer type (u-p6e-gb200x72); `declared` is a node
    group's `ultraserver_type`. A member type of several UltraServer types needs one named:
    NoBlock says which.
    """
    if declared is not None:
        return catalogue.ultraserver_types[declared]
    if name in catalogue.ultraserver_types:
        return catalogue.ultraserver_types[name]
    types = catalogue.ultraservers_of(name)
    if len(types) > 1:
        raise NoBlock(
            f"{name} is a member of several UltraServer types; expected one of them as --instance-type: "
            f"{', '.join(u.name for u in types)}"
        )
    return types[0] if types else None


# --- what to ask ------------------------------------------------------------------------


class Need(Struct, frozen=True):
    """One cluster to find blocks for: a type, how many, and the run's hours."""

    instance_type: str
    instances: int
    run_hours: float
    hours_basis: str  # where the hours came from: "--hours", "schedule.hours", "workload", ...
    ultraserver: Any = None  # planner.core.catalogue.instance_types.UltraServerType, for UltraServer Capacity Blocks

    @property
    def ultraservers(self) -> int | None:
        return None if self.ultraserver is None else self.instances // self.ultraserver.members

    @property
    def key(self) -> str:
        """What the search is for: the UltraServer type, else the instance type (regions' answers carry it)."""
        return self.instance_type if self.ultraserver is None else self.ultraserver.name


class Query(Struct, frozen=True):
    """One DescribeCapacityBlockOfferings request (asked in each region)."""

    duration_hours: int
    instance_type: str | None = None
    instance_count: int | None = None
    ultraserver_type: str | None = None
    ultraserver_count: int | None = None

    def params(self, earliest: dt.datetime | None, latest_end: dt.datetime | None) -> dict[str, Any]:
        """The API parameters; every zone is asked for, Local Zones included (they are marked, with their opt-in)."""
        p: dict[str, Any] = {"CapacityDurationHours": self.duration_hours, "AllAvailabilityZones": True}
        if self.ultraserver_type:
            p.update(UltraserverType=self.ultraserver_type, UltraserverCount=self.ultraserver_count)
        else:
            p.update(InstanceType=self.instance_type, InstanceCount=self.instance_count)
        if earliest is not None:
            p["StartDateRange"] = earliest
        if latest_end is not None:
            p["EndDateRange"] = latest_end
        return p

    def section(self) -> doc.CapacityQuery:
        if self.ultraserver_type:
            return doc.CapacityQuery(
                self.duration_hours, ultraserver_type=self.ultraserver_type, ultraserver_count=self.ultraserver_count
            )
        return doc.CapacityQuery(self.duration_hours, self.instance_type, self.instance_count)


class NoBlock(ValueError):
    """The need cannot be bought as Capacity Blocks at all (too long, too many): one line, exit 2.

    `key` is the option at fault, for the command's error line."""

    def __init__(self, message: str, key: str = "--instance-type"):
        super().__init__(message)
        self.key = key


# Offerings end at 11:30 UTC, the end closest to the duration asked: never more than half a day from it.
SHIFT_HOURS = blocks.HOURS_PER_DAY / 2


def durations(run_hours: float) -> tuple[int, ...]:
    """The bookable durations to ask for: every one whose offerings may cover the run, up to the first that must.

    Blocks end at 11:30 UTC, so the offerings for a duration are up to half a day shorter
    or longer than asked ("one block will have a duration that is slightly less than your
    desired duration, while the other will have a duration slightly greater",
    `blocks.PURCHASE_SOURCE`), and instances stop 30 minutes before the end: a duration a
    little under the run may still be long enough (`combine` checks each offering), and
    the first one whose shortest offering covers the run is the last worth paying for.
    """
    if run_hours > blocks.MAX_HOURS:
        raise NoBlock(
            f"a run of {run_hours:,.1f} h is longer than the longest Capacity Block "
            f"({blocks.describe(blocks.MAX_HOURS)}); "
            "split it across consecutive blocks and search for each",
            "--hours",
        )
    out: list[int] = []
    for h in blocks.bookable_hours():
        if blocks.usable_hours(h + SHIFT_HOURS) < run_hours:
            continue  # even its longest offerings are too short
        out.append(h)
        if blocks.usable_hours(h - SHIFT_HOURS) >= run_hours:
            break  # even its shortest offerings cover the run
    return tuple(out)


def block_sizes(instances: int) -> tuple[int, ...]:
    """Instances per block for a cluster: blocks of the most a block holds, then the rest (96 -> 64 + 32)."""
    if instances > blocks.MAX_INSTANCES_PER_ACCOUNT:
        raise NoBlock(
            f"{instances} instances is more than an account can hold across Capacity Blocks "
            f"({blocks.MAX_INSTANCES_PER_ACCOUNT}, {blocks.SOURCE})",
            "--count",
        )
    per = blocks.MAX_INSTANCES_PER_BLOCK
    full, rest = divmod(instances, per)
    return (per,) * full + ((rest,) if rest else ())


def queries(need: Need) -> tuple[Query, ...]:
    """Every request one region is asked for `need`: each duration, for each distinct block size."""
    out: list[Query] = []
    for hours in durations(need.run_hours):
        if need.ultraserver is not None:  # one block per UltraServer, asked for together; AWS's answer says how many
            out.append(Query(hours, ultraserver_type=need.ultraserver.name, ultraserver_count=need.ultraservers))
            continue
        for size in sorted(set(block_sizes(need.instances)), reverse=True):
            out.append(Query(hours, instance_type=need.instance_type, instance_count=size))
    return tuple(out)


def regions_sold(instance_type: str, catalogue: Any, book: Any) -> list[str]:
    """Regions where Capacity Blocks of the type are sold: a Capacity Block price in `book` (the Capacity
    Blocks pricing page's regions, per type) and no entry of planner/data/prices/not-sold.yaml against it."""
    from planner.core.cost.offers import not_sold

    if instance_type in catalogue.ultraserver_types:  # UltraServers: where the catalogue says they are sold
        u = catalogue.ultraserver_types[instance_type]
        return sorted(set(u.regions) | {z.region for z in u.local_zones})
    known = {r for t in catalogue.instance_types.values() for r in t.regions} | {k[1] for k in book.instances}
    return sorted(
        r
        for r in known
        if book.instance(instance_type, r, "capacity-block") is not None
        and not_sold(instance_type, r, "capacity-block") is None
    )


# --- what came back ---------------------------------------------------------------------


class Offering(Struct, frozen=True):
    """One CapacityBlockOffering, in one region."""

    offering_id: str
    region: str
    availability_zone: str
    instance_type: str
    instances: int
    start: dt.datetime
    end: dt.datetime
    hours: float  # CapacityBlockDurationHours + CapacityBlockDurationMinutes / 60
    upfront_fee: Decimal
    currency: str
    zone_type: str | None = None
    ultraserver_type: str | None = None
    ultraservers: int | None = None
    asked_hours: int = 0  # the duration asked for (a bookable one)
    zone_group: str | None = None  # a Local Zone's group as the account's DescribeAvailabilityZones names it

    @property
    def local_zone(self) -> bool:
        return self.zone_type == LOCAL_ZONE

    @property
    def opt_in_group(self) -> str:
        """The Local Zone's group to opt in to: the account's answer, else AWS's usual naming of the groups."""
        return self.zone_group or local_zone_group(self.availability_zone)


class BadOffering(ValueError):
    """An offering AWS's API would not send (missing or malformed field): the region's answer is not usable."""


_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,63}", re.ASCII)  # offering ids, zones, types: printed into shell commands


def aws_name(value: Any) -> str | None:
    """`value` when it is a short AWS name or id (safe to print into a shell command), else None."""
    return value if isinstance(value, str) and _ID.fullmatch(value) else None


def _token(value: Any, key: str) -> str:
    """A value AWS sends as a short name or id; anything else (quotes, spaces, line breaks) is not AWS's answer."""
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise BadOffering(f"{key} {excerpt(value)} is not an AWS name")
    return value


# What an offering may say and still be AWS's (docs/security.md, "AWS answers are untrusted input"):
# a Capacity Block lasts at most 182 days and holds at most 64 instances (AWS's limits; the
# bounds below leave room for AWS raising them), costs a finite, non-negative amount that a
# float holds exactly to the cent, and starts and ends on dates that date arithmetic can use.
MAX_FEE = Decimal(10) ** 12  # USD: a 64-instance block of 182 days at 10,000 USD/h is 2.8e9
MAX_BLOCK_HOURS = 24 * 366
MAX_BLOCK_COUNT = 10_000  # instances (or UltraServers) in one offering
FIRST_YEAR, LAST_YEAR = 2000, 9000  # a date outside is no quote: and 9999 + hours overflows datetime


def _count(value: Any, key: str, oid: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadOffering(f"offering {oid}: {key} {excerpt(value)} is not a whole number from {low:,} to {high:,}")
    return value


def _utc(value: Any, key: str) -> dt.datetime:
    if not isinstance(value, dt.datetime):
        raise BadOffering(f"{key} {excerpt(value)} is not a date")
    when = value.astimezone(dt.UTC) if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if not FIRST_YEAR <= when.year <= LAST_YEAR:
        raise BadOffering(f"{key} {when.isoformat()} is not a date from {FIRST_YEAR} to {LAST_YEAR}")
    return when


def offering_from_api(region: str, d: Mapping[str, Any], asked_hours: int) -> Offering:
    """A CapacityBlockOffering record (as botocore parses it) as an `Offering`; BadOffering when it is
    not one: every field AWS sends is checked (names, finite non-negative fee, counts, dates in range)."""
    try:
        oid = _token(d["CapacityBlockOfferingId"], "CapacityBlockOfferingId")
        az = _token(d["AvailabilityZone"], "AvailabilityZone")
        raw_fee = d["UpfrontFee"]
    except KeyError as missing:
        raise BadOffering(f"an offering without {excerpt(missing.args[0])}") from None
    try:
        fee = Decimal(str(raw_fee)) if isinstance(raw_fee, str | int | float | Decimal) else Decimal("NaN")
    except (InvalidOperation, ValueError):
        raise BadOffering(f"UpfrontFee {excerpt(raw_fee)} is not a number") from None
    if not fee.is_finite() or fee < 0 or fee > MAX_FEE or fee.is_signed():
        raise BadOffering(f"UpfrontFee {excerpt(raw_fee)} is not an amount from 0 to {MAX_FEE:,} USD")
    if d.get("CapacityBlockDurationHours") is None:
        raise BadOffering(f"offering {oid}: CapacityBlockDurationHours missing")
    hours = _count(d.get("CapacityBlockDurationHours"), "CapacityBlockDurationHours", oid, 1, MAX_BLOCK_HOURS)
    minutes = _count(d.get("CapacityBlockDurationMinutes") or 0, "CapacityBlockDurationMinutes", oid, 0, 59)
    count = d.get("InstanceCount")
    if d.get("UltraserverType") and count is None:
        count = 0  # an UltraServer offering may count UltraServers only: `Option.instances` counts their members
    elif count is None:
        raise BadOffering(f"offering {oid}: InstanceCount missing")
    else:
        count = _count(count, "InstanceCount", oid, 0 if d.get("UltraserverType") else 1, MAX_BLOCK_COUNT)
    ultraservers = d.get("UltraserverCount")
    if ultraservers is not None:
        ultraservers = _count(ultraservers, "UltraserverCount", oid, 1, MAX_BLOCK_COUNT)
    itype = _token(d["InstanceType"], "InstanceType") if d.get("InstanceType") else ""
    us = _token(d["UltraserverType"], "UltraserverType") if d.get("UltraserverType") else None
    start, end = _utc(d.get("StartDate"), "StartDate"), _utc(d.get("EndDate"), "EndDate")
    if end <= start:
        raise BadOffering(f"offering {oid}: EndDate {end.isoformat()} is not after StartDate {start.isoformat()}")
    currency = d.get("CurrencyCode") or ""
    zone_type = d.get("ZoneType")
    return Offering(
        oid,
        region,
        az,
        itype,
        count,
        start,
        end,
        hours + minutes / 60,
        fee,
        _token(currency, "CurrencyCode") if currency else "",
        None if zone_type is None else _token(zone_type, "ZoneType"),
        us,
        ultraservers,
        asked_hours,
    )


# --- options and the pick ---------------------------------------------------------------


class Option(Struct, frozen=True):
    """What can be bought: one block, or several in one zone with the same dates, for the whole cluster."""

    offerings: tuple[Offering, ...]
    need: Need
    deadline: dt.datetime | None = None

    @property
    def run_hours(self) -> float:
        return self.need.run_hours

    @property
    def first(self) -> Offering:
        return self.offerings[0]

    @property
    def blocks(self) -> tuple[int, ...]:
        """Instances per offering; for UltraServers their members, whatever InstanceCount says."""
        if self.need.ultraserver is not None:
            return tuple((o.ultraservers or 0) * self.need.ultraserver.members for o in self.offerings)
        return tuple(o.instances for o in self.offerings)

    @property
    def instances(self) -> int:
        return sum(self.blocks)

    @property
    def upfront_usd(self) -> Decimal:
        return sum((o.upfront_fee for o in self.offerings), Decimal(0))

    @property
    def usd_per_instance_hour(self) -> float:
        return float(self.upfront_usd) / (self.instances * self.first.hours)

    @property
    def usable_hours(self) -> float:
        return blocks.usable_hours(self.first.hours)

    @property
    def finish(self) -> dt.datetime:
        """When the run ends if it starts when the block does."""
        return self.first.start + dt.timedelta(hours=self.run_hours)

    @property
    def meets_deadline(self) -> bool | None:
        return None if self.deadline is None else self.finish <= self.deadline

    def sort_key(self) -> tuple[Any, ...]:
        return (
            self.upfront_usd,
            self.finish,
            self.first.region,
            self.first.availability_zone,
            tuple(o.offering_id for o in self.offerings),
            self.need.instance_type,
        )


def combine(
    need: Need, offerings: Iterable[Offering], deadline: dt.datetime | None = None
) -> tuple[list[Option], list[str]]:
    """The options for `need` among `offerings` (every region), cheapest first, and notes on what was left out.

    An offering counts when it is for the type (or UltraServer type) and count asked, in
    USD, and long enough to run the job once AWS's termination lead is taken off. A cluster
    larger than one block takes one offering per block size, all in one Availability Zone
    with the same start and end (one placement, one schedule); an offering is used once.
    """
    notes: list[str] = []
    usable: list[Offering] = []
    short = other_currency = 0
    for o in offerings:
        if o.currency != CURRENCY:
            other_currency += 1
            continue
        if blocks.usable_hours(o.hours) < need.run_hours:
            short += 1
            continue
        usable.append(o)
    if short:
        notes.append(
            f"{short} offering{'s' if short != 1 else ''} left out: too short once instances stop "
            f"{blocks.TERMINATION_LEAD_HOURS * 60:.0f} minutes before the block ends ({blocks.TERMINATION_SOURCE})"
        )
    if other_currency:
        notes.append(
            f"{other_currency} offering{'s' if other_currency != 1 else ''} left out: priced in a currency other than {CURRENCY}"
        )
    options: list[Option] = []
    if need.ultraserver is not None:
        options = [
            Option((o,), need, deadline)
            for o in usable
            if o.ultraserver_type == need.ultraserver.name and o.ultraservers == need.ultraservers
        ]
    else:
        sizes = block_sizes(need.instances)
        mine = [o for o in usable if o.instance_type in ("", need.instance_type)]
        if len(sizes) == 1:
            options = [Option((o,), need, deadline) for o in mine if o.instances == sizes[0]]
        else:
            groups: dict[tuple[str, str, dt.datetime, dt.datetime], list[Offering]] = {}
            for o in mine:
                groups.setdefault((o.region, o.availability_zone, o.start, o.end), []).append(o)
            for _, found in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], kv[0][3])):
                picked = _fill(sizes, found)
                if picked is not None:
                    options.append(Option(picked, need, deadline))
            if mine and not options:
                notes.append(
                    f"no Availability Zone had {len(sizes)} blocks ({' + '.join(map(str, sizes))} instances) "
                    "with the same dates"
                )
    options.sort(key=Option.sort_key)
    return options, notes


def _fill(sizes: Sequence[int], found: list[Offering]) -> tuple[Offering, ...] | None:
    """One distinct offering per block size (the cheapest of each), or None when the zone lacks one."""
    left = sorted(found, key=lambda o: (o.upfront_fee, o.offering_id))
    picked: list[Offering] = []
    for size in sizes:
        o = next((x for x in left if x.instances == size), None)
        if o is None:
            return None
        left.remove(o)
        picked.append(o)
    return tuple(picked)


class Pick(Struct, frozen=True):
    """The option to buy, and whether it fits (deadline and budget); `why` says what it misses."""

    option: Option | None
    fits: bool
    why: str | None = None


def choose(options: Sequence[Option], deadline: dt.datetime | None, max_usd: float | None) -> Pick:
    """The cheapest option that finishes in time and within the budget; else the one that finishes first."""

    def in_budget(o: Option) -> bool:
        return max_usd is None or o.upfront_usd <= Decimal(str(max_usd))

    fitting = [o for o in options if o.meets_deadline is not False and in_budget(o)]
    if fitting:
        return Pick(min(fitting, key=Option.sort_key), True)
    if not options:
        return Pick(None, False, "no offering was found for this cluster")
    best = min(options, key=lambda o: (o.finish, o.sort_key()))
    in_time = [o for o in options if o.meets_deadline is not False]
    if not in_time:
        why = f"no option finishes by the deadline {iso(deadline)}"
    else:
        why = (
            f"every option that finishes in time costs more than --max-usd ${max_usd:,.2f} (the cheapest: "
            f"${min(in_time, key=Option.sort_key).upfront_usd:,.2f})"
        )
    return Pick(best, False, why + "; shown: the option that finishes first")


def iso(t: dt.datetime | None) -> str | None:
    """`2026-12-08T11:30:00Z`: UTC, to the second, as JSON and the reports show times."""
    if t is None:
        return None
    return t.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


# --- what to do next --------------------------------------------------------------------


def local_zone_notes(options: Sequence[Option]) -> list[str]:
    """What the opt-in group of a Local Zone option is when the account did not name it (DescribeAvailabilityZones
    unanswered): a name by AWS's usual naming, said as such."""
    zones = sorted({o.first.availability_zone for o in options if o.first.local_zone and o.first.zone_group is None})
    return [
        f"{z} is a Local Zone: its opt-in group {local_zone_group(z)} is the zone less its last letter, as AWS "
        "usually names Local Zone groups (the Route 53 API documentation of LocalZoneGroup); `aws ec2 "
        "describe-availability-zones --all-availability-zones` prints the account's GroupName and opt-in status"
        for z in zones
    ]


def purchase_commands(option: Option) -> list[str]:
    """The AWS CLI commands that buy the option (one per block), and the opt-in a Local Zone needs first."""
    out: list[str] = []
    first = option.first
    if first.local_zone:  # confirm the zone's group and opt-in status, then opt in (once per account)
        out.append(
            f"aws ec2 describe-availability-zones --region {first.region} --all-availability-zones "
            f"--zone-names {first.availability_zone} --query 'AvailabilityZones[].[GroupName,OptInStatus]'"
        )
        out.append(
            f"aws ec2 modify-availability-zone-group --region {first.region} --group-name "
            f"{first.opt_in_group} --opt-in-status opted-in"
        )
    out += [
        f"aws ec2 purchase-capacity-block --region {o.region} --capacity-block-offering-id {o.offering_id} "
        f"--instance-platform {INSTANCE_PLATFORM}"
        for o in option.offerings
    ]
    return out


def next_edits(option: Option, group: int = 0) -> tuple[Edit, ...]:
    """The edits to make once the blocks are bought (never written by planner): the node group at index `group`
    of the stack bought as a Capacity Block, in the block's AZ, with the reservation its purchase prints, and
    the schedule of the block's hours."""
    first = option.first
    note = "CapacityReservation.CapacityReservationId that the purchase prints"
    if len(option.offerings) > 1:
        note = (
            f"a node group per block ({len(option.offerings)}), each with the CapacityReservationId its purchase prints"
        )
    elif first.ultraserver_type:
        note = "the reservation ids the purchase prints (CapacityBlocks[].CapacityReservationIds), one per UltraServer"
    at = ("node_groups", group)
    return (
        Edit((*at, "purchase"), "set", "capacity-block"),
        Edit((*at, "availability_zone"), "set", first.availability_zone),
        Edit((*at, "capacity_reservation_ids"), "set", ("cr-...",), note),
        Edit(("schedule", "hours"), "set", first.asked_hours or round(first.hours)),
    )


# --- the whole answer -------------------------------------------------------------------


class RegionAnswer(Struct):
    """What one region was asked and what it said: offerings, or the one line why not."""

    region: str
    asked: tuple[Query, ...] = ()
    offerings: tuple[Offering, ...] = ()
    error: str | None = None
    code: str | None = None  # the AWS error code, or planner's (Timeout, NotAws)
    instance_type: str = ""  # the need it was asked for

    def section(self) -> doc.RegionAnswer:
        return doc.RegionAnswer(
            self.region,
            self.instance_type,
            tuple(q.section() for q in self.asked),
            len(self.offerings),
            tuple(o.offering_id for o in self.offerings),
            self.error,
            self.code,
        )


class Search(Struct):
    """Everything `planner capacity` answers: what was needed, each region's answer, the options and the pick.

    Several needs are alternatives (`--instance-type` given more than once): their options
    are ranked together and one is picked.
    """

    needs: list[Need]
    regions: list[RegionAnswer]
    earliest: dt.datetime | None
    deadline: dt.datetime | None
    max_usd: float | None
    node_group: str | None = None
    source: str = ""  # the stack file, or "<command line>"
    options: list[Option] = field(default_factory=list)
    group_index: int = 0  # the node group's index in the stack (0: a search from the command line)
    pick: Pick = field(default_factory=lambda: Pick(None, False))
    notes: list[str] = field(default_factory=list)

    @property
    def answered(self) -> list[RegionAnswer]:
        return [r for r in self.regions if r.error is None]

    def exit_code(self) -> int:
        """0 when the pick fits; 1 when there is none, or it misses the deadline or --max-usd."""
        return 0 if self.pick.option is not None and self.pick.fits else 1

    def next_edits(self) -> tuple[Edit, ...]:
        """What to set once the pick is bought, as edits of the stack (`next_edits`); none without a pick."""
        option = self.pick.option
        return () if option is None else next_edits(option, self.group_index)

    def section(self) -> doc.CapacitySearch:
        """The search as the document's capacity section: the keys to set next in the stack file's words."""
        option = self.pick.option
        keys = tuple(in_group_terms(self.node_group, e) for e in self.next_edits())
        return doc.CapacitySearch(
            tuple(need_section(n) for n in self.needs),
            self.node_group,
            self.source,
            iso(self.earliest),
            iso(self.deadline),
            self.max_usd,
            tuple(r.section() for r in self.regions),
            tuple(option_section(o) for o in self.options),
            None if option is None else doc.CapacityPick(option_section(option), self.pick.fits, self.pick.why),
            None if option is None else doc.NextSteps(tuple(purchase_commands(option)), keys),
            (*self.notes, *local_zone_notes(self.options)),
            OFFERINGS_DOC,
            PURCHASE_DOC,
            round(blocks.TERMINATION_LEAD_HOURS * 60),
        )


def answer(
    needs: Sequence[Need],
    regions: list[RegionAnswer],
    earliest: dt.datetime | None,
    deadline: dt.datetime | None,
    max_usd: float | None,
    node_group: str | None = None,
    source: str = "",
    notes: Sequence[str] = (),
    group_index: int = 0,
) -> Search:
    """The options of every need from what the regions answered, ranked, and the pick (`group_index`: the node
    group's index in the stack, for the edits to make next)."""
    out = Search(
        list(needs),
        regions,
        earliest,
        deadline,
        max_usd,
        node_group,
        source,
        notes=list(notes),
        group_index=group_index,
    )
    for need in needs:
        found = [o for r in regions if r.instance_type == need.key for o in r.offerings]
        options, left = combine(need, found, deadline)
        out.options += options
        out.notes += [f"{need.key}: {n}" if len(needs) > 1 else n for n in left]
    out.options.sort(key=Option.sort_key)
    out.pick = choose(out.options, deadline, max_usd)
    return out


def need_section(n: Need) -> doc.CapacityNeed:
    return doc.CapacityNeed(
        n.instance_type,
        n.instances,
        None if n.ultraserver is None else n.ultraserver.name,
        n.ultraservers,
        round(n.run_hours, 3),
        n.hours_basis,
    )


def option_section(o: Option) -> doc.CapacityOption:
    first = o.first
    return doc.CapacityOption(
        instance_type=o.need.instance_type,
        ultraserver_type=first.ultraserver_type,
        offering_ids=tuple(x.offering_id for x in o.offerings),
        region=first.region,
        availability_zone=first.availability_zone,
        local_zone=first.local_zone,
        opt_in_group=first.opt_in_group if first.local_zone else None,
        start=iso(first.start),
        end=iso(first.end),
        hours=round(first.hours, 3),
        usable_hours=round(o.usable_hours, 3),
        instances=o.instances,
        blocks=tuple(o.blocks),
        upfront_usd=float(o.upfront_usd),
        usd_per_instance_hour=round(o.usd_per_instance_hour, 4),
        finish=iso(o.finish),
        meets_deadline=o.meets_deadline,
    )


# --- a block already bought: is it long enough, else its extension offerings ------------


class Reservation(Struct, frozen=True):
    """The capacity reservation of a Capacity Block the stack names (DescribeCapacityReservations)."""

    reservation_id: str
    region: str
    availability_zone: str
    instance_type: str
    instances: int
    start: dt.datetime
    end: dt.datetime

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600

    @property
    def usable_hours(self) -> float:
        return blocks.usable_hours(self.hours)


def reservation_from_api(region: str, d: Mapping[str, Any]) -> Reservation:
    """A CapacityReservation record as a `Reservation`; BadOffering when a Capacity Block's fields are missing."""
    try:
        return Reservation(
            _token(d["CapacityReservationId"], "CapacityReservationId"),
            region,
            _token(d["AvailabilityZone"], "AvailabilityZone"),
            _token(d["InstanceType"], "InstanceType"),
            int(d.get("TotalInstanceCount") or 0),
            _utc(d.get("StartDate"), "StartDate"),
            _utc(d.get("EndDate"), "EndDate"),
        )
    except KeyError as missing:
        raise BadOffering(f"a capacity reservation without {missing.args[0]}") from None


class Extension(Struct, frozen=True):
    """One CapacityBlockExtensionOffering: more hours for the block, at the end it already has."""

    offering_id: str
    start: dt.datetime
    end: dt.datetime
    hours: int
    upfront_fee: Decimal
    currency: str


def extension_hours(missing_hours: float) -> tuple[int, ...]:
    """The extension to ask for: the shortest bookable duration covering the hours missing. An extension
    starts when the block ends (11:30 UTC) and ends at 11:30 UTC, so it is exactly as long as asked."""
    hours = blocks.round_up_to_block(missing_hours)
    if hours is None:
        raise NoBlock(
            f"the run needs {missing_hours:,.1f} h more than the block has, more than the longest extension "
            f"({blocks.describe(blocks.MAX_HOURS)})",
            "--hours",
        )
    return (hours,)


def extension_from_api(d: Mapping[str, Any]) -> Extension:
    try:
        fee = Decimal(str(d["UpfrontFee"]))
        return Extension(
            _token(d["CapacityBlockExtensionOfferingId"], "CapacityBlockExtensionOfferingId"),
            _utc(d.get("CapacityBlockExtensionStartDate"), "CapacityBlockExtensionStartDate"),
            _utc(d.get("CapacityBlockExtensionEndDate"), "CapacityBlockExtensionEndDate"),
            int(d["CapacityBlockExtensionDurationHours"]),
            fee,
            str(d.get("CurrencyCode") or ""),
        )
    except KeyError as missing:
        raise BadOffering(f"an extension offering without {missing.args[0]}") from None
    except (InvalidOperation, ValueError, TypeError):
        raise BadOffering("an extension offering whose fee or duration is not a number") from None


class Booked(Struct):
    """One of the group's booked blocks (one per UltraServer) and, when it is too short, its extension offerings."""

    reservation_id: str
    reservation: Reservation | None = None
    extensions: list[Extension] = field(default_factory=list)
    asked: tuple[int, ...] = ()
    error: str | None = None  # this id is not a reservation AWS returned


class ExtensionSearch(Struct):
    """A stack whose node group names its blocks: do they cover the run, and if not, which extensions to buy.

    A group of several UltraServers names one block per UltraServer; they are read in one
    DescribeCapacityReservations call and judged together: the run starts when the last block
    starts, and each block must last (less AWS's 30 minutes) until the run ends, else it gets
    its own extension offerings.
    """

    need: Need
    reservation_ids: tuple[str, ...]
    region: str
    deadline: dt.datetime | None
    max_usd: float | None
    node_group: str | None = None
    source: str = ""
    booked: list[Booked] = field(default_factory=list)
    error: str | None = None  # the call itself failed (access denied, timeout, not AWS's answer)
    resource_group_arn: str | None = None  # the group launches into a resource group: its ids are read from it

    def __post_init__(self) -> None:
        if not self.booked:
            self.use(self.reservation_ids)

    def use(self, ids: Sequence[str]) -> None:
        """The blocks to read (from the stack, or from its resource group)."""
        self.reservation_ids = tuple(ids)
        self.booked = [Booked(rid) for rid in self.reservation_ids]

    @property
    def read(self) -> list[Reservation]:
        return [b.reservation for b in self.booked if b.reservation is not None]

    @property
    def complete(self) -> bool:
        """Every named block was read."""
        return self.error is None and bool(self.booked) and all(b.reservation is not None for b in self.booked)

    @property
    def run_start(self) -> dt.datetime | None:
        """The run needs every UltraServer: it starts when the last block does."""
        return max((r.start for r in self.read), default=None)

    @property
    def finish(self) -> dt.datetime | None:
        start = self.run_start
        return None if start is None else start + dt.timedelta(hours=self.need.run_hours)

    def _usable_until(self, end: dt.datetime) -> float:
        """Hours instances run from the run's start to a block ending at `end`."""
        assert self.run_start is not None
        return blocks.usable_hours((end - self.run_start).total_seconds() / 3600)

    def missing_hours(self, b: Booked) -> float:
        """How many hours block `b` falls short of the run's end (0 when it covers it)."""
        assert b.reservation is not None
        return max(0.0, self.need.run_hours - self._usable_until(b.reservation.end))

    def covers(self, b: Booked) -> bool:
        return b.reservation is not None and self.missing_hours(b) == 0

    @property
    def covered(self) -> bool:
        return self.complete and all(self.covers(b) for b in self.booked)

    def hours_after(self, e: Extension) -> float:
        return self._usable_until(e.end)

    def fitting(self, b: Booked) -> list[Extension]:
        """Block `b`'s extensions in USD that give the run its hours, cheapest first."""
        ok = [e for e in b.extensions if e.currency == CURRENCY and self.hours_after(e) >= self.need.run_hours]
        return sorted(ok, key=lambda e: (e.upfront_fee, e.end, e.offering_id))

    def picks(self) -> dict[str, Extension] | None:
        """The cheapest fitting extension of every block too short; None when a block has none."""
        out: dict[str, Extension] = {}
        for b in self.booked:
            if self.covers(b):
                continue
            fits = self.fitting(b)
            if b.reservation is None or not fits:
                return None
            out[b.reservation_id] = fits[0]
        return out

    def upfront(self, picks: Mapping[str, Extension]) -> Decimal:
        return sum((e.upfront_fee for e in picks.values()), Decimal(0))

    def within_budget(self, picks: Mapping[str, Extension]) -> bool:
        return self.max_usd is None or self.upfront(picks) <= Decimal(str(self.max_usd))

    def exit_code(self) -> int:
        """0 when the blocks cover the run (or extensions that fit, within --max-usd, do) by the deadline; else 1."""
        if not self.complete:
            return 1
        in_time = self.deadline is None or (self.finish is not None and self.finish <= self.deadline)
        picks = None if self.covered else self.picks()
        return 0 if in_time and (self.covered or (picks is not None and self.within_budget(picks))) else 1

    def _block(self, b: Booked, pick: Extension | None) -> doc.BookedBlock:
        r = b.reservation
        return doc.BookedBlock(
            capacity_reservation_id=b.reservation_id,
            availability_zone=None if r is None else r.availability_zone,
            instance_type=None if r is None else r.instance_type,
            instances=None if r is None else r.instances,
            start=None if r is None else iso(r.start),
            end=None if r is None else iso(r.end),
            hours=None if r is None else round(r.hours, 3),
            usable_hours=None if r is None else round(r.usable_hours, 3),
            covers_run=self.covers(b),
            error=b.error,
            short_by_hours=None if r is None else round(self.missing_hours(b), 3),
            asked_extension_hours=tuple(b.asked),
            extensions=tuple(
                doc.ExtensionOffer(
                    e.offering_id,
                    iso(e.start),
                    iso(e.end),
                    e.hours,
                    None if r is None else round(self.hours_after(e), 3),
                    float(e.upfront_fee),
                    e.currency,
                )
                for e in sorted(b.extensions, key=lambda e: (e.upfront_fee, e.end, e.offering_id))
            ),
            pick=None if pick is None else doc.ExtensionPick(pick.offering_id, float(pick.upfront_fee), iso(pick.end)),
        )

    def section(self) -> doc.CapacityExtension:
        """The check as the document's capacity section."""
        picks = {} if self.covered or not self.complete else (self.picks() or {})
        fits = bool(picks) and len(picks) == sum(1 for b in self.booked if not self.covers(b))
        ids = self.reservation_ids
        named = ids[0] if len(ids) == 1 else f"[{', '.join(ids)}]"
        key = "capacity_reservation_id"
        lengthens = (
            "the extension lengthens this reservation"
            if len(ids) == 1
            else f"the extension lengthens {', '.join(picks)}"
            if len(picks) == 1
            else f"each extension lengthens its reservation ({', '.join(picks)})"
        )
        if self.resource_group_arn is not None:
            key, named = "capacity_reservation_resource_group_arn", self.resource_group_arn
        return doc.CapacityExtension(
            need=need_section(self.need),
            node_group=self.node_group,
            source=self.source,
            deadline=iso(self.deadline),
            max_usd=self.max_usd,
            region=self.region,
            resource_group_arn=self.resource_group_arn,
            error=self.error,
            run_start=iso(self.run_start),
            finish=iso(self.finish),
            covers_run=self.covered,
            meets_deadline=None if self.deadline is None or self.finish is None else self.finish <= self.deadline,
            reservations=tuple(self._block(b, picks.get(b.reservation_id)) for b in self.booked),
            extension_upfront_usd=float(self.upfront(picks)) if fits else None,
            within_budget=self.within_budget(picks) if fits else None,
            next=None
            if not fits
            else doc.NextSteps(
                tuple(
                    f"aws ec2 purchase-capacity-block-extension --region {self.region} "
                    f"--capacity-block-extension-offering-id {e.offering_id} "
                    f"--capacity-reservation-id {rid}"
                    for rid, e in picks.items()
                ),
                (
                    f"{key}: {named} (unchanged: {lengthens}, which then ends "
                    f"{', '.join(sorted({iso(e.end) or '' for e in picks.values()}))})",
                ),
            ),
            source_page=EXTENSION_DOC,
        )


# --- compare --capacity and plan --live-prices: offerings beside the book ---------------


def priced_from_offerings(
    candidate: Candidate, options: Sequence[Option], why_none: str | None, as_of: str
) -> Candidate:
    """A compare candidate (Capacity Block) priced from the cheapest offering found, the book's figure beside it.

    With no offering the candidate keeps the book's price, with a note saying why (none
    offered, or the region's one-line fault).
    """
    from msgspec.structs import replace

    from planner.core.document.compare_section import BookPrice, Offered
    from planner.core.text.numbers import num, usd

    c = candidate
    if not options:
        return replace(
            c,
            offered=Offered(None),
            notes=(
                *c.notes,
                (
                    f"no Capacity Block offering for {c.instances:,} instances and {num(c.run_hours)} h "
                    f"({why_none or 'none offered'}): priced from the book"
                ),
            ),
        )
    book = BookPrice(c.usd_per_hour, c.total_usd, c.source, c.as_of, c.price_book)
    o = options[0]
    rate = round(o.usd_per_instance_hour, 4)
    peak = c.dense_pflops_per_instance
    ids = " + ".join(x.offering_id for x in o.offerings)
    note = (
        f"priced from the offering {ids} in {o.first.availability_zone}, {iso(o.first.start)} to {iso(o.first.end)}: "
        f"{usd(float(o.upfront_usd))} upfront; the book's figure: {usd(book.usd_per_hour)}/h, "
        f"{usd(book.total_usd)} in all ({book.as_of})"
    )
    return replace(
        c,
        usd_per_hour=rate,
        total_usd=float(o.upfront_usd),
        billed_hours=round(o.first.hours, 3),
        source=f"{OFFERINGS_DOC} ({ids})",
        as_of=as_of,
        price_book="Capacity Block offerings",
        usd_per_dense_pflop_hour=round(rate / peak, 4) if peak else None,
        offered=Offered(option_section(o), book),
        notes=(*c.notes, note),
    )


DEVIATION = 0.25  # plan --live-prices: a book price this far (25 %) from what AWS offers now is reported


def deviation(book_usd_per_hour: float, options: Sequence[Option]) -> tuple[float, Option] | None:
    """How far the book's Capacity Block price is from the cheapest offering (a fraction), when beyond DEVIATION."""
    if not options or book_usd_per_hour <= 0:
        return None
    o = options[0]
    off = (o.usd_per_instance_hour - book_usd_per_hour) / book_usd_per_hour
    return (off, o) if abs(off) >= DEVIATION else None
