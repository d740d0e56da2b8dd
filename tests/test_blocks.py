"""Capacity Block durations: 1-day steps to 14 days, then 7-day steps to 182 days."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.core.catalogue import capacity_block_limits as blocks


def test_bookable_hours_are_the_documented_steps() -> None:
    hours = blocks.bookable_hours()
    assert hours[:3] == (24, 48, 72)
    assert 336 in hours and 360 not in hours  # 14 days, then no 15-day block
    assert hours[hours.index(336) + 1] == 504  # 21 days
    assert hours[-1] == 4368 == 182 * 24
    assert len(hours) == 14 + (182 - 14) // 7


@pytest.mark.parametrize(
    "hours,bookable",
    [
        (24, True),
        (336, True),
        (504, True),
        (4368, True),
        (23, False),
        (100, False),
        (360, False),
        (24.5, False),
        (4536, False),
    ],
)
def test_is_bookable(hours: float, bookable: bool) -> None:
    assert blocks.is_bookable(hours) is bookable


@pytest.mark.parametrize(
    "hours,up",
    [
        (1, 24),
        (24, 24),
        (24.01, 48),
        (100, 120),
        (336, 336),
        (337, 504),
        (400, 504),
        (4368, 4368),
        (4368.5, None),
        (math.inf, None),
    ],
)
def test_round_up_to_block(hours: float, up: int | None) -> None:
    assert blocks.round_up_to_block(hours) == up


@given(st.floats(min_value=0.001, max_value=4368))
def test_round_up_is_the_smallest_bookable_cover(hours: float) -> None:
    up = blocks.round_up_to_block(hours)
    assert up is not None and up >= hours and blocks.is_bookable(up)
    assert all(h < hours for h in blocks.bookable_hours() if h < up)


def test_describe() -> None:
    assert blocks.describe(504) == "504 h (21 days)"
    assert blocks.describe(24) == "24 h (1 day)"


def test_usable_hours_end_thirty_minutes_before_the_block():
    # "Forty minutes before your Capacity Block reservation ends, you receive another EventBridge
    # event that tells you that any instances running in the reservation will begin to terminate
    # in 10 minutes" (EC2 User Guide, Monitor Capacity Blocks using EventBridge).
    from planner.core.catalogue import capacity_block_limits as blocks

    assert blocks.TERMINATION_LEAD_HOURS == 0.5
    assert blocks.usable_hours(24) == 23.5
    assert blocks.usable_hours(0) == 0.0
    assert blocks.MAX_START_WEEKS_AHEAD == 8
    assert blocks.TERMINATION_SOURCE.startswith("https://docs.aws.amazon.com/")
