"""`planner prices refresh` against botocore's Stubber (moto has no `pricing` service and no
Capacity Block offerings): answers shaped like AWS's, test figures (arithmetic, not prices),
partial answers, access denied, and the atomic write."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from test_live_prices import LUSTRE_ROWS, ebs_product, ec2_product
from test_preflight_helpers import StubbedAws

from planner.aws import pricing, refresh
from planner.commands import prices
from planner.core.catalogue.instance_types import load as load_catalogue
from planner.core.cost import load_price_book
from planner.core.cost.offers import not_sold

CAT = load_catalogue()


def _sold(purchase: str, region: str = "us-east-2") -> list[str]:
    """The catalogue's types a refresh asks about in `region`, in catalogue order (the order it asks)."""
    return [
        t.name
        for t in CAT.instance_types.values()
        if region in t.regions
        and not_sold(t.name, region, purchase) is None
        and (t.capacity_block if purchase == "capacity-block" else not CAT.is_member(t.name))
    ]


pytestmark = pytest.mark.usefixtures("isolated_aws")  # fake credentials and config (conftest)


# trn2.48xlarge: the Price List answers with no on-demand row (as it did for it in 2026), so the
# refresh leaves it unpriced and says so
ON_DEMAND = {
    "trn2.48xlarge": None,
    "p4d.24xlarge": "21.9576400000",
    "p5en.48xlarge": "63.2960000000",
    "p5.48xlarge": "55.0400000000",
    "trn1.32xlarge": "21.5000000000",
    "trn1n.32xlarge": "24.7800000000",
    "p6-b200.48xlarge": "113.9328000000",
    "p5.4xlarge": "6.8800000000",
    "trn1.2xlarge": "1.3437500000",
    "g6e.48xlarge": "30.1311800000",
    "g6e.24xlarge": "15.0655900000",
    "g7e.48xlarge": "33.1443200000",
    "g7e.24xlarge": "16.5721600000",
}


def _args(out: Path, *more: str) -> argparse.Namespace:
    return argparse.Namespace(
        output=str(out),
        region=["us-east-2"],
        no_capacity_blocks="--no-cb" in more,
        profile=None,
        aws_timeout=prices.REFRESH_TIMEOUT_SECONDS,
    )


def _stub_pricing(aws: StubbedAws, fail_at: str | None = None) -> None:
    # A Stubber answers in order and rejects a call it did not expect; the refresh records that
    # rejection as one more missing item, so stubs out of line with the catalogue fail silently.
    assert list(ON_DEMAND) == _sold("on-demand"), (
        "ON_DEMAND must list the catalogue's on-demand types in us-east-2, in order"
    )
    stub = aws.stub("pricing", "us-east-1")
    for itype, usd in ON_DEMAND.items():  # catalogue order; trn2u and p5e are not sold on demand
        params = {
            "ServiceCode": "AmazonEC2",
            "FormatVersion": "aws_v1",
            "Filters": pricing.ec2_filters(itype, "us-east-2"),
        }
        if itype == fail_at:
            stub.add_client_error("get_products", "ThrottlingException", "Rate exceeded", expected_params=params)
            continue
        if usd is None:
            stub.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": []}, params)
            continue
        stub.add_response(
            "get_products",
            {"FormatVersion": "aws_v1", "PriceList": [ec2_product(itype, "us-east-2", usd, f"SKU{itype[:4]}")]},
            params,
        )
    stub.add_response(
        "get_products",
        {"FormatVersion": "aws_v1", "PriceList": LUSTRE_ROWS},
        {"ServiceCode": "AmazonFSx", "FormatVersion": "aws_v1", "Filters": pricing.lustre_filters("us-east-2")},
    )
    for vtype, family, usage, unit, usd in EBS_ROWS:  # in the refresh's order (`EBS_CHARGES`)
        sku = (vtype + (usage.rsplit(".", 1)[-1] if usage else "")).upper()  # GP3, IO2TIER2, GP3GP3 ...
        row = ebs_product("us-east-2", vtype, usd, sku, family, f"USE2-{usage}" if usage else None, unit)
        stub.add_response(
            "get_products",
            {"FormatVersion": "aws_v1", "PriceList": [row]},
            {
                "ServiceCode": "AmazonEC2",
                "FormatVersion": "aws_v1",
                "Filters": pricing.ebs_filters("us-east-2", vtype, family),
            },
        )


