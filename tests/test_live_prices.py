"""`--live-prices`: the AWS Price List Query API through botocore's Stubber (moto has no
`pricing` service), with PriceList entries shaped like AWS's JSON strings; the cache and
its TTL; and the fallback to the price book when the API cannot be used.

Prices below are test figures, not the shipped book's: every assertion is arithmetic on them.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError
from conftest import run_cli
from test_preflight_helpers import StubbedAws, isolate

from planner.aws import live_prices, pricing
from planner.aws.live_prices import PriceCache, PriceNeeds, fetch, needs_for
from planner.core.cost import load_price_book
from planner.core.input.stack_files import load_stack

TRN2_DEV = "stacks/Pulumi.trn2-dev.yaml"
NOW = dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC)
TODAY = "2026-11-29"


pytestmark = pytest.mark.usefixtures("isolated_aws")  # fake credentials and config (conftest)


def ec2_product(instance_type: str, region: str, usd: str, sku: str, market: str = "OnDemand") -> str:
    """One PriceList entry as GetProducts returns it: a JSON string per product."""
    return json.dumps(
        {
            "product": {
                "productFamily": "Compute Instance",
                "attributes": {
                    "instanceType": instance_type,
                    "regionCode": region,
                    "location": "US East (Ohio)",
                    "locationType": "AWS Region",
                    "operatingSystem": "Linux",
                    "tenancy": "Shared",
                    "preInstalledSw": "NA",
                    "capacitystatus": "Used",
                    "marketoption": market,
                    "licenseModel": "No License required",
                    "usagetype": f"USE2-BoxUsage:{instance_type}",
                    "operation": "RunInstances",
                    "vcpu": "192",
                    "memory": "2048 GiB",
                    "servicecode": "AmazonEC2",
                    "servicename": "Amazon Elastic Compute Cloud",
                },
                "sku": sku,
            },
            "serviceCode": "AmazonEC2",
            "terms": {
                "OnDemand": {
                    f"{sku}.JRTCKXETXF": {
                        "priceDimensions": {
                            f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": "Hrs",
                                "endRange": "Inf",
                                "beginRange": "0",
                                "appliesTo": [],
                                "description": f"${usd} per On Demand Linux {instance_type} Instance Hour",
                                "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                                "pricePerUnit": {"USD": usd},
                            }
                        },
                        "sku": sku,
                        "effectiveDate": "2026-11-01T00:00:00Z",
                        "offerTermCode": "JRTCKXETXF",
                        "termAttributes": {},
                    }
                }
            },
            "version": "20261120193045",
            "publicationDate": "2026-11-20T19:30:45Z",
        }
    )


def lustre_product(
    region: str, option: str, storage: str, throughput: str, usd: str, sku: str, usagetype: str = "USE2-Storage"
) -> str:
    return json.dumps(
        {
            "product": {
                "productFamily": "Storage",
                "sku": sku,
                "attributes": {
                    "regionCode": region,
                    "fileSystemType": "Lustre",
                    "deploymentOption": option,
                    "storageType": storage,
                    "throughputCapacity": throughput,
                    "usagetype": usagetype,
                    "servicecode": "AmazonFSx",
                },
            },
            "serviceCode": "AmazonFSx",
            "terms": {
                "OnDemand": {
                    f"{sku}.JRTCKXETXF": {
                        "priceDimensions": {
                            f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": "GB-Mo",
                                "pricePerUnit": {"USD": usd},
                                "description": f"{usd} per GB-month",
                                "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                                "beginRange": "0",
                                "endRange": "Inf",
                                "appliesTo": [],
                            }
                        },
                        "sku": sku,
                        "effectiveDate": "2026-11-01T00:00:00Z",
                        "offerTermCode": "JRTCKXETXF",
                        "termAttributes": {},
                    }
                }
            },
            "version": "20261120193045",
            "publicationDate": "2026-11-20T19:30:45Z",
        }
    )


LUSTRE_ROWS = [
    lustre_product("us-east-2", "Scratch", "SSD", "N/A", "0.1400000000", "SCR2"),
    lustre_product("us-east-2", "Persistent", "SSD", "125", "0.1450000000", "P125"),
    lustre_product("us-east-2", "Persistent", "SSD", "250", "0.2100000000", "P250"),
    lustre_product("us-east-2", "Persistent", "SSD", "500", "0.3400000000", "P500"),
    lustre_product("us-east-2", "Persistent", "SSD", "250", "0.0500000000", "BKUP", usagetype="USE2-BackupUsage"),
]


def ebs_product(
    region: str,
    volume_type: str,
    usd: str,
    sku: str,
    family: str = "Storage",
    usagetype: str | None = None,
    unit: str = "GB-Mo",
) -> str:
    """An AmazonEC2 EBS product as GetProducts returns it (the shape of the EBS rows of the EC2 offer file):
    storage by default; a provisioned IOPS row is family "System Operation", usage type
    `USE2-EBS:VolumeP-IOPS.io2.tier2` and unit IOPS-Mo, gp3's throughput "Provisioned Throughput" in GiBps-mo."""
    return json.dumps(
        {
            "product": {
                "productFamily": family,
                "sku": sku,
                "attributes": {
                    "regionCode": region,
                    "volumeApiName": volume_type,
                    "volumeType": "General Purpose",
                    "usagetype": usagetype or f"USE2-EBS:VolumeUsage.{volume_type}",
                    "storageMedia": "SSD-backed",
                    "servicecode": "AmazonEC2",
                },
            },
            "serviceCode": "AmazonEC2",
            "terms": {
                "OnDemand": {
                    f"{sku}.JRTCKXETXF": {
                        "priceDimensions": {
                            f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": unit,
                                "pricePerUnit": {"USD": usd},
                                "description": f"${usd} per {unit} of {volume_type}",
                                "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                                "beginRange": "0",
                                "endRange": "Inf",
                                "appliesTo": [],
                            }
                        },
                        "sku": sku,
                        "effectiveDate": "2026-11-01T00:00:00Z",
                        "offerTermCode": "JRTCKXETXF",
                        "termAttributes": {},
                    }
                }
            },
            "version": "20261120193045",
            "publicationDate": "2026-11-20T19:30:45Z",
        }
    )


