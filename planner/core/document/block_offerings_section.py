"""The capacity section of the document: what `planner capacity` found, in one typed value.

Two answers, one section: a search (`CapacitySearch`: the offerings DescribeCapacityBlockOfferings
showed in each region, ranked, and the pick) or a stack's own blocks (`CapacityExtension`: do
the booked Capacity Blocks cover the run, else their extension offerings). Every figure is as
the producer (`planner.core.cost.block_offerings`) rounded it, times are ISO strings in UTC (`...Z`), so
the renderers format and never compute; the codec (`planner.core.document.codec`) writes and
reads them (a search and an extension check are told apart by their keys: only the latter has
`reservations`).
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Struct

from planner.core.document.codec import key


class CapacityNeed(Struct, frozen=True):
    """One cluster searched for: a type, how many (whole UltraServers for member types), the run's hours."""

    instance_type: str
    instances: int
    ultraserver_type: str | None
    ultraservers: int | None
    run_hours: float
    hours_basis: str  # where the hours came from: "--hours", "schedule.hours", "workload"


class CapacityQuery(Struct, frozen=True):
    """One DescribeCapacityBlockOfferings request: a duration and an instance, or UltraServer, count."""

    capacity_duration_hours: int
    # an instance count, or an UltraServer count: the JSON has the pair that was asked
    instance_type: Annotated[str | None, key(omit=("when", "ultraserver_type"))] = None
    instance_count: Annotated[int | None, key(omit=("when", "ultraserver_type"))] = None
    ultraserver_type: Annotated[str | None, key(omit=("unless", "ultraserver_type"))] = None
    ultraserver_count: Annotated[int | None, key(omit=("unless", "ultraserver_type"))] = None


class RegionAnswer(Struct, frozen=True):
    """What one region was asked and what it said: how many offerings, or the one line why none could be read."""

    region: str
    instance_type: str  # the need it was asked for (an UltraServer type for UltraServer searches)
    asked: tuple[CapacityQuery, ...]
    offerings: int
    offering_ids: tuple[str, ...]
    error: str | None
    code: str | None  # the AWS error code, or planner's (Timeout, NotAws)


class CapacityOption(Struct, frozen=True):
    """One way to buy the cluster: one offering, or several of the same dates in one Availability Zone."""

    instance_type: str
    ultraserver_type: str | None
    offering_ids: tuple[str, ...]
    region: str
    availability_zone: str
    local_zone: bool
    opt_in_group: str | None  # a Local Zone's zone group (opted into before buying)
    start: str | None
    end: str | None
    hours: float
    usable_hours: float
    instances: int
    blocks: tuple[int, ...]  # instances per block
    upfront_usd: float
    usd_per_instance_hour: float
    finish: str | None
    meets_deadline: bool | None


class CapacityPick(Struct, frozen=True):
    """The option to buy, whether it fits the deadline and budget, and what it misses when not."""

    option: Annotated[CapacityOption, key(flatten=True)]  # its keys, then `fits` and `why`
    fits: bool
    why: str | None


class NextSteps(Struct, frozen=True):
    """What to run and set after: printed, never run by planner."""

    purchase_commands: tuple[str, ...]
    stack_keys: tuple[str, ...]
    # a program's cluster: the program whose resources `stack_keys` name (None: a stack file's keys)
    program: Annotated[str | None, key(omit="none")] = None


class CapacitySearch(Struct, frozen=True):
    """A search: what was needed, each region's answer, the options ranked, and the pick.

    Several needs are alternatives (`--instance-type` given more than once), ranked together.
    """

    needs: tuple[CapacityNeed, ...]
    node_group: str | None
    source: str  # the stack file, or "<command line>"
    earliest: str | None
    deadline: str | None
    max_usd: float | None
    regions: tuple[RegionAnswer, ...]
    options: tuple[CapacityOption, ...]
    pick: CapacityPick | None
    next: NextSteps | None
    notes: tuple[str, ...]
    source_page: str
    purchase_source: str
    termination_lead_minutes: int  # AWS stops a block's instances this long before it ends

    @property
    def fits(self) -> bool:
        return self.pick is not None and self.pick.fits

    def exit_code(self) -> int:
        """0 when the pick fits; 1 when there is none, or it misses the deadline or --max-usd."""
        return 0 if self.fits else 1


class ExtensionOffer(Struct, frozen=True):
    """One DescribeCapacityBlockExtensionOfferings offering for a booked block."""

    offering_id: str
    start: str | None
    end: str | None
    hours: int
    usable_hours_after: float | None
    upfront_usd: float
    currency: str


class ExtensionPick(Struct, frozen=True):
    """The extension chosen for a block too short: the cheapest that gives the run its hours."""

    offering_id: str
    upfront_usd: float
    end: str | None


class BookedBlock(Struct, frozen=True):
    """A Capacity Block the stack names (DescribeCapacityReservations); None figures: it could not be read."""

    capacity_reservation_id: str
    availability_zone: str | None
    instance_type: str | None
    instances: int | None
    start: str | None
    end: str | None
    hours: float | None
    usable_hours: float | None
    covers_run: bool
    error: str | None
    short_by_hours: float | None
    asked_extension_hours: tuple[int, ...]
    extensions: tuple[ExtensionOffer, ...]  # cheapest first
    pick: ExtensionPick | None


class CapacityExtension(Struct, frozen=True):
    """A stack's booked blocks: whether they cover the run, else each one's extension offerings and what to run."""

    need: Annotated[CapacityNeed, key("needs", shape="one")]  # a list of one, as a search's `needs`
    node_group: str | None
    source: str
    deadline: str | None
    max_usd: float | None
    region: str
    resource_group_arn: str | None
    error: str | None  # the one line why the blocks could not be read at all
    run_start: str | None
    finish: str | None
    covers_run: bool
    meets_deadline: bool | None
    reservations: tuple[BookedBlock, ...]
    extension_upfront_usd: float | None
    within_budget: bool | None
    next: NextSteps | None
    source_page: str

    def exit_code(self) -> int:
        """0 when the blocks cover the run (or extensions that fit, within --max-usd, do) by the deadline; else 1."""
        failed = self.error is not None or any(b.error for b in self.reservations)
        extended = self.next is not None and self.within_budget is not False
        return 0 if not failed and self.meets_deadline is not False and (self.covers_run or extended) else 1


CapacitySection = CapacitySearch | CapacityExtension
