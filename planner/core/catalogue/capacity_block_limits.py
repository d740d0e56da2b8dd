"""EC2 Capacity Block durations and sizes: what can be booked, and what a run of N hours is billed.

The figures (booking steps, the longest block, instances per block and per account, the
end time) are data, with their source: `planner/data/aws-limits.yaml`, read through
`planner.core.catalogue.shipped_data.limits()`. A block is paid for its whole
duration, so the cost estimate bills a run at the next bookable duration, and the
capacity-block-duration and capacity-block-size rules check declared clusters against the
same figures. One module, so both agree.
"""

from __future__ import annotations

from functools import lru_cache

from planner.core.catalogue.shipped_data import limits as _limits

_CB = _limits().capacity_blocks
SOURCE = _CB.source
PURCHASE_SOURCE = _CB.purchase_source
HOURS_PER_DAY = 24
DAILY_STEPS_UP_TO_DAYS = _CB.daily_steps_up_to_days
WEEKLY_STEP_DAYS = _CB.weekly_step_days
MAX_DAYS = _CB.max_days
MAX_HOURS = MAX_DAYS * HOURS_PER_DAY

MAX_INSTANCES_PER_BLOCK = _CB.max_instances_per_block
# "Capacity Block sizes of 64 instances are not supported for all instance types in all AWS Regions."
FULL_BLOCK_SOURCE = _CB.full_block_source
MAX_INSTANCES_PER_ACCOUNT = (
    _CB.max_instances_per_account
)  # instances across Capacity Blocks (AWS does not say it can be raised)

# Where each type's Capacity Blocks are sold is data, not code: the Capacity Blocks pricing
# page lists the regions per type, and planner/data/prices (the Capacity Block prices and
# not-sold.yaml, each entry with its source and date) holds them; the `purchase-not-sold`
# rule reports a block in a region the page does not list.

ENDS_AT_UTC = _CB.ends_at_utc
TERMINATION_SOURCE = _CB.termination_source
TERMINATION_LEAD_HOURS = _CB.termination_lead_minutes / 60
MAX_START_WEEKS_AHEAD = _CB.max_start_weeks_ahead
END_TIME_NOTE = (
    f"Capacity Blocks end at {ENDS_AT_UTC} UTC, so the offerings AWS shows for a duration are slightly "
    "shorter or longer than asked: the booked duration, and its cost, can differ from this estimate"
)


@lru_cache(maxsize=1)
def bookable_hours() -> tuple[int, ...]:
    """Every bookable block duration in hours, ascending: daily steps, then weekly steps, to the longest block."""
    days = list(range(1, DAILY_STEPS_UP_TO_DAYS + 1))
    days += list(range(DAILY_STEPS_UP_TO_DAYS + WEEKLY_STEP_DAYS, MAX_DAYS + 1, WEEKLY_STEP_DAYS))
    return tuple(d * HOURS_PER_DAY for d in days)


def duration_examples() -> str:
    """`24, 48, ... 336, then 504, 672, ... <longest>`: the bookable durations in hours, as rule texts show them."""
    hours = bookable_hours()
    daily = DAILY_STEPS_UP_TO_DAYS
    return f"{hours[0]}, {hours[1]}, ... {hours[daily - 1]}, then {hours[daily]}, {hours[daily + 1]}, ... {hours[-1]}"


def round_up_to_block(hours: float) -> int | None:
    """The shortest bookable duration that covers `hours`; None beyond the longest block (no single block).

    A run of 100 h needs a 120 h (5-day) block; 400 h needs 504 h (21 days).
    """
    for h in bookable_hours():
        if hours <= h:
            return h
    return None


def is_bookable(hours: float) -> bool:
    """True when `hours` is exactly one bookable duration."""
    return float(hours).is_integer() and int(hours) in bookable_hours()


def describe(hours: int) -> str:
    """`504 h (21 days)`: a bookable duration as people book it."""
    days = hours // HOURS_PER_DAY
    return f"{hours} h ({days} day{'s' if days != 1 else ''})"


def usable_hours(booked_hours: float) -> float:
    """The hours a block of `booked_hours` can run instances: AWS terminates them 30 minutes before it ends."""
    return max(0.0, booked_hours - TERMINATION_LEAD_HOURS)


def block_for_run(run_hours: float) -> int | None:
    """The shortest bookable block whose usable hours (30 minutes short of its end) cover a run of
    `run_hours`; None beyond the longest block. A run of exactly a bookable duration is read as
    that booking (schedule.hours: 336 books a 14-day block), so instances run its usable hours."""
    if is_bookable(run_hours):
        return int(run_hours)
    for h in bookable_hours():
        if run_hours <= usable_hours(h):
            return h
    return None


TIMING_NOTE = (
    f"Capacity Blocks: AWS begins terminating instances {TERMINATION_LEAD_HOURS * 60:.0f} minutes before a "
    f"block ends, so a block of N hours runs instances for N - {TERMINATION_LEAD_HOURS:g} h; blocks start up to "
    f"{MAX_START_WEEKS_AHEAD} weeks ahead and end at {ENDS_AT_UTC} UTC"
)