EBS_USD = "0.0876000000"  # a test figure: a 500 GiB root volume costs $0.06 an hour (500 x 0.0876 / 730)


def expect_ebs(aws: StubbedAws, region: str, rows: list[str] | None = None) -> None:
    aws.stub("pricing", "us-east-1").add_response(
        "get_products",
        {
            "FormatVersion": "aws_v1",
            "PriceList": [ebs_product(region, "gp3", EBS_USD, "GP3")] if rows is None else rows,
        },
        {"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "Filters": pricing.ebs_filters(region)},
    )


def expect_ec2(aws: StubbedAws, instance_type: str, region: str, rows: list[str]) -> None:
    aws.stub("pricing", "us-east-1").add_response(
        "get_products",
        {"FormatVersion": "aws_v1", "PriceList": rows},
        {"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "Filters": pricing.ec2_filters(instance_type, region)},
    )


def expect_lustre(aws: StubbedAws, region: str) -> None:
    aws.stub("pricing", "us-east-1").add_response(
        "get_products",
        {"FormatVersion": "aws_v1", "PriceList": LUSTRE_ROWS},
        {"ServiceCode": "AmazonFSx", "FormatVersion": "aws_v1", "Filters": pricing.lustre_filters(region)},
    )


# --- the Price List query and its rows --------------------------------------------------------


def test_ec2_filters_ask_for_on_demand_linux_shared_used() -> None:
    fields = {f["Field"]: f["Value"] for f in pricing.ec2_filters("trn2.48xlarge", "us-east-2")}
    assert fields == {
        "instanceType": "trn2.48xlarge",
        "regionCode": "us-east-2",
        "operatingSystem": "Linux",
        "tenancy": "Shared",
        "preInstalledSw": "NA",
        "capacitystatus": "Used",
        "marketoption": "OnDemand",
    }


def test_on_demand_row_is_taken_and_a_capacity_block_row_priced_zero_is_not() -> None:
    aws = StubbedAws()
    expect_ec2(
        aws,
        "trn2.48xlarge",
        "us-east-2",
        [
            ec2_product("trn2.48xlarge", "us-east-2", "0.0000000000", "CBLOCK", market="CapacityBlock"),
            ec2_product("trn2.48xlarge", "us-east-2", "37.5000000000", "ONDEMAND"),
        ],
    )
    offer = pricing.ec2_on_demand(aws.client("pricing", "us-east-1"), "trn2.48xlarge", "us-east-2")
    assert (offer.usd, offer.sku, offer.published) == (37.5, "ONDEMAND", "2026-11-20")
    assert offer.source("AmazonEC2") == "AWS Price List Query API (AmazonEC2, sku ONDEMAND, published 2026-11-20)"
    aws.assert_no_pending()


def test_only_zero_rows_or_disagreeing_rows_give_no_price() -> None:
    aws = StubbedAws()
    expect_ec2(aws, "trn2u.48xlarge", "us-east-2", [ec2_product("trn2u.48xlarge", "us-east-2", "0.0000000000", "Z")])
    expect_ec2(
        aws,
        "p5.48xlarge",
        "us-east-2",
        [ec2_product("p5.48xlarge", "us-east-2", "55.04", "A"), ec2_product("p5.48xlarge", "us-east-2", "98.32", "B")],
    )
    client = aws.client("pricing", "us-east-1")
    with pytest.raises(pricing.NoPrice, match="only rows priced 0"):
        pricing.ec2_on_demand(client, "trn2u.48xlarge", "us-east-2")
    with pytest.raises(pricing.NoPrice, match=r"several prices .*55.04 \(sku A\), 98.32 \(sku B\)"):
        pricing.ec2_on_demand(client, "p5.48xlarge", "us-east-2")


def test_an_unreadable_price_list_entry_is_no_price() -> None:
    with pytest.raises(pricing.NoPrice, match="unreadable PriceList entry"):
        pricing.offers(
            [
                '{"product": {"sku": "X"}, "terms": {"OnDemand": {"X.T": {"priceDimensions": '
                '{"X.T.D": {"unit": "Hrs", "pricePerUnit": {"USD": "n/a"}}}}}}}'
            ]
        )


def test_a_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "planner" / "live-prices.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        '{"version": 1, "entries": {"ec2 p5.48xlarge us-east-1": {"fetched_at": "2026-11-29T14:00:00", '
        '"entry": {}}, "ec2 trn1.32xlarge us-east-1": "junk"}}'
    )
    cache = PriceCache(str(path), NOW)
    assert cache.get("ec2 p5.48xlarge us-east-1") is None  # no time zone: fetched again
    assert cache.get("ec2 trn1.32xlarge us-east-1") is None
    path.write_text("not json")
    assert PriceCache(str(path), NOW).entries == {}


@pytest.mark.parametrize(
    ("deployment", "throughput", "usd", "sku"),
    [
        ("PERSISTENT_2", 250, 0.21, "P250"),
        ("PERSISTENT_2", 125, 0.145, "P125"),
        ("SCRATCH_2", None, 0.14, "SCR2"),
    ],
)
def test_lustre_storage_row_by_deployment_and_throughput(
    deployment: str, throughput: int | None, usd: float, sku: str
) -> None:
    aws = StubbedAws()
    expect_lustre(aws, "us-east-2")
    offer = pricing.lustre_storage(aws.client("pricing", "us-east-1"), "us-east-2", deployment, throughput)
    assert (offer.usd, offer.sku) == (usd, sku)  # the backup row at 250 is never the storage price


def test_lustre_throughput_without_a_row() -> None:
    aws = StubbedAws()
    expect_lustre(aws, "us-east-2")
    with pytest.raises(pricing.NoPrice, match="PERSISTENT_2 1000 MB/s/TiB SSD in us-east-2"):
        pricing.lustre_storage(aws.client("pricing", "us-east-1"), "us-east-2", "PERSISTENT_2", 1000)


# --- what is fetched, the cache, the overlay ---------------------------------------------------


def test_needs_are_the_on_demand_groups_and_file_systems(stack_file) -> None:
    block = stack_file(
        """
availability_zone: us-east-1a
node_groups:
  - {name: gpus, instance_type: p5en.48xlarge, count: 8, purchase: capacity-block}
placement_group: none
lustre: {deployment_type: PERSISTENT_2, storage_capacity_gib: 4800, per_unit_storage_throughput: 500}
""",
        region="us-east-1",
        name="block",
    )
    needs = needs_for([load_stack(TRN2_DEV), load_stack(str(block))])
    assert needs.instances == {("trn2.48xlarge", "us-east-2")}  # p5en-train buys a Capacity Block
    assert needs.lustre == {("us-east-2", "SCRATCH_2", None), ("us-east-1", "PERSISTENT_2", 500)}
    assert needs.ebs == {("us-east-2", "gp3", "storage"), ("us-east-1", "gp3", "storage")}  # also of Capacity Blocks
    assert needs_for(region="us-west-2", types=["p5.48xlarge"]).instances == {("p5.48xlarge", "us-west-2")}


def _fetch_trn2_dev(aws: StubbedAws, now: dt.datetime = NOW) -> live_prices.LivePrices:
    cache = PriceCache(live_prices.cache_path(), now)
    return fetch(needs_for([load_stack(TRN2_DEV)]), lambda: aws.client("pricing", "us-east-1"), cache)


def test_live_prices_date_the_book_by_the_fetch(tmp_path: Path) -> None:
    """Live entries are dated the day they are fetched (here pinned to 2027-02-01), and the layered book takes
    the newest date of its layers: the age of every price left to the book is counted to the fetch."""
    from planner.core.cost.estimate import estimate

    aws = StubbedAws()
    expect_ec2(aws, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "37.5000000000", "T")])
    expect_lustre(aws, "us-east-2")
    expect_ebs(aws, "us-east-2")
    got = _fetch_trn2_dev(aws, dt.datetime(2027, 2, 1, 12, 0, tzinfo=dt.UTC))
    book = load_price_book(None).overlay(got.book_data(), "aws-price-list")
    assert book.as_of == "2027-02-01" and load_price_book(None).as_of == "2026-12-04"
    age = estimate(load_stack(TRN2_DEV), book).price_age
    assert age is None  # every price trn2-dev uses is live: none older than the fetch


