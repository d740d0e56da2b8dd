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

# Where each type's Capacity Blocks are sold, as the Capacity Blocks page (SOURCE) lists
# them, read 2026-12-01 through a stored copy of the page: "p5.48xlarge — US East (N.
# Virginia) | US East (Ohio) | US West (Oregon) | Asia Pacific (Tokyo); p5e.48xlarge — US
# East (Ohio); p5en.48xlarge — US East (Ohio); p4d.24xlarge — US East (Ohio) | US West
# (Oregon); trn1.32xlarge — US East (N. Virginia) | Asia Pacific (Melbourne); trn2.48xlarge —
# US East (Ohio)". The current page moves this list into a "Supported instance types and
# Regions" table that could not be read in full here, so it may list more: a type or
# region missing here is "not listed", never "not sold" (the capacity-block-supported rule
# only warns). Types the list does not name (p6-b200.48xlarge, trn2u.48xlarge) have no
# region data: None.
REGIONS_READ = "2026-12-01"
REGIONS: dict[str, tuple[str, ...]] = {
    "p5.48xlarge": ("ap-northeast-1", "us-east-1", "us-east-2", "us-west-2"),
    "p5e.48xlarge": ("us-east-2",),
    "p5en.48xlarge": ("us-east-2",),
    "p4d.24xlarge": ("us-east-2", "us-west-2"),
    "trn1.32xlarge": ("ap-southeast-4", "us-east-1"),
    "trn2.48xlarge": ("us-east-2",),
}

# "All Capacity Blocks end at 11:30AM UTC, so the blocks starting on the same day will have
# durations that are the closest match to your desired duration. One block will have a
# duration that is slightly less than your desired duration, while the other will have a
# duration slightly greater" (Find and purchase Capacity Blocks, PURCHASE_SOURCE, read 2026-12-01).
ENDS_AT_UTC = "11:30"
END_TIME_NOTE = (f"Capacity Blocks end at {ENDS_AT_UTC} UTC, so the offerings AWS shows for a duration are slightly "
                 "shorter or longer than asked: the booked duration, and its cost, can differ from this estimate")


def listed_regions(instance_type: str) -> tuple[str, ...] | None:
    """The regions the Capacity Blocks page lists for the type's blocks; None when it names no region for it."""
    return REGIONS.get(instance_type)


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
