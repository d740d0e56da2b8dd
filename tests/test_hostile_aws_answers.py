"""AWS answers are untrusted input (issue 32): an offering, fee, price, count or date that AWS
(or whatever answered in its place) sends is checked before planner uses it; one that fails is
a region (or item) line saying what was sent, cut short, never `$nan`, `$inf`, a negative fee
or an internal error; the `capacity` comment stays within GitHub's comment limit; AWS's error
text is cut (docs/security.md)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from planner.aws.pricing import NoPrice, offers
from planner.core.cost.block_offerings import BadOffering, offering_from_api
from tests import test_capacity
from tests.test_capacity import P5EN, answers, expect, offering, run
from tests.test_preflight_helpers import StubbedAws

pytestmark = pytest.mark.usefixtures("isolated_aws")

aws = test_capacity.aws  # the fixture: stubbed EC2 clients per region, handed to `planner capacity`

START, END = "2026-12-20T07:00:00", "2027-01-03T11:30:00"
GOOD = "cb-0e2b000000000002b"


def _only(aws: StubbedAws, *found: dict[str, Any]) -> None:
    expect(aws, "us-east-2", 336, answers(*found))
    expect(aws, "us-east-2", 504, answers())


@pytest.mark.parametrize(
    ("fee", "said"),
    [
        ("1e400", "'1e400'"),  # a Decimal, but a float of it is infinity: the `$inf` of the review
        ("NaN", "'NaN'"),
        ("Infinity", "'Infinity'"),
        ("-5.00", "'-5.00'"),
        ("-0", "'-0'"),
        ("9" * 5000, "... (5,000 characters)"),
    ],
)
@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_a_fee_that_is_not_an_amount_is_a_region_line(
    aws: StubbedAws, capsys: pytest.CaptureFixture[str], fee: str, said: str, fmt: str
) -> None:
    _only(aws, offering(GOOD, "us-east-2b", START, END, fee))
    code, doc, err = run(capsys, *P5EN, "--regions", "us-east-2", "--format", fmt)
    assert code == 1, err
    assert "internal error" not in err
    if fmt == "json":
        assert isinstance(doc, dict) and doc["options"] == [] and doc["pick"] is None
        line = doc["regions"][0]["error"]
        assert doc["regions"][0]["code"] == "NotAws" and "UpfrontFee" in line and said in line
        assert len(line) < 300
    else:
        assert isinstance(doc, str)
        assert "$inf" not in doc and "$nan" not in doc and "$-" not in doc and "inf |" not in doc
        assert "us-east-2: no answer:" in doc and "UpfrontFee" in doc


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"InstanceCount": 10**12}, "InstanceCount"),
        ({"CapacityBlockDurationHours": 10**9}, "CapacityBlockDurationHours"),
        ({"CapacityBlockDurationMinutes": 600}, "CapacityBlockDurationMinutes"),
        (
            {
                "StartDate": dt.datetime(9999, 12, 20, 7, tzinfo=dt.UTC),
                "EndDate": dt.datetime(9999, 12, 31, tzinfo=dt.UTC),
            },
            "StartDate",
        ),
        ({"EndDate": dt.datetime(2026, 12, 1, tzinfo=dt.UTC)}, "EndDate"),
    ],
)
def test_counts_hours_and_dates_out_of_range_are_a_region_line(
    aws: StubbedAws, capsys: pytest.CaptureFixture[str], change: dict[str, Any], key: str
) -> None:
    """Dates near year 9999 overflowed planner's date arithmetic (an internal error) before."""
    _only(aws, {**offering(GOOD, "us-east-2b", START, END, "330000.00"), **change})
    code, doc, err = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "json")
    assert code == 1 and "internal error" not in err, err
    assert isinstance(doc, dict) and doc["pick"] is None
    assert key in doc["regions"][0]["error"] and doc["regions"][0]["code"] == "NotAws"


def test_an_offering_is_checked_field_by_field() -> None:
    base = offering(GOOD, "us-east-2b", START, END, "330000.00")
    assert offering_from_api("us-east-2", base, 336).upfront_fee == 330000
    for bad in ({"UpfrontFee": ["1"]}, {"InstanceCount": True}, {"CurrencyCode": "US D\n"}, {"ZoneType": "<b>"}):
        with pytest.raises(BadOffering):
            offering_from_api("us-east-2", {**base, **bad}, 336)


def test_the_capacity_comment_stays_within_githubs_limit_and_says_what_it_left_out(
    aws: StubbedAws, capsys: pytest.CaptureFixture[str]
) -> None:
    many = [offering(f"cb-{i:017x}", "us-east-2b", START, END, f"{330000 + i}.00") for i in range(2_000)]
    _only(aws, *many)
    code, text, err = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "markdown")
    assert code == 0, err
    assert isinstance(text, str)
    assert len(text) <= 60_000 < 65_536
    assert "more options left out: too many for one comment" in text
    assert "Pick: option 1," in text and "| 1 | us-east-2b |" in text  # the pick's row is always there
    assert "2000 offerings" in text.replace(",", "")  # the region line still counts them all


def test_a_huge_aws_error_message_is_cut(aws: StubbedAws, capsys: pytest.CaptureFixture[str]) -> None:
    aws.stub("ec2", "us-east-2").add_client_error(
        "describe_capacity_block_offerings", "InternalError", "x" * 1_000_000 + "\n::error::forged", 500
    )
    code, doc, err = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "json")
    assert code == 1
    assert isinstance(doc, dict)
    line = doc["regions"][0]["error"]
    assert len(line) < 500 and "1,000,016 characters, cut" in line
    assert len(err) < 2_000


@pytest.mark.parametrize("usd", ["Infinity", "NaN", "-1", "1e400", "1e9"])
def test_a_price_list_price_that_is_not_a_price_is_refused(usd: str) -> None:
    entry = {
        "product": {"sku": "SKU1", "attributes": {}},
        "terms": {"OnDemand": {"t": {"priceDimensions": {"d": {"unit": "Hrs", "pricePerUnit": {"USD": usd}}}}}},
    }
    with pytest.raises(NoPrice, match="is not a price"):
        offers([json.dumps(entry)])


def test_preflight_reads_reservation_counts_and_dates_only_in_range() -> None:
    from planner.aws.reservations import _count, _hours

    assert _count(16) == 16 and _count(True) is None and _count(-1) is None and _count(10**12) is None
    start = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    assert _hours(start, start + dt.timedelta(hours=24)) == 24
    assert _hours(start, start - dt.timedelta(hours=1)) is None  # ends before it starts
    assert _hours(start, dt.datetime(9999, 12, 31, tzinfo=dt.UTC)) is None  # no block lasts 8,000 years
    assert _hours(start, dt.datetime(2026, 12, 2)) is None  # a naive date: not AWS's answer