def test_fetch_builds_price_book_entries_and_caches_them(tmp_path: Path) -> None:
    aws = StubbedAws()
    expect_ec2(aws, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "37.5000000000", "T")])
    expect_lustre(aws, "us-east-2")
    expect_ebs(aws, "us-east-2")
    got = _fetch_trn2_dev(aws)
    assert got.data == {
        "instances": [
            {
                "instance_type": "trn2.48xlarge",
                "region": "us-east-2",
                "purchase": "on-demand",
                "usd_per_hour": 37.5,
                "source": "AWS Price List Query API (AmazonEC2, sku T, published 2026-11-20)",
                "as_of": TODAY,
            }
        ],
        "lustre": [
            {
                "region": "us-east-2",
                "deployment_type": "SCRATCH_2",
                "usd_per_gb_month": 0.14,
                "source": "AWS Price List Query API (AmazonFSx, sku SCR2, published 2026-11-20)",
                "as_of": TODAY,
            }
        ],
        "ebs": [
            {
                "region": "us-east-2",
                "volume_type": "gp3",
                "usd_per_gb_month": 0.0876,
                "source": "AWS Price List Query API (AmazonEC2, sku GP3, published 2026-11-20)",
                "as_of": TODAY,
            }
        ],
    }
    assert (got.fetched, got.cached, got.failure) == (3, 0, None)
    book = load_price_book(None).overlay(got.book_data(), live_prices.ORIGIN)
    price = book.instance("trn2.48xlarge", "us-east-2", "on-demand")
    assert (price.usd, price.as_of, price.book) == (37.5, TODAY, "live")
    assert book.ebs_price("us-east-2", "gp3").usd == 0.0876
    cache_file = tmp_path / "cache" / "planner" / "live-prices.json"
    saved = json.loads(cache_file.read_text())["entries"]
    assert saved["ec2 trn2.48xlarge us-east-2"]["fetched_at"] == "2026-11-29T15:00:00+00:00"
    # within the TTL nothing is asked again (the Stubber has no more responses: any call would fail)
    again = _fetch_trn2_dev(aws, NOW + dt.timedelta(hours=23))
    assert (again.fetched, again.cached, again.data) == (0, 3, got.data)
    aws.assert_no_pending()


