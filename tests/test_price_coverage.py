"""The default price book covers the catalogue: every type in every region that matters, every
FSx for Lustre tier, priced where AWS sells it, and said "not sold" where AWS does not.

Regions walked: us-east-1, us-east-2, us-west-2 and every region where trn2, trn2u or p5en
is listed, intersected with the regions the catalogue lists each type in. Purchases walked:
on demand (not for UltraServer members) and Capacity Blocks (where the catalogue says the
type is sold through them). A combination with neither a price, a not-sold entry nor the book's reason for having none
(`unknown:`) fails,
unless it is one of the known gaps below: figures no public source read for this project
gave. They are listed here, in one place, with the reason, so that a new gap fails.
"""

from __future__ import annotations

import pytest

from planner.core.catalogue import instance_types as catalogue
from planner.core.cost import load_price_book
from planner.core.cost.offers import entries, not_sold

BASE_REGIONS = {"us-east-1", "us-east-2", "us-west-2"}
CAT = catalogue.load()
REGIONS = BASE_REGIONS | {
    r for t in ("trn2.48xlarge", "trn2u.48xlarge", "p5en.48xlarge") for r in CAT.instance_types[t].regions
}

NO_PUBLIC_FIGURE = "no public source read for this project gives this price (searched 2026-12-01)"
# Instance prices: on-demand offers that the Price List mirror does not list for these regions.
INSTANCE_GAPS = {
    ("trn1.32xlarge", "ap-south-1", "on-demand"): NO_PUBLIC_FIGURE,
    ("p6-b200.48xlarge", "ap-south-1", "on-demand"): NO_PUBLIC_FIGURE,
    ("p6-b200.48xlarge", "ap-south-2", "on-demand"): NO_PUBLIC_FIGURE,
    ("p6-b200.48xlarge", "eu-north-1", "on-demand"): NO_PUBLIC_FIGURE,
    # the Price List mirror (2026-01-21) prices p6-b300.48xlarge on demand in us-west-2 only, and
    # p5.4xlarge / trn2.3xlarge not in these regions
    **{
        ("p6-b300.48xlarge", r, "on-demand"): NO_PUBLIC_FIGURE
        for r in ("ap-northeast-2", "ap-south-2", "ap-southeast-3", "us-east-1")
    },
    ("p5.4xlarge", "eu-north-1", "on-demand"): NO_PUBLIC_FIGURE,
    ("trn2.3xlarge", "ap-south-2", "on-demand"): NO_PUBLIC_FIGURE,
    # G6e and G7e (issue 35): priced from the generated on-demand files (prices/on-demand/), whose copies of AWS's
    # price data (2025-04-04, yeo/ec2.shop; 2026-01-21, tsaol/aws-gpu) list no price for these regions
    **{
        (t, r, "on-demand"): NO_PUBLIC_FIGURE
        for t in ("g6e.24xlarge", "g6e.48xlarge")
        for r in ("ap-south-1", "ap-south-2", "me-central-1")
    },
    **{
        (t, r, "on-demand"): NO_PUBLIC_FIGURE
        for t in ("g7e.24xlarge", "g7e.48xlarge")
        for r in (
            "ap-northeast-1",
            "ap-northeast-2",
            "ap-south-1",
            "ap-southeast-3",
            "eu-north-1",
            "eu-south-2",
            "us-west-2",
        )
    },
}
LUSTRE_TIERS = [
    ("SCRATCH_1", None),
    ("SCRATCH_2", None),
    ("PERSISTENT_1", 50),
    ("PERSISTENT_1", 100),
    ("PERSISTENT_1", 200),
    ("PERSISTENT_1", 12),
    ("PERSISTENT_1", 40),
    ("PERSISTENT_2", 125),
    ("PERSISTENT_2", 250),
    ("PERSISTENT_2", 500),
    ("PERSISTENT_2", 1000),
]
# FSx for Lustre: PERSISTENT_1 SSD and PERSISTENT_2 come from the FSx pricing page's data for
# every region it lists them in (planner/data/prices/current.yaml says how the tiers were read);
# SCRATCH_2 only in the US regions. The rest is a gap: no public source read for this project
# names the SCRATCH_1, HDD or other SCRATCH_2 rates, and the copy of the pricing page's data
# (2025-10-16) has no PERSISTENT_2 rates in the regions below.
P1_SSD = [("PERSISTENT_1", 50), ("PERSISTENT_1", 100), ("PERSISTENT_1", 200)]
P2 = [("PERSISTENT_2", 125), ("PERSISTENT_2", 250), ("PERSISTENT_2", 500), ("PERSISTENT_2", 1000)]
NO_P2 = {"ap-south-2", "ap-southeast-3", "ap-southeast-4", "eu-south-2", "eu-west-3", "me-central-1", "sa-east-1"}
LUSTRE_KNOWN = (
    {(r, "SCRATCH_2", None) for r in BASE_REGIONS}
    | {(r, d, t) for r in REGIONS for d, t in P1_SSD}
    | {(r, d, t) for r in REGIONS - NO_P2 for d, t in P2}
)
LUSTRE_GAPS = {(r, d, t): NO_PUBLIC_FIGURE for r in REGIONS for d, t in LUSTRE_TIERS if (r, d, t) not in LUSTRE_KNOWN}