# Each EBS row the refresh asks for, with us-east-2's figures in AWS's EBS pricing-page data of 2024-07-18
# (the built-in book's copy): (volume type, product family, usage type, unit, USD).
EBS_ROWS = (
    ("gp2", "Storage", "", "GB-Mo", "0.1000000000"),
    ("gp3", "Storage", "", "GB-Mo", "0.0800000000"),
    ("io1", "Storage", "", "GB-Mo", "0.1250000000"),
    ("io2", "Storage", "", "GB-Mo", "0.1250000000"),
    ("st1", "Storage", "", "GB-Mo", "0.0450000000"),
    ("sc1", "Storage", "", "GB-Mo", "0.0150000000"),
    ("gp3", "System Operation", "EBS:VolumeP-IOPS.gp3", "IOPS-Mo", "0.0050000000"),
    ("io1", "System Operation", "EBS:VolumeP-IOPS.piops", "IOPS-Mo", "0.0650000000"),
    ("io2", "System Operation", "EBS:VolumeP-IOPS.io2", "IOPS-Mo", "0.0650000000"),
    ("io2", "System Operation", "EBS:VolumeP-IOPS.io2.tier2", "IOPS-Mo", "0.0455000000"),
    ("io2", "System Operation", "EBS:VolumeP-IOPS.io2.tier3", "IOPS-Mo", "0.0318500000"),
    ("gp3", "Provisioned Throughput", "EBS:VolumeP-Throughput.gp3", "GiBps-mo", "40.9600000000"),
)


def test_on_demand_and_lustre_make_a_book_planner_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aws = StubbedAws()
    _stub_pricing(aws)
    out = tmp_path / "aws.yaml"
    code = prices.run(_args(out, "--no-cb"), client=aws.client)
    aws.assert_no_pending()
    unpriced = [line for line in capsys.readouterr().err.splitlines() if "not priced:" in line]
    # every instance type with a Price List row was priced
    assert unpriced and all(
        "not priced: lustre " in line or "not priced: trn2.48xlarge on-demand" in line for line in unpriced
    )
    assert code == 1  # partial: the test Price List has no SCRATCH_1, PERSISTENT_1 or 1000 MB/s/TiB rows
    book = load_price_book(str(out))
    p5 = book.instance("p5.48xlarge", "us-east-2", "on-demand")
    assert p5.usd == 55.04 and p5.source.startswith("AWS Price List Query API (AmazonEC2, sku SKUp5.4")
    assert p5.as_of == refresh.today_utc() and p5.book == "aws-" + refresh.today_utc()
    assert book.lustre_price("us-east-2", "PERSISTENT_2", 250).usd == 0.21  # the backup row is not storage
    assert book.lustre_price("us-east-2", "SCRATCH_2", None).usd == 0.14
    gp3 = book.ebs_price("us-east-2", "gp3")  # AmazonEC2 Storage, volumeApiName gp3
    assert gp3.usd == 0.08 and gp3.source == "AWS Price List Query API (AmazonEC2, sku GP3, published 2026-11-20)"
    assert gp3.book == "aws-" + refresh.today_utc()
    assert [book.ebs_price("us-east-2", t).usd for t in ("gp2", "io1", "io2", "st1", "sc1")] == [
        0.1,
        0.125,
        0.125,
        0.045,
        0.015,
    ]
    tiers = [book.ebs_price("us-east-2", "io2", c) for c in ("iops", "iops-tier-2", "iops-tier-3")]
    assert [(p.usd, p.unit) for p in tiers] == [(0.065, "IOPS-month"), (0.0455, "IOPS-month"), (0.03185, "IOPS-month")]
    assert book.ebs_price("us-east-2", "io1", "iops").usd == 0.065  # usage type EBS:VolumeP-IOPS.piops
    assert book.ebs_price("us-east-2", "gp3", "iops").usd == 0.005
    tput = book.ebs_price("us-east-2", "gp3", "throughput")  # 40.96 USD per GiB/s-month over 1,024 MiB/s
    assert (tput.usd, tput.unit) == (0.04, "MiBps-month")
    assert not list(tmp_path.glob(".prices-*"))  # the temporary file was renamed