def test_expired_cache_entries_are_fetched_again() -> None:
    aws = StubbedAws()
    expect_ec2(aws, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "37.5", "T")])
    expect_lustre(aws, "us-east-2")
    expect_ebs(aws, "us-east-2")
    _fetch_trn2_dev(aws)
    expect_ec2(aws, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "36.0", "T")])
    expect_lustre(aws, "us-east-2")
    expect_ebs(aws, "us-east-2")
    later = _fetch_trn2_dev(aws, NOW + dt.timedelta(hours=25))
    assert later.fetched == 3 and later.data["instances"][0]["usd_per_hour"] == 36.0
    assert later.data["instances"][0]["as_of"] == "2026-11-30"


def test_a_type_without_an_on_demand_price_is_cached_as_missing() -> None:
    aws = StubbedAws()
    expect_ec2(aws, "trn2u.48xlarge", "us-east-2", [])
    cache = PriceCache(live_prices.cache_path(), NOW)
    got = fetch(
        PriceNeeds(frozenset({("trn2u.48xlarge", "us-east-2")})), lambda: aws.client("pricing", "us-east-1"), cache
    )
    assert got.missing == ("trn2u.48xlarge us-east-2",) and got.data == {"instances": [], "lustre": [], "ebs": []}
    assert "none in the Price List for trn2u.48xlarge us-east-2" in got.summary()
    cached = fetch(
        PriceNeeds(frozenset({("trn2u.48xlarge", "us-east-2")})),
        lambda: aws.client("pricing", "us-east-1"),
        PriceCache(live_prices.cache_path(), NOW),
    )
    assert (cached.cached, cached.missing) == (1, ("trn2u.48xlarge us-east-2",))


