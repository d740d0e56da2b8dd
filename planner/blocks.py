"""EC2 Capacity Block durations: what can be booked, and what a run of N hours is billed.

Capacity Blocks are booked in 1-day steps up to 14 days, then in 7-day steps up to 182
days (EC2 User Guide, "Capacity Blocks for ML"). A block is paid for its whole duration,
so the cost estimate bills a run at the next bookable duration, and the
capacity-block-duration rule checks declared hours against the same list. One module, so
both agree.
"""

from __future__ import annotations

from functools import lru_cache

SOURCE = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html"
HOURS_PER_DAY = 24
DAILY_STEPS_UP_TO_DAYS = 14
WEEKLY_STEP_DAYS = 7
MAX_DAYS = 182
MAX_HOURS = MAX_DAYS * HOURS_PER_DAY


@lru_cache(maxsize=1)
def bookable_hours() -> tuple[int, ...]:
    """Every bookable block duration in hours, ascending: 24, 48, ..., 336, 504, ..., 4368."""
    days = list(range(1, DAILY_STEPS_UP_TO_DAYS + 1))
    days += list(range(DAILY_STEPS_UP_TO_DAYS + WEEKLY_STEP_DAYS, MAX_DAYS + 1, WEEKLY_STEP_DAYS))
    return tuple(d * HOURS_PER_DAY for d in days)


def round_up_to_block(hours: float) -> int | None:
    """The shortest bookable duration that covers `hours`; None beyond 182 days (no single block)."""
    for h in bookable_hours():
        if hours <= h:
            return h
    return None