def _walk() -> list[tuple[str, str, str]]:
    out = []
    for t in CAT.instance_types.values():
        purchases = ([] if CAT.is_member(t.name) else ["on-demand"]) + (["capacity-block"] if t.capacity_block else [])
        out += [
            (t.name, r, p)
            for r in sorted((set(t.regions) | set(t.capacity_block_regions)) & REGIONS)
            for p in purchases
            if t.sold_in(r, p)
        ]
    return out


@pytest.mark.parametrize("key", _walk(), ids=lambda k: " ".join(k))
def test_every_sold_combination_has_a_price(key: tuple[str, str, str]) -> None:
    book = load_price_book(None)
    priced = book.instance(*key) is not None
    gone = not_sold(*key) is not None
    said = book.unknown_instance(*key) is not None  # the book says why it has no price
    assert not (priced and gone), f"{key}: both priced and marked not sold"
    assert not (said and (priced or gone)), f"{key}: said unknown and priced or not sold"
    if key in INSTANCE_GAPS:
        assert not priced and not gone and not said, f"{key} is no longer a gap: remove it from INSTANCE_GAPS"
        return
    assert priced or gone or said, f"{key}: no price, no not-sold entry and no reason in the default price book"


@pytest.mark.parametrize(
    "key", [(r, d, t) for r in sorted(REGIONS) for d, t in LUSTRE_TIERS], ids=lambda k: f"{k[0]} {k[1]} {k[2] or ''}"
)
def test_every_lustre_tier_has_a_price_or_is_a_listed_gap(key: tuple[str, str, int | None]) -> None:
    price = load_price_book(None).lustre_price(*key)
    if key in LUSTRE_GAPS:
        assert price is None, f"{key} is no longer a gap: remove it from LUSTRE_KNOWN's complement"
    else:
        assert price is not None, key


def test_the_walk_covers_the_regions_the_issue_names() -> None:
    assert {"us-east-1", "us-east-2", "us-west-2", "ap-south-2", "me-central-1"} <= REGIONS
    assert len(_walk()) > 50


def test_not_sold_entries_are_sourced_and_name_catalogue_types() -> None:
    for e in entries():
        assert e.instance_type in CAT.instance_types
        assert e.purchase in ("on-demand", "capacity-block", "spot")
        assert e.source.startswith("https://") and e.reason and e.as_of
        for r in e.regions or ():
            assert r in CAT.instance_types[e.instance_type].regions, (e.instance_type, r)


def test_mirrored_entries_say_they_come_from_a_mirror() -> None:
    for key, price in load_price_book(None).entries():
        if "github.com" in price.source:
            assert price.note and "mirror" in price.note, key


def test_purchase_not_sold_rests_on_the_capacity_blocks_pages() -> None:
    """EC2 User Guide, "Capacity Blocks for ML": "Capacity Blocks are availale for select instance
    types in some AWS Regions." (sic); the Capacity Blocks pricing page lists the rate of each
    type per region, so a region it does not list for a type sells no blocks of it."""
    from planner.core import rules

    r = rules.registry()["purchase-not-sold"]
    assert r.source == "https://aws.amazon.com/ec2/capacityblocks/pricing/" and r.severity == "warning"
    gone = not_sold("trn2.48xlarge", "ap-south-2", "capacity-block")
    assert gone is not None and "us-east-2 only" in gone.reason
    assert not_sold("trn2.48xlarge", "us-east-2", "capacity-block") is None


@pytest.mark.parametrize("region", sorted(REGIONS))
def test_every_region_has_a_gp3_price_for_the_root_volumes(region: str) -> None:
    """Every instance the components launch has a gp3 root volume: each walked region prices its storage."""
    price = load_price_book(None).ebs_price(region, "gp3")
    assert price is not None, f"no EBS gp3 price for {region}"
    assert price.unit == "GB-month" and price.source.startswith("https://") and price.as_of