# --- the commands: plan, compare, diff ------------------------------------------------------------


@pytest.fixture
def stubbed_pricing(monkeypatch: pytest.MonkeyPatch) -> StubbedAws:
    aws = StubbedAws()
    monkeypatch.setattr(live_prices, "pricing_client", lambda profile=None: lambda: aws.client("pricing", "us-east-1"))
    return aws


def test_plan_with_live_prices_prices_what_the_book_does_not_know(stubbed_pricing: StubbedAws) -> None:
    expect_ec2(stubbed_pricing, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "37.5", "T")])
    expect_lustre(stubbed_pricing, "us-east-2")
    expect_ebs(stubbed_pricing, "us-east-2")
    res = run_cli("plan", TRN2_DEV, "--live-prices", "--format", "json")
    cost = json.loads(res.out)["stacks"][0]["cost"]
    trainers = next(i for i in cost["line_items"] if i["name"] == "trainers")
    assert trainers["unit_price_usd"] == 37.5 and trainers["total_usd"] == 2 * 37.5 * 168
    assert (
        trainers["as_of"] == dt.datetime.now(dt.UTC).date().isoformat()
        and "AWS Price List Query API" in trainers["source"]
    )
    assert cost["complete"] is True and cost["price_book"] == "current + live"
    roots = next(i for i in cost["line_items"] if i["name"] == "trainers root volumes")
    assert roots["unit_price_usd"] == 0.0876 and roots["total_usd"] == round(2 * 500 * 168 / 730 * 0.0876, 2)
    assert res.err == "planner: live prices: 3 fetched; 0 from the cache (24 h)\n"
    stubbed_pricing.assert_no_pending()