def test_capacity_blocks_per_instance_hour_and_ultraservers_by_ultraserver(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    aws = StubbedAws()
    _stub_pricing(aws)
    ec2 = aws.stub("ec2", "us-east-2")
    # an answer per type, in catalogue order: trn2, trn2u (by UltraServer), p4d, p5en, p5e, p5, trn1, p6-b200
    fees = {
        "trn2.48xlarge": ("858.2592", 1, None),
        "trn2u.48xlarge": ("3433.0368", None, 1),
        "p4d.24xlarge": ("283.2", 1, None),
        "p5en.48xlarge": ("1318.08", 1, None),
        "p5e.48xlarge": ("1146.24", 1, None),
        "p5.48xlarge": ("996.672", 1, None),
        "trn1.32xlarge": ("228.768", 1, None),
        "p6-b200.48xlarge": ("2372.16", 1, None),
        "p5.4xlarge": ("124.584", 1, None),
    }
    assert list(fees) == _sold("capacity-block"), (
        "fees must list the catalogue's Capacity Block types in us-east-2, in order"
    )
    for itype, (fee, count, ultra) in fees.items():
        offer = {
            "CapacityBlockOfferingId": f"cbr-{itype[:4]}",
            "AvailabilityZone": "us-east-2b",
            "CapacityBlockDurationHours": 24,
            "UpfrontFee": fee,
            "CurrencyCode": "USD",
            "Tenancy": "default",
        }
        ask = {"CapacityDurationHours": 24}
        if ultra:
            offer.update(UltraserverType="u-trn2x64", UltraserverCount=ultra)
            ask.update(UltraserverType="u-trn2x64", UltraserverCount=1)
        else:
            offer.update(InstanceType=itype, InstanceCount=count)
            ask.update(InstanceType=itype, InstanceCount=1)
        ec2.add_response("describe_capacity_block_offerings", {"CapacityBlockOfferings": [offer]}, ask)
    out = tmp_path / "aws.yaml"
    prices.run(_args(out), client=aws.client)
    aws.assert_no_pending()
    unpriced = [line for line in capsys.readouterr().err.splitlines() if "not priced:" in line]
    assert unpriced and all(
        "not priced: lustre " in line or "not priced: trn2.48xlarge on-demand" in line for line in unpriced
    )
    book = load_price_book(str(out))
    assert book.instance("p4d.24xlarge", "us-east-2", "capacity-block").usd == round(283.2 / 24, 4)
    assert book.instance("trn2.48xlarge", "us-east-2", "capacity-block").usd == round(858.2592 / 24, 4)
    us = book.instance("trn2u.48xlarge", "us-east-2", "capacity-block")
    assert us.usd == round(3433.0368 / 24 / 4, 4)  # one UltraServer = four trn2u.48xlarge
    assert "1 UltraServer(s) (u-trn2x64)" in us.note and "offering cbr-trn2" in us.note
    assert book.instance("p5.48xlarge", "us-east-2", "capacity-block").usd == round(996.672 / 24, 4)


def test_throttling_and_access_denied_give_a_partial_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aws = StubbedAws()
    _stub_pricing(aws, fail_at="trn1.32xlarge")
    aws.stub("ec2", "us-east-2").add_client_error(
        "describe_capacity_block_offerings",
        "UnauthorizedOperation",
        "You are not authorized to perform this operation.",
        expected_params={"CapacityDurationHours": 24, "InstanceType": "trn2.48xlarge", "InstanceCount": 1},
    )
    out = tmp_path / "aws.yaml"
    code = prices.run(_args(out), client=aws.client)
    err = capsys.readouterr().err
    assert code == 1
    assert "trn1.32xlarge on-demand us-east-2: AWS throttled pricing:GetProducts" in err
    assert "stopped asking: access denied to ec2:DescribeCapacityBlockOfferings in us-east-2" in err
    others = len(_sold("capacity-block")) - 1  # every Capacity Block type after trn2.48xlarge, the first
    assert f"not asked: {others} more items" in err
    book = load_price_book(str(out))
    assert book.instance("p5.48xlarge", "us-east-2", "on-demand").usd == 55.04
    assert book.instance("trn1.32xlarge", "us-east-2", "on-demand").usd == 21.5  # the built-in book's, underneath
    assert all(line.startswith("planner: ") for line in err.splitlines())


def test_nothing_fetched_writes_nothing_and_keeps_the_old_file(tmp_path: Path) -> None:
    out = tmp_path / "aws.yaml"
    out.write_text("name: old\n", encoding="utf-8")

    def no_credentials(service: str, region: str):  # noqa: ANN202
        from planner.aws.errors import NO_CREDENTIALS, AwsCallError

        raise AwsCallError("pricing:GetProducts", NO_CREDENTIALS, "NoCredentials")

    assert prices.run(_args(out), client=no_credentials) == 1
    assert out.read_text(encoding="utf-8") == "name: old\n"


def test_a_failed_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    from planner.core.reading.problems import InputError

    with pytest.raises(InputError, match="cannot write: disk full"):  # one line naming the file (exit 2)
        refresh.write_book(str(tmp_path / "aws.yaml"), {"name": "x"})
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    res = run_cli("prices", "refresh", "-o", str(tmp_path / "no" / "such" / "dir.yaml"))
    assert res.code == 2 and "no such directory" in res.err
    assert not any("af-south-1" in t.regions for t in CAT.instance_types.values()), "pick a region the catalogue lacks"
    res = run_cli("prices", "refresh", "-o", str(tmp_path / "x.yaml"), "--region", "af-south-1")
    assert res.code == 2 and "no catalogue instance type is offered in 'af-south-1'" in res.err


def test_a_type_outside_the_training_types_is_refreshed_by_name(tmp_path: Path) -> None:
    """`--type m7i.large`: any type AWS lists, from the generated table; only it is asked on demand."""
    todo = refresh.items(CAT, ["us-east-2"], "2026-12-05", capacity_blocks=False, types=[CAT.spec("m7i.large")])
    assert [i.label for i in todo if i.kind == "instances"] == ["m7i.large on-demand us-east-2"]
    # near miss: without --type, the training types (as before), and no m7i
    every = refresh.items(CAT, ["us-east-2"], "2026-12-05", capacity_blocks=False)
    assert [i.label.split()[0] for i in every if i.kind == "instances"] == _sold("on-demand")
    from tests.conftest import run_cli

    res = run_cli("prices", "refresh", "-o", str(tmp_path / "x.yaml"), "--type", "m7i.larg")
    assert res.code == 2 and "unknown instance type 'm7i.larg' (did you mean 'm7i.large'?)" in res.err


def test_refresh_is_off_the_plan_path() -> None:
    import subprocess
    import sys

    code = "import sys, planner.cli; planner.cli.build_parser(); print('boto3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    assert json.dumps(refresh.LUSTRE_TIERS)  # the tiers are plain data


def test_the_overall_deadline_keeps_what_was_fetched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 14, item 11 for `prices refresh`: an endpoint that stops answering cannot hold the
    job past --aws-timeout; the prices fetched before are written as a partial book (exit 1)."""
    import time

    calls = {"n": 0}

    class Slow:
        """The Price List client's paginator: the first answer comes, the second never does."""

        def get_paginator(self, name: str) -> Slow:
            return self

        def paginate(self, **kw: object) -> list[dict]:
            calls["n"] += 1
            if calls["n"] == 1:
                itype = next(iter(ON_DEMAND))
                return [{"FormatVersion": "aws_v1", "PriceList": [ec2_product(itype, "us-east-2", "85.964", "SKU1")]}]
            time.sleep(30)  # a silent endpoint: interrupted by the deadline, long before this ends
            raise AssertionError("not interrupted")

    args = _args(tmp_path / "book.yaml", "--no-cb")
    args.aws_timeout = 1.0
    code = prices.run(args, client=lambda service, region: Slow())  # how soon it ends: `make bench`
    err = capsys.readouterr().err
    assert code == 1 and "--aws-timeout" in err and calls["n"] == 2  # nothing asked after the deadline
    assert (tmp_path / "book.yaml").exists()