def test_gp3_prices_are_the_ebs_pricing_pages_figures() -> None:
    """AWS's EBS pricing-page data (ebs.json, key "Storage General Purpose gp3 GB Mo"), published
    2024-07-18T13:53:37Z, as copied in yeo/ec2.shop at 576c890f: "US East (N. Virginia)" 0.0800000000,
    "US East (Ohio)" 0.0800000000, "US West (Oregon)" 0.0800000000, "South America (Sao Paulo)" 0.1520000000."""
    book = load_price_book(None)
    assert [book.ebs_price(r, "gp3").usd for r in ("us-east-1", "us-east-2", "us-west-2", "sa-east-1")] == [
        0.08,
        0.08,
        0.08,
        0.152,
    ]
    assert all("576c890f33ae177837e93499866aa04a0ac4fa89" in p.source for p in book.ebs.values())


# The EBS pricing page's data of 2024-07-18 (the copy every EBS entry is read from) lists no io2 rate here.
IO2_GAPS = {
    "sa-east-1",
    "eu-west-3",
    "eu-south-2",
    "il-central-1",
    "me-central-1",
    "ap-south-2",
    "ap-southeast-3",
    "ap-southeast-4",
}


@pytest.mark.parametrize("region", sorted(REGIONS))
def test_every_region_prices_what_each_volume_type_bills(region: str) -> None:
    """Every charge of every priced volume type (storage; gp3 IOPS and throughput; io1 IOPS; io2 IOPS by
    tier) has a sourced price in each walked region, but io2 where the copy lists none (`IO2_GAPS`)."""
    from planner.core.cost.book import EBS_CHARGES

    book = load_price_book(None)
    missing = {
        (t, c) for c, charge in EBS_CHARGES.items() for t in charge.volume_types if book.ebs_price(region, t, c) is None
    }
    expected = {(t, c) for c in ("storage", "iops", "iops-tier-2", "iops-tier-3") for t in ["io2"]}
    assert missing == (expected if region in IO2_GAPS else set())
    for c, charge in EBS_CHARGES.items():
        for t in charge.volume_types:
            p = book.ebs_price(region, t, c)
            assert p is None or (p.unit == charge.unit and p.as_of == "2024-07-18" and "mirror" in (p.note or ""))


def test_ebs_rates_are_the_pricing_pages_figures() -> None:
    """The same copy of AWS's EBS pricing-page data (yeo/ec2.shop at 576c890f, published
    2024-07-18T13:53:37Z), "US East (N. Virginia)": "Storage General Purpose gp2 GB Mo" 0.1000000000,
    "Storage Provisioned IOPS io1 GB Mo" 0.1250000000, "Storage Provisioned IOPS io2 GB month" 0.1250000000,
    "Storage Throughput Optimized HDD st1 GB Mo" 0.0450000000, "Storage Cold HDD sc1 GB Mo" 0.0150000000,
    "Provisioned EBS IOPS gp3 Volumes per IOPS Mo" 0.0050000000, "Provisioned EBS IOPS io1 Volumes per IOPS
    Mo" 0.0650000000, "Provisioned EBS IOPS io2 Volumes per IOPS Mo" 0.0650000000, "Provisioned EBS IOPS Tier
    2 io2 Volumes per IOPS Mo" 0.0455000000, "Provisioned EBS IOPS Tier 3 io2 Volumes per IOPS Mo"
    0.0318500000, "Provisioned Throughput gp3 per GiBps mo" 40.9600000000 (0.04 per MiB/s); "EU
    (Stockholm)": "Provisioned Throughput gp3 per GiBps mo" 42.8032000000 (0.0418 per MiB/s)."""
    book = load_price_book(None)
    got = {
        (t, c): book.ebs_price("us-east-1", t, c).usd
        for t, c in (
            ("gp2", "storage"),
            ("io1", "storage"),
            ("io2", "storage"),
            ("st1", "storage"),
            ("sc1", "storage"),
            ("gp3", "iops"),
            ("io1", "iops"),
            ("io2", "iops"),
            ("io2", "iops-tier-2"),
            ("io2", "iops-tier-3"),
            ("gp3", "throughput"),
        )
    }
    assert got == {
        ("gp2", "storage"): 0.1,
        ("io1", "storage"): 0.125,
        ("io2", "storage"): 0.125,
        ("st1", "storage"): 0.045,
        ("sc1", "storage"): 0.015,
        ("gp3", "iops"): 0.005,
        ("io1", "iops"): 0.065,
        ("io2", "iops"): 0.065,
        ("io2", "iops-tier-2"): 0.0455,
        ("io2", "iops-tier-3"): 0.03185,
        ("gp3", "throughput"): 0.04,
    }
    assert book.ebs_price("eu-north-1", "gp3", "throughput").usd == 0.0418
