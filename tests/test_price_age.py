"""Prices say their age (issue 35 item 4): the oldest price a plan uses, counted to its price book's date.

Capacity Block rates move: the copies of AWS's Capacity Blocks pricing page (https://aws.amazon.com/ec2/
capacityblocks/pricing/) mirrored at github.com/koyakimu/ec2-capacity-blocks-for-ml-pricing-json list
p5en.48xlarge in US East (N. Virginia) at 41.612 USD/h ("last_updated": "2026-03-01T00:40:29Z") and at 54.92
("last_updated": "2026-07-22T07:14:56Z"). So a plan says when a price it uses is more than 90 days (planner's
threshold) older than the book's date. The date is the book's, never the clock's: the same inputs give the
same plan on any day.
"""

from __future__ import annotations

import json
from pathlib import Path

from cost_support import SOURCE, write_book

from planner.core.cost import load_price_book
from planner.core.cost.book import STALE_DAYS, age_days, builtin
from tests.conftest import run_cli

P5EN = "stacks/Pulumi.p5en-train.yaml"


def test_the_shipped_book_has_its_date() -> None:
    """`current` says the day its figures were last checked against the newest copies found; the re:Invent book
    takes its newest entry's date (it declares none)."""
    assert builtin("current").as_of == "2026-12-04"
    assert builtin("capacity-blocks-2024").as_of == "2024-12-03"
    assert STALE_DAYS == 90


def test_age_counts_a_year_or_a_month_from_its_last_day() -> None:
    """The youngest a price dated by year or month can be: an age that is at least what is said."""
    assert age_days("2026-09-05", "2026-12-04") == 90
    assert age_days("2026-09", "2026-12-04") == 65  # from 2026-09-30
    assert age_days("2026", "2026-12-04") == 0  # 2026-12-31 is after the book's date: never below 0
    assert age_days("2024-07-18", "2026-12-04") == 869


def test_a_plan_says_the_age_of_the_oldest_price_it_uses() -> None:
    """p5en-train: its EBS price is of 2024-07-18, its Capacity Block rate of 2026-07-22 and its Lustre rate of
    2025-10-16, all more than 90 days before `current`'s date: one line in the table and in Markdown, and
    `price_age` in the JSON cost section. 869 days on any day this test runs: counted to the book's date."""
    doc = json.loads(run_cli("plan", P5EN, "--format", "json").out)
    age = doc["stacks"][0]["cost"]["price_age"]
    assert age == {
        "book_as_of": "2026-12-04",
        "oldest_as_of": "2024-07-18",
        "days": 869,
        "items": ["gpus", "gpus root volumes", "lustre"],
        "limit_days": 90,
    }
    table = " ".join(run_cli("plan", P5EN).out.split())
    assert (
        "prices: the oldest price used is of 2024-07-18, 869 days before the price book's date (2026-12-04); more "
        "than 90 days old: gpus, gpus root volumes, lustre; AWS prices change (Capacity Block rates with demand): "
        "re-read them with --live-prices"
    ) in table
    md = run_cli("plan", P5EN, "--format", "markdown").out
    assert [line for line in md.splitlines() if line.startswith("**Prices:**")] == [
        "**Prices:** the oldest price used is of 2024-07-18, 869 days before the price book's date (2026-12-04); "
        "more than 90 days old: gpus, gpus root volumes, lustre; AWS prices change (Capacity Block rates with "
        "demand): re-read them with --live-prices"
    ]


def _book(tmp_path: Path, as_of: str, name: str = "prices.yaml", top: str = "") -> Path:
    """Every price p5en-train uses, dated `as_of`, over `current`."""
    entry = f'source: "{SOURCE}", as_of: {as_of}'
    return write_book(
        tmp_path,
        f"""\
{top}instances:
  - {{instance_type: p5en.48xlarge, region: us-east-1, purchase: capacity-block, usd_per_hour: 50.0, {entry}}}
lustre:
  - {{region: us-east-1, deployment_type: PERSISTENT_2, per_unit_storage_throughput: 125, usd_per_gb_month: 0.15, {entry}}}
ebs:
  - {{region: us-east-1, volume_type: gp3, usd_per_gb_month: 0.08, {entry}}}
""",
        name,
    )


def test_no_line_and_no_key_while_every_price_is_young_enough(tmp_path: Path) -> None:
    """Prices dated 2026-11-01 over `current` (2026-12-04): 33 days, nothing said (the near miss); the book's
    own date, when a file declares one, is what they are counted to (the case)."""
    fresh = _book(tmp_path, "2026-11-01")
    cost = json.loads(run_cli("plan", P5EN, "--price-book", str(fresh), "--format", "json").out)["stacks"][0]["cost"]
    assert "price_age" not in cost
    assert "prices:" not in run_cli("plan", P5EN, "--price-book", str(fresh)).out
    later = _book(tmp_path, "2026-11-01", "later.yaml", top="as_of: 2027-03-01\n")
    cost = json.loads(run_cli("plan", P5EN, "--price-book", str(later), "--format", "json").out)["stacks"][0]["cost"]
    assert cost["price_age"]["book_as_of"] == "2027-03-01" and cost["price_age"]["days"] == 120


def test_a_layered_book_takes_the_newest_date_of_its_layers(tmp_path: Path) -> None:
    """A file without a date of its own takes its newest entry's; over `current`, the newer of the two."""
    older = load_price_book(str(_book(tmp_path, "2026-01-01")))
    assert older.as_of == "2026-12-04"
    newer = load_price_book(str(_book(tmp_path, "2027-02-01", "newer.yaml")))
    assert newer.as_of == "2027-02-01"


def test_a_price_given_on_the_command_line_has_no_age() -> None:
    """`--price` is your figure, not dated: the age is the book's prices' (here the EBS and Lustre rates)."""
    doc = json.loads(run_cli("plan", P5EN, "--price", "p5en.48xlarge=50", "--format", "json").out)
    age = doc["stacks"][0]["cost"]["price_age"]
    assert age["items"] == ["gpus root volumes", "lustre"] and age["oldest_as_of"] == "2024-07-18"


def test_every_capacity_block_rate_is_dated_by_the_copy_it_is_read_from() -> None:
    """The newest copy of the Capacity Blocks pricing page found is the mirror's of 2026-07-22 ("last_updated":
    "2026-07-22T07:14:56Z", commit b3a54ae; no later commit there): every Capacity Block rate of `current` names
    that copy and its date; none is dated a day no copy was found for (2026-08-01, cited to the page itself)."""
    copy = (
        "https://github.com/koyakimu/ec2-capacity-blocks-for-ml-pricing-json/blob/"
        "b3a54aee92b6ef6b3c50ea6cacbcc03536675c7e/data/pricing.json"
    )
    blocks = [p for (_, _, purchase), p in builtin("current").instances.items() if purchase == "capacity-block"]
    assert len(blocks) == 62
    assert {(p.source, p.as_of) for p in blocks} == {(copy, "2026-07-22")}
