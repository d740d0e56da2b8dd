"""A price book written for the cost tests, so they check arithmetic, not the shipped prices."""

from __future__ import annotations

from pathlib import Path

from planner.core.cost import PriceBook
from planner.core.reading import yaml_lines as yamlload

SOURCE = "https://example.test/prices"
EBS_USD = 0.073  # gp3, USD per GB-month: a 500 GiB root volume costs $0.05 an instance-hour (500 x 0.073 / 730)


def root_volumes_usd(instances: int, hours: float, gib: int = 500) -> float:
    """The root-volume line item's total: instances x GiB x hours / 730 GB-months at EBS_USD, to the cent."""
    return round(instances * gib * hours / 730 * EBS_USD, 2)


TEST_BOOK = f"""\
name: test
instances:
  - {{instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 10.0, source: "{SOURCE}", as_of: 2026-01-01}}
  - {{instance_type: trn2.48xlarge, region: us-east-2, purchase: capacity-block, usd_per_hour: 8.0, source: "{SOURCE}", as_of: 2026-01-01}}
  - {{instance_type: p5en.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 12.0, source: "{SOURCE}", as_of: 2026-01-02}}
  - {{instance_type: p5en.48xlarge, region: us-east-2, purchase: capacity-block, usd_per_hour: 9.0, source: "{SOURCE}", as_of: 2026-01-02}}
derived:
  - {{instance_type: trn2u.48xlarge, purchase: capacity-block, from: trn2.48xlarge, basis: "test basis: same chips"}}
lustre:
  - {{region: us-east-2, deployment_type: SCRATCH_2, usd_per_gb_month: 0.5, source: "{SOURCE}", as_of: 2026-01-03}}
  - {{region: us-east-2, deployment_type: PERSISTENT_2, per_unit_storage_throughput: 250, usd_per_gb_month: 0.25, source: "{SOURCE}", as_of: 2026-01-03}}
ebs:
  - {{region: us-east-2, volume_type: gp3, usd_per_gb_month: {EBS_USD}, source: "{SOURCE}", as_of: 2026-01-04}}
"""


def make_book() -> PriceBook:
    """The test prices alone (no built-in entries underneath)."""
    data, lines = yamlload.load(TEST_BOOK, "test-book.yaml")
    return PriceBook("empty").overlay(data, "test-book.yaml", lines)


def write_book(directory: Path, text: str = TEST_BOOK, name: str = "prices.yaml") -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path
