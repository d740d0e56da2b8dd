"""EC2 Capacity Block durations and sizes: what can be booked, and what a run of N hours is billed.

Capacity Blocks are booked in 1-day steps up to 14 days, then in 7-day steps up to 182
days; a block holds up to 64 instances, and an account up to 256 across blocks by default
(EC2 User Guide, "Capacity Blocks for ML", read 2026-11). A block is paid for its whole
duration, so the cost estimate bills a run at the next bookable duration, and the
capacity-block-duration and capacity-block-size rules check declared clusters against the
same figures. One module, so both agree.
"""

from __future__ import annotations

from functools import lru_cache

SOURCE = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html"
PURCHASE_SOURCE = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-purchase.html"
HOURS_PER_DAY = 24
DAILY_STEPS_UP_TO_DAYS = 14
WEEKLY_STEP_DAYS = 7
MAX_DAYS = 182
MAX_HOURS = MAX_DAYS * HOURS_PER_DAY

MAX_INSTANCES_PER_BLOCK = 64
MAX_INSTANCES_PER_ACCOUNT = 256  # default account limit across Capacity Blocks

# Where each type's Capacity Blocks are sold is data, not code: the Capacity Blocks pricing
# page lists the regions per type, and planner/data/prices (the Capacity Block prices and
# not-sold.yaml, each entry with its source and date) holds them; the `purchase-not-sold`
# rule reports a block in a region the page does not list.

# "All Capacity Blocks end at 11:30AM UTC, so the blocks starting on the same day will have
# durations that are the closest match to your desired duration. One block will have a
# duration that is slightly less than your desired duration, while the other will have a
# duration slightly greater" (Find and purchase Capacity Blocks, PURCHASE_SOURCE, read 2026-12-01).
ENDS_AT_UTC = "11:30"
END_TIME_NOTE = (f"Capacity Blocks end at {ENDS_AT_UTC} UTC, so the offerings AWS shows for a duration are slightly "
                 "shorter or longer than asked: the booked duration, and its cost, can differ from this estimate")



@lru_cache(maxsize=1)
def bookable_hours() -> tuple[int, ...]:
    """Every bookable block duration in hours, ascending: 24, 48, ..., 336, 504, ..., 4368."""
    days = list(range(1, DAILY_STEPS_UP_TO_DAYS + 1))
    days += list(range(DAILY_STEPS_UP_TO_DAYS + WEEKLY_STEP_DAYS, MAX_DAYS + 1, WEEKLY_STEP_DAYS))
    return tuple(d * HOURS_PER_DAY for d in days)


def round_up_to_block(hours: float) -> int | None:
    """The shortest bookable duration that covers `hours`; None beyond 182 days (no single block).

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