def test_compare_with_live_prices(stubbed_pricing: StubbedAws) -> None:
    expect_ec2(stubbed_pricing, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "37.5", "T")])
    res = run_cli(
        "compare",
        "--parameters",
        "7e9",
        "--tokens",
        "1e11",
        "--mfu",
        "0.4",
        "--instances",
        "2",
        "--instance-type",
        "trn2.48xlarge",
        "--region",
        "us-east-2",
        "--live-prices",
        "--format",
        "json",
    )
    assert res.code == 0, res.err
    (on_demand,) = [c for c in json.loads(res.out)["compare"]["candidates"] if c["purchase"] == "on-demand"]
    assert on_demand["usd_per_hour"] == 37.5 and on_demand["as_of"] == dt.datetime.now(dt.UTC).date().isoformat()


def test_diff_with_live_prices(stubbed_pricing: StubbedAws, stack_file) -> None:
    expect_ec2(stubbed_pricing, "trn2.48xlarge", "us-east-2", [ec2_product("trn2.48xlarge", "us-east-2", "37.5", "T")])
    expect_ebs(stubbed_pricing, "us-east-2")
    base = stack_file(
        "availability_zone: us-east-2b\nnode_groups:\n  - {name: t, instance_type: trn2.48xlarge, count: 2}\n"
        "schedule: {hours: 100}\n",
        name="a",
    )
    head_dir = base.parent / "head"
    head_dir.mkdir()
    head = head_dir / "Pulumi.a.yaml"
    head.write_text(base.read_text().replace("count: 2", "count: 4"))
    res = run_cli("diff", str(base), str(head), "--live-prices", "--format", "json")
    (stack,) = json.loads(res.out)["diff"]["stacks"]
    root = 6.0  # a root volume over the run at the live gp3 price: 500 GiB x 100 h / 730 x 0.0876
    assert (stack["total"]["before_usd"], stack["total"]["after_usd"]) == (
        round(2 * (37.5 * 100 + root), 2),
        round(4 * (37.5 * 100 + root), 2),
    )
    assert stack["total"]["change_usd"] == round(2 * (37.5 * 100 + root), 2)


# --- fallback: the API cannot be used -------------------------------------------------------------


def _plan_falls_back(res: Any, reason: str) -> None:
    assert res.code == 0
    first = res.err.splitlines()[0]
    assert first.startswith("planner: warning: live prices unavailable (") and reason in first
    assert first.endswith("using the price book 'current' for every price")
    cost = json.loads(res.out)["stacks"][0]["cost"]
    # no live price: every priced item is the book's (trn2-dev's on-demand trn2.48xlarge has none at all)
    assert cost["price_book"] == "current" and {
        i["price_book"] for i in cost["line_items"] if i["unit_price_usd"] is not None
    } == {"current"}


def test_unreachable_price_list_falls_back_to_the_book(stubbed_pricing: StubbedAws) -> None:
    stubbed_pricing.fail_on_send(
        "pricing", "us-east-1", EndpointConnectionError(endpoint_url="https://api.pricing.us-east-1.amazonaws.com/")
    )
    _plan_falls_back(run_cli("plan", TRN2_DEV, "--live-prices", "--format", "json"), "could not reach the AWS endpoint")


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("AccessDeniedException", "access denied to pricing:GetProducts"),
        ("ThrottlingException", "AWS throttled pricing:GetProducts"),
    ],
)
def test_denied_or_throttled_price_list_falls_back(stubbed_pricing: StubbedAws, code: str, reason: str) -> None:
    stubbed_pricing.stub("pricing", "us-east-1").add_client_error("get_products", code, "no", 400)
    _plan_falls_back(run_cli("plan", TRN2_DEV, "--live-prices", "--format", "json"), reason)


def test_no_credentials_falls_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate(monkeypatch, tmp_path, credentials=False)
    _plan_falls_back(run_cli("plan", TRN2_DEV, "--live-prices", "--format", "json"), "no AWS credentials found")
