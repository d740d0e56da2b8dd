"""Capacity Block durations: 1-day steps to 14 days, then 7-day steps to 182 days."""

from __future__ import annotations

import pytest

from planner.core.catalogue.capacity_block_limits import MAX_HOURS, bookable_hours, round_up_to_block


def test_bookable_durations_are_daily_then_weekly() -> None:
    hours = bookable_hours()
    days = [h // 24 for h in hours]
    assert all(h % 24 == 0 for h in hours)
    assert days[:14] == list(range(1, 15))
    assert days[14:] == list(range(21, 183, 7))
    assert days[-1] == 182 and MAX_HOURS == 182 * 24
    assert len(hours) == 14 + (182 - 14) // 7


@pytest.mark.parametrize(
    ("run", "billed"),
    [
        (0.5, 24),
        (24, 24),
        (24.01, 48),
        (100, 120),
        (336, 336),
        (336.5, 504),
        (505, 672),
        (4367.9, 4368),
        (4368, 4368),
    ],
)
def test_round_up_to_next_bookable_duration(run: float, billed: int) -> None:
    assert round_up_to_block(run) == billed


def test_beyond_182_days_has_no_single_block() -> None:
    assert round_up_to_block(4368.01) is None
    assert round_up_to_block(10_000) is None
