"""EC2 Capacity Blocks for ML: what can be booked. The one place this arithmetic lives.

Rules (`capacity-block-duration`, `capacity-block-size`) and the cost code (a block is
paid for its whole booked duration) must agree on what is bookable, so both call this
module. Source: EC2 User Guide, "Capacity Blocks for ML"
(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html, read
2026-11): durations in 1-day steps up to 14 days, then 7-day steps up to 182 days; up to
64 instances per block and 256 across blocks per account (a default limit).
"""

from __future__ import annotations

import math
from functools import lru_cache

SOURCE = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html"

DAY_HOURS = 24
DAILY_STEP_MAX_DAYS = 14  # 1-day steps up to here
WEEKLY_STEP_DAYS = 7  # then 7-day steps
MAX_DAYS = 182  # 26 weeks

MAX_INSTANCES_PER_BLOCK = 64
MAX_INSTANCES_PER_ACCOUNT = 256  # default account limit across Capacity Blocks


@lru_cache(maxsize=1)
def bookable_hours() -> tuple[int, ...]:
    """Every bookable Capacity Block duration, in hours, ascending: 24, 48, ..., 336, 504, ..., 4368."""
    daily = range(DAY_HOURS, DAILY_STEP_MAX_DAYS * DAY_HOURS + 1, DAY_HOURS)
    weekly = range((DAILY_STEP_MAX_DAYS + WEEKLY_STEP_DAYS) * DAY_HOURS, MAX_DAYS * DAY_HOURS + 1, WEEKLY_STEP_DAYS * DAY_HOURS)
    return tuple(daily) + tuple(weekly)


MAX_HOURS = MAX_DAYS * DAY_HOURS


def is_bookable(hours: float) -> bool:
    """True when `hours` is exactly one bookable duration."""
    return float(hours).is_integer() and int(hours) in bookable_hours()


def round_up_to_block(hours: float) -> int | None:
    """The shortest bookable duration covering `hours`; None when longer than the 182-day maximum.

    A run of 100 h needs a 120 h (5-day) block; 400 h needs 504 h (21 days).
    """
    if not math.isfinite(hours) or hours > MAX_HOURS:
        return None
    for h in bookable_hours():
        if h >= hours:
            return h
    return None  # pragma: no cover - unreachable: hours <= MAX_HOURS


def describe(hours: int) -> str:
    """`504 h (21 days)`: a bookable duration as people book it."""
    days = hours // DAY_HOURS
    return f"{hours} h ({days} day{'s' if days != 1 else ''})"
