"""`planner capacity` against botocore's Stubber: every response is validated against the EC2 API
model (moto does not implement DescribeCapacityBlockOfferings). Three regions that differ in
price and start, blocks combined in one zone, and each fault that must become a region's line.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from planner.cli import main
from tests.conftest import ROOT
from tests.test_preflight_helpers import StubbedAws
from tests.test_ultraserver_types import GB200 as ULTRA  # two u-p6e-gb200x72, one reservation id each

pytestmark = pytest.mark.usefixtures("isolated_aws")

UTC = dt.UTC
META = {"ResponseMetadata": {"RequestId": "2f1e0c55-0a7b-4c1e-9d0e-8b3b1d1f0a01", "HTTPStatusCode": 200}}


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def offering(
    oid: str, az: str, start: str, end: str, fee: str, count: int = 16, itype: str = "p5en.48xlarge", **extra: Any
) -> dict[str, Any]:
    """A CapacityBlockOffering as EC2 returns it (the duration from the dates, as AWS reports it)."""
    s, e = at(start), at(end)
    minutes = int((e - s).total_seconds() // 60)
    return {
        "CapacityBlockOfferingId": oid,
        "InstanceType": itype,
        "AvailabilityZone": az,
        "InstanceCount": count,
        "StartDate": s,
        "EndDate": e,
        "CapacityBlockDurationHours": minutes // 60,
        "CapacityBlockDurationMinutes": minutes % 60,
        "UpfrontFee": fee,
        "CurrencyCode": "USD",
        "Tenancy": "default",
        "ZoneType": "availability-zone",
        **extra,
    }


def answers(*offerings: dict[str, Any]) -> dict[str, Any]:
    return {"CapacityBlockOfferings": list(offerings), **META}


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> StubbedAws:
    """Stubbed EC2 clients per region, handed to `planner capacity` in place of boto3's."""
    stubbed = StubbedAws()
    monkeypatch.setattr(
        "planner.aws.block_offering_requests.open_ec2", lambda profile=None: lambda r: stubbed.client("ec2", r)
    )
    monkeypatch.setattr(
        "planner.aws.block_offering_requests.open_resource_groups",
        lambda profile=None: lambda r: stubbed.client("resource-groups", r),
    )
    return stubbed


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any] | str, str]:
    code = main(["capacity", *argv])
    out, err = capsys.readouterr()
    if "json" not in argv:
        return code, out, err
    doc = json.loads(out)
    assert (doc["version"], doc["command"]) == (2, "capacity")
    return code, doc["capacity"], err


def expect(
    aws: StubbedAws, region: str, hours: int, response: dict[str, Any], count: int = 16, itype: str = "p5en.48xlarge"
) -> None:
    aws.stub("ec2", region).add_response(
        "describe_capacity_block_offerings",
        response,
        {"CapacityDurationHours": hours, "AllAvailabilityZones": True, "InstanceType": itype, "InstanceCount": count},
    )


P5EN = ("--instance-type", "p5en.48xlarge", "--count", "16", "--hours", "336")


def three_regions(aws: StubbedAws) -> None:
    """us-east-1 cheapest but late, us-east-2 in time at a middle price, us-west-2 early and dear."""
    expect(
        aws,
        "us-east-1",
        336,
        answers(
            offering("cb-0e1a000000000001a", "us-east-1a", "2027-01-10T09:30:00", "2027-01-24T11:30:00", "280000.00")
        ),
    )
    expect(aws, "us-east-1", 504, answers())
    expect(
        aws,
        "us-east-2",
        336,
        answers(
            offering("cb-0e2b000000000002b", "us-east-2b", "2026-12-20T07:00:00", "2027-01-03T11:30:00", "330000.00")
        ),
    )
    expect(
        aws,
        "us-east-2",
        504,
        answers(
            offering("cb-0e2c000000000002c", "us-east-2c", "2026-12-14T11:30:00", "2027-01-04T11:30:00", "470000.00")
        ),
    )
    expect(
        aws,
        "us-west-2",
        336,
        answers(
            offering("cb-0e3a000000000003a", "us-west-2a", "2026-12-05T05:00:00", "2026-12-19T11:30:00", "410000.00")
        ),
    )
    expect(aws, "us-west-2", 504, answers())


def test_the_pick_is_the_cheapest_that_finishes_before_the_deadline(aws: StubbedAws, capsys) -> None:
    three_regions(aws)
    code, doc, _ = run(
        capsys, *P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--deadline", "2027-01-06", "--format", "json"
    )
    assert code == 0
    assert [o["offering_ids"] for o in doc["options"]] == [
        ["cb-0e1a000000000001a"],
        ["cb-0e2b000000000002b"],
        ["cb-0e3a000000000003a"],
        ["cb-0e2c000000000002c"],
    ]
    assert [o["meets_deadline"] for o in doc["options"]] == [False, True, True, True]
    pick = doc["pick"]
    assert pick["offering_ids"] == ["cb-0e2b000000000002b"] and pick["fits"] is True
    assert (pick["region"], pick["availability_zone"], pick["start"], pick["end"]) == (
        "us-east-2",
        "us-east-2b",
        "2026-12-20T07:00:00Z",
        "2027-01-03T11:30:00Z",
    )
    assert pick["hours"] == 340.5 and pick["usable_hours"] == 340.0 and pick["instances"] == 16
    assert pick["upfront_usd"] == 330000.0
    assert pick["usd_per_instance_hour"] == round(330000 / (16 * 340.5), 4)
    assert doc["next"]["purchase_commands"] == [
        "aws ec2 purchase-capacity-block --region us-east-2 --capacity-block-offering-id cb-0e2b000000000002b "
        "--instance-platform Linux/UNIX"
    ]
    assert "set availability_zone: us-east-2b" in " ".join(doc["next"]["stack_keys"])
    assert "set schedule.hours: 336" in doc["next"]["stack_keys"]
    assert [r["offerings"] for r in doc["regions"]] == [1, 2, 1]
    for s in aws.stubbers.values():
        s.assert_no_pending_responses()


def test_without_a_deadline_the_cheapest_wins_and_over_budget_exits_1(aws: StubbedAws, capsys) -> None:
    three_regions(aws)
    code, doc, _ = run(
        capsys, *P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--max-usd", "250000", "--format", "json"
    )
    assert code == 1
    assert doc["pick"]["fits"] is False and "--max-usd" in doc["pick"]["why"]
    assert doc["pick"]["offering_ids"] == ["cb-0e3a000000000003a"]  # none in budget: the one that finishes first


def test_no_option_in_time_shows_the_earliest_finish_and_exits_1(aws: StubbedAws, capsys) -> None:
    three_regions(aws)
    code, doc, _ = run(
        capsys, *P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--deadline", "2026-12-10", "--format", "json"
    )
    assert code == 1
    assert doc["pick"]["offering_ids"] == ["cb-0e3a000000000003a"]
    assert "no option finishes by the deadline 2026-12-10T00:00:00Z" in doc["pick"]["why"]


def test_a_block_too_short_once_instances_stop_is_left_out(aws: StubbedAws, capsys) -> None:
    # 336 h exactly: instances stop 30 minutes before the end, 335.5 h for a 336 h run
    expect(
        aws,
        "us-east-2",
        336,
        answers(
            offering("cb-0f00000000000000a", "us-east-2a", "2026-12-10T11:30:00", "2026-12-24T11:30:00", "300000.00")
        ),
    )
    expect(aws, "us-east-2", 504, answers())
    code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "json")
    assert code == 1 and doc["options"] == [] and doc["pick"] is None
    assert any("too short once instances stop 30 minutes" in n for n in doc["notes"])


def test_96_instances_are_two_blocks_in_one_zone_with_the_same_dates(aws: StubbedAws, capsys) -> None:
    s, e = "2026-12-12T08:00:00", "2026-12-26T11:30:00"
    expect(
        aws,
        "us-east-2",
        336,
        answers(
            offering("cb-064a00000000000a1", "us-east-2a", s, e, "900000.00", 64),
            offering("cb-064b00000000000b1", "us-east-2b", s, e, "880000.00", 64),
        ),
        64,
    )
    expect(
        aws,
        "us-east-2",
        336,
        answers(
            offering("cb-032a00000000000a2", "us-east-2a", s, e, "450000.00", 32),
            offering("cb-032c00000000000c2", "us-east-2c", s, e, "400000.00", 32),
        ),
        32,
    )
    expect(aws, "us-east-2", 504, answers(), 64)
    expect(aws, "us-east-2", 504, answers(), 32)
    code, doc, out = run(
        capsys,
        "--instance-type",
        "p5en.48xlarge",
        "--count",
        "96",
        "--hours",
        "336",
        "--regions",
        "us-east-2",
        "--format",
        "json",
    )
    assert code == 0
    assert len(doc["options"]) == 1  # only us-east-2a has both sizes on the same dates
    o = doc["options"][0]
    assert o["offering_ids"] == ["cb-064a00000000000a1", "cb-032a00000000000a2"]
    assert (o["availability_zone"], o["instances"], o["blocks"], o["upfront_usd"]) == (
        "us-east-2a",
        96,
        [64, 32],
        1350000.0,
    )
    assert len(doc["next"]["purchase_commands"]) == 2


def test_more_than_the_account_holds_is_unusable_input(aws: StubbedAws, capsys) -> None:
    code, _, err = run(
        capsys, "--instance-type", "p5en.48xlarge", "--count", "257", "--hours", "24", "--regions", "us-east-2"
    )
    assert code == 2 and "256" in err and "Traceback" not in err


def test_one_region_denied_still_answers_and_names_it(aws: StubbedAws, capsys) -> None:
    three_regions(aws)
    aws.stubbers.pop(("ec2", "us-west-2"))
    aws.clients.pop(("ec2", "us-west-2"))
    aws.stub("ec2", "us-west-2").add_client_error(
        "describe_capacity_block_offerings",
        "UnauthorizedOperation",
        "You are not authorized to perform this operation.",
        403,
    )
    code, doc, _ = run(
        capsys, *P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--deadline", "2027-01-06", "--format", "json"
    )
    assert code == 0 and doc["pick"]["offering_ids"] == ["cb-0e2b000000000002b"]
    denied = [r for r in doc["regions"] if r["error"]]
    assert [(r["region"], r["code"]) for r in denied] == [("us-west-2", "UnauthorizedOperation")]
    assert "access denied to ec2:DescribeCapacityBlockOfferings in us-west-2" in denied[0]["error"]
    aws.stub("ec2", "us-west-2").add_client_error(
        "describe_capacity_block_offerings",
        "UnauthorizedOperation",
        "You are not authorized to perform this operation.",
        403,
    )
    code, text, _ = run(capsys, *P5EN, "--regions", "us-west-2")
    assert code == 1
    assert "us-west-2: no answer: access denied" in text and "not an answer about capacity" in text


@pytest.mark.parametrize(
    "code_, words",
    [
        ("RequestLimitExceeded", "AWS throttled ec2:DescribeCapacityBlockOfferings in us-east-2"),
        ("OptInRequired", "us-east-2 is not enabled for this account (OptInRequired)"),
    ],
)
def test_throttling_and_opt_in_are_region_lines(aws: StubbedAws, capsys, code_: str, words: str) -> None:
    aws.stub("ec2", "us-east-2").add_client_error("describe_capacity_block_offerings", code_, "nope", 400)
    code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "json")
    assert code == 1 and doc["options"] == [] and doc["pick"] is None
    assert doc["regions"][0]["code"] == code_ and words in doc["regions"][0]["error"]


def test_an_answer_without_a_request_id_is_not_aws(aws: StubbedAws, capsys) -> None:
    aws.stub("ec2", "us-east-2").add_response("describe_capacity_block_offerings", {"CapacityBlockOfferings": []})
    code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "json")
    assert code == 1
    assert doc["regions"][0]["code"] == "NotAws" and "not as AWS does" in doc["regions"][0]["error"]


def test_an_offering_with_a_shell_word_for_an_id_is_refused(aws: StubbedAws, capsys) -> None:
    bad = offering("cb-1; rm -rf ~", "us-east-2a", "2026-12-10T09:00:00", "2026-12-24T11:30:00", "1.00")
    expect(aws, "us-east-2", 336, answers(bad))
    code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "json")
    assert code == 1 and doc["next"] is None
    assert doc["regions"][0]["code"] == "NotAws" and "is not an AWS name" in doc["regions"][0]["error"]


def test_a_region_that_does_not_answer_in_time_is_a_line(aws: StubbedAws, capsys, monkeypatch) -> None:
    import threading

    release = threading.Event()
    expect(aws, "us-east-1", 336, answers())
    expect(aws, "us-east-1", 504, answers())

    class Silent:
        """An EC2 client whose endpoint never answers (until the test is over)."""

        meta = aws.client("ec2", "us-east-2").meta

        def describe_capacity_block_offerings(self, **_: Any) -> dict[str, Any]:
            release.wait(30)
            return answers()

    clients = {"us-east-1": aws.client("ec2", "us-east-1"), "us-east-2": Silent()}
    monkeypatch.setattr("planner.aws.block_offering_requests.open_ec2", lambda profile=None: clients.__getitem__)
    try:
        code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-1,us-east-2", "--aws-timeout", "1", "--format", "json")
    finally:
        release.set()
    assert code == 1
    late = doc["regions"][1]
    assert late["code"] == "Timeout" and "within 1 s (--aws-timeout)" in late["error"]
    assert doc["regions"][0]["error"] is None and doc["regions"][0]["offerings"] == 0


def test_ultraservers_are_asked_by_ultraserver_type(aws: StubbedAws, capsys) -> None:
    aws.stub("ec2", "us-east-2").add_response(
        "describe_capacity_block_offerings",
        answers(
            offering(
                "cb-0a0b0c0d0e0f01020",
                "us-east-2b",
                "2026-12-09T10:00:00",
                "2026-12-16T11:30:00",
                "600000.00",
                16,
                "trn2u.48xlarge",
                UltraserverType="u-trn2x64",
                UltraserverCount=4,
            )
        ),
        {
            "CapacityDurationHours": 168,
            "AllAvailabilityZones": True,
            "UltraserverType": "u-trn2x64",
            "UltraserverCount": 4,
        },
    )
    aws.stub("ec2", "us-east-2").add_response("describe_capacity_block_offerings", answers())
    code, doc, _ = run(
        capsys,
        "--instance-type",
        "trn2u.48xlarge",
        "--ultraservers",
        "4",
        "--hours",
        "168",
        "--regions",
        "all",
        "--format",
        "json",
    )
    assert code == 0
    assert doc["needs"][0]["ultraserver_type"] == "u-trn2x64" and doc["needs"][0]["instances"] == 16
    assert doc["pick"]["ultraserver_type"] == "u-trn2x64" and doc["pick"]["instances"] == 16
    assert any("one per UltraServer" in k for k in doc["next"]["stack_keys"])


def test_an_ultraserver_type_by_name_in_its_local_zone(aws: StubbedAws, capsys) -> None:
    # u-p6e-gb200x72: 18 p6e-gb200.36xlarge, sold in the Dallas Local Zone of us-east-1 (the catalogue)
    lz = offering(
        "cb-0b2000000000000d1",
        "us-east-1-dfw-2a",
        "2026-12-09T10:00:00",
        "2026-12-10T11:30:00",
        "190000.00",
        18,
        "p6e-gb200.36xlarge",
        ZoneType="local-zone",
        UltraserverType="u-p6e-gb200x72",
        UltraserverCount=1,
    )
    ec2 = aws.stub("ec2", "us-east-1")
    ec2.add_response(
        "describe_capacity_block_offerings",
        answers(lz),
        {
            "CapacityDurationHours": 24,
            "AllAvailabilityZones": True,
            "UltraserverType": "u-p6e-gb200x72",
            "UltraserverCount": 1,
        },
    )
    ec2.add_response("describe_capacity_block_offerings", answers())
    code, doc, _ = run(
        capsys,
        "--instance-type",
        "u-p6e-gb200x72",
        "--ultraservers",
        "1",
        "--hours",
        "20",
        "--regions",
        "all",
        "--format",
        "json",
    )
    assert code == 0 and [r["region"] for r in doc["regions"]] == ["us-east-1"]
    assert doc["pick"]["local_zone"] is True and doc["pick"]["instances"] == 18
    assert doc["next"]["purchase_commands"][1].startswith(
        "aws ec2 modify-availability-zone-group --region us-east-1 --group-name us-east-1-dfw-2 "
    )


DALLAS = offering(
    "cb-0d0d0d0d0d0d0d0d0",
    "us-east-1-dfw-2a",
    "2026-12-09T10:00:00",
    "2026-12-23T11:30:00",
    "500000.00",
    ZoneType="local-zone",
)


def test_a_local_zone_is_marked_with_the_group_the_account_names(aws: StubbedAws, capsys) -> None:
    """DescribeAvailabilityZones gives a Local Zone's GroupName (API_AvailabilityZone): the opt-in names it."""
    expect(aws, "us-east-1", 336, answers(DALLAS))
    expect(aws, "us-east-1", 504, answers())
    zone = {"ZoneName": "us-east-1-dfw-2a", "ZoneType": "local-zone", "GroupName": "us-east-1-dfw-2"}
    aws.stub("ec2", "us-east-1").add_response(
        "describe_availability_zones",
        {"AvailabilityZones": [{**zone, "OptInStatus": "not-opted-in"}], **META},
        {"AllAvailabilityZones": True, "ZoneNames": ["us-east-1-dfw-2a"]},
    )
    code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-1", "--format", "json")
    aws.stub("ec2", "us-east-1").assert_no_pending_responses()
    assert code == 0 and doc["pick"]["opt_in_group"] == "us-east-1-dfw-2"
    assert doc["next"]["purchase_commands"][1] == (
        "aws ec2 modify-availability-zone-group --region us-east-1 --group-name us-east-1-dfw-2 --opt-in-status opted-in"
    )
    assert doc["notes"] == []  # the account's answer: nothing to qualify


def test_a_local_zone_is_marked_with_its_opt_in(aws: StubbedAws, capsys) -> None:
    """Without the account's answer (ec2:DescribeAvailabilityZones denied), the group is AWS's usual naming."""
    expect(aws, "us-east-1", 336, answers(DALLAS))
    expect(aws, "us-east-1", 504, answers())
    aws.stub("ec2", "us-east-1").add_client_error(
        "describe_availability_zones", service_error_code="UnauthorizedOperation", http_status_code=403
    )
    code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-1", "--format", "json")
    aws.stub("ec2", "us-east-1").assert_no_pending_responses()
    assert code == 0 and doc["pick"]["local_zone"] is True and doc["pick"]["opt_in_group"] == "us-east-1-dfw-2"
    assert doc["next"]["purchase_commands"][0].startswith(
        "aws ec2 describe-availability-zones --region us-east-1 --all-availability-zones --zone-names us-east-1-dfw-2a "
    )
    assert doc["next"]["purchase_commands"][1] == (
        "aws ec2 modify-availability-zone-group --region us-east-1 "
        "--group-name us-east-1-dfw-2 --opt-in-status opted-in"
    )
    assert doc["next"]["purchase_commands"][2].startswith("aws ec2 purchase-capacity-block --region us-east-1 ")
    # the group is AWS's naming convention, said as such ("A local Zone Group is usually the Local Zone code
    # without the ending character", Route 53 API, LocalZoneGroup); the first command asks the account
    assert doc["notes"] == [
        "us-east-1-dfw-2a is a Local Zone: its opt-in group us-east-1-dfw-2 is the zone less its last letter, as AWS "
        "usually names Local Zone groups (the Route 53 API documentation of LocalZoneGroup); `aws ec2 "
        "describe-availability-zones --all-availability-zones` prints the account's GroupName and opt-in status"
    ]


def test_the_stack_gives_type_count_hours_and_region(aws: StubbedAws, capsys, tmp_path) -> None:
    stack = tmp_path / "Pulumi.train.yaml"
    stack.write_text(
        """config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2a
    node_groups:
      - name: gpus
        instance_type: p5en.48xlarge
        count: 16
        purchase: capacity-block
    placement_group: none
    schedule:
      hours: 336
""",
        encoding="utf-8",
    )
    expect(
        aws,
        "us-east-2",
        336,
        answers(
            offering("cb-0e2b000000000002b", "us-east-2b", "2026-12-20T07:00:00", "2027-01-03T11:30:00", "330000.00")
        ),
    )
    expect(aws, "us-east-2", 504, answers())
    code, doc, _ = run(capsys, str(stack), "--format", "json")
    assert code == 0
    assert doc["node_group"] == "gpus" and doc["needs"][0]["hours_basis"] == "schedule.hours"
    assert "in node group 'gpus', set availability_zone: us-east-2b" in doc["next"]["stack_keys"]


@pytest.mark.parametrize(
    "argv, words",
    [
        (("--instance-type", "p5en.48xlarge", "--hours", "24"), "--count"),
        (("--instance-type", "nope.48xlarge", "--count", "1", "--hours", "24"), "unknown instance type"),
        (("--instance-type", "trn2u.48xlarge", "--count", "6", "--hours", "24"), "multiple of 4"),
        (
            ("--instance-type", "p6e-gb200.36xlarge", "--ultraservers", "1", "--hours", "24"),
            "u-p6e-gb200x36, u-p6e-gb200x72",
        ),
        (("--instance-type", "p5en.48xlarge", "--ultraservers", "1", "--hours", "24"), "sold by the instance"),
        (
            ("--instance-type", "p5en.48xlarge", "--count", "1", "--hours", "9000"),
            "longer than the longest Capacity Block",
        ),
        (
            ("--instance-type", "p5en.48xlarge", "--count", "1", "--hours", "24", "--regions", "us-east-2,Nowhere"),
            "--regions",
        ),
        (("--instance-type", "p5en.48xlarge", "--count", "1", "--hours", "24", "--deadline", "soon"), "--deadline"),
        (("--instance-type", "p5en.48xlarge", "--count", "1", "--hours", "24", "--earliest", "2099-01-01"), "8 weeks"),
        (
            ("--instance-type", "p5en.48xlarge", "--count", "1", "--hours", "24", "--earliest", "2020-01-01"),
            "in the past",
        ),
    ],
)
def test_unusable_input_is_one_line_and_exit_2(aws: StubbedAws, capsys, argv: tuple[str, ...], words: str) -> None:
    code = None
    try:
        code = main(["capacity", *argv])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_table_and_markdown_say_the_same(aws: StubbedAws, capsys) -> None:
    three_regions(aws)
    code, table, _ = run(capsys, *P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--deadline", "2027-01-06")
    assert code == 0
    assert "Pick: option 2, us-east-2 us-east-2b" in table and "aws ec2 purchase-capacity-block" in table
    assert table.rstrip().endswith("4 options from 3 of 3 regions answering; pick fits; exit 0")
    three_regions(aws)
    code, md, _ = run(
        capsys, *P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--deadline", "2027-01-06", "--format", "markdown"
    )
    assert "| 2 | us-east-2b | 2026-12-20 07:00 |" in md and "```sh" in md


BOOKED = """config:
  aws:region: us-east-1
  planner:cluster:
    availability_zone: us-east-1a
    node_groups:
      - name: gpus
        instance_type: p5en.48xlarge
        count: 8
        purchase: capacity-block
        capacity_reservation_id: cr-0f1e2d3c4b5a69788
    placement_group: none
    schedule:
      hours: 336
"""


def extension(
    oid: str, itype: str, count: int, az: str, start: str, from_: str, hours: int, fee: str
) -> dict[str, Any]:
    """A CapacityBlockExtensionOffering as EC2 returns it: `hours` more from the block's end `from_`."""
    return {
        "CapacityBlockExtensionOfferingId": oid,
        "InstanceType": itype,
        "InstanceCount": count,
        "AvailabilityZone": az,
        "StartDate": at(start),
        "CapacityBlockExtensionStartDate": at(from_),
        "CapacityBlockExtensionEndDate": at(from_) + dt.timedelta(hours=hours),
        "CapacityBlockExtensionDurationHours": hours,
        "UpfrontFee": fee,
        "CurrencyCode": "USD",
        "Tenancy": "default",
    }


def reservation(start: str, end: str) -> dict[str, Any]:
    return {
        "CapacityReservations": [
            {
                "CapacityReservationId": "cr-0f1e2d3c4b5a69788",
                "InstanceType": "p5en.48xlarge",
                "InstancePlatform": "Linux/UNIX",
                "AvailabilityZone": "us-east-1a",
                "Tenancy": "default",
                "TotalInstanceCount": 8,
                "AvailableInstanceCount": 8,
                "State": "scheduled",
                "StartDate": at(start),
                "EndDate": at(end),
                "EndDateType": "limited",
                "ReservationType": "capacity-block",
            }
        ],
        **META,
    }


def test_a_booked_block_too_short_for_the_run_gets_its_extension_offerings(aws: StubbedAws, capsys, tmp_path) -> None:
    stack = tmp_path / "Pulumi.booked.yaml"
    stack.write_text(BOOKED, encoding="utf-8")
    ec2 = aws.stub("ec2", "us-east-1")
    ec2.add_response(
        "describe_capacity_reservations",
        reservation("2026-12-10T11:30:00", "2026-12-17T11:30:00"),
        {"CapacityReservationIds": ["cr-0f1e2d3c4b5a69788"]},
    )
    # 168 h booked, 167.5 h usable: 168.5 h more -> a 192 h extension is asked for
    ext = extension(
        "cbe-0a1b2c3d4e5f60718",
        "p5en.48xlarge",
        8,
        "us-east-1a",
        "2026-12-10T11:30:00",
        "2026-12-17T11:30:00",
        192,
        "97000.00",
    )
    ec2.add_response(
        "describe_capacity_block_extension_offerings",
        {"CapacityBlockExtensionOfferings": [ext], **META},
        {"CapacityBlockExtensionDurationHours": 192, "CapacityReservationId": "cr-0f1e2d3c4b5a69788"},
    )
    code, doc, _ = run(capsys, str(stack), "--format", "json")
    assert code == 0
    (r,) = doc["reservations"]
    assert (r["hours"], r["usable_hours"], r["covers_run"]) == (168.0, 167.5, False)
    assert r["asked_extension_hours"] == [192]
    assert r["extensions"][0]["usable_hours_after"] == 359.5
    assert r["pick"]["offering_id"] == "cbe-0a1b2c3d4e5f60718" and doc["extension_upfront_usd"] == 97000.0
    assert doc["next"]["purchase_commands"] == [
        "aws ec2 purchase-capacity-block-extension --region us-east-1 --capacity-block-extension-offering-id "
        "cbe-0a1b2c3d4e5f60718 --capacity-reservation-id cr-0f1e2d3c4b5a69788"
    ]
    ec2.assert_no_pending_responses()


def test_a_booked_block_that_covers_the_run_asks_for_nothing_more(aws: StubbedAws, capsys, tmp_path) -> None:
    stack = tmp_path / "Pulumi.booked.yaml"
    stack.write_text(BOOKED, encoding="utf-8")
    aws.stub("ec2", "us-east-1").add_response(
        "describe_capacity_reservations", reservation("2026-12-10T09:00:00", "2026-12-24T11:30:00")
    )
    code, text, _ = run(capsys, str(stack))
    assert code == 0
    assert "338.5 h, 338 h usable (covers the run)" in text and text.rstrip().endswith(
        "the block covers the run; exit 0"
    )


ULTRA_IDS = ["cr-0123456789abcdef0", "cr-0123456789abcdef1"]


def ultra_block(rid: str, start: str, end: str) -> dict[str, Any]:
    """One UltraServer's Capacity Block as DescribeCapacityReservations returns it (18 instances each)."""
    return {
        "CapacityReservationId": rid,
        "InstanceType": "p6e-gb200.36xlarge",
        "InstancePlatform": "Linux/UNIX",
        "AvailabilityZone": "us-east-1-dfw-2a",
        "Tenancy": "default",
        "TotalInstanceCount": 18,
        "AvailableInstanceCount": 18,
        "State": "scheduled",
        "StartDate": at(start),
        "EndDate": at(end),
        "EndDateType": "limited",
        "ReservationType": "capacity-block",
    }


def test_every_block_of_an_ultraserver_group_is_read_in_one_call_and_judged_together(
    aws: StubbedAws, capsys, tmp_path
) -> None:
    stack = tmp_path / "Pulumi.ultra.yaml"
    stack.write_text(ULTRA, encoding="utf-8")
    ec2 = aws.stub("ec2", "us-east-1")
    # the first block starts a day earlier but ends first: the run (168 h) starts when the second does,
    # 2026-12-11 11:30, and ends 2026-12-18 11:30; the first block runs instances to 2026-12-17 11:00 (143.5 h of
    # the run), 24.5 h short -> a 48 h extension; the second (to 2026-12-25) covers the run and is not extended
    ec2.add_response(
        "describe_capacity_reservations",
        {
            "CapacityReservations": [
                ultra_block(ULTRA_IDS[1], "2026-12-11T11:30:00", "2026-12-25T11:30:00"),
                ultra_block(ULTRA_IDS[0], "2026-12-10T11:30:00", "2026-12-17T11:30:00"),
            ],
            **META,
        },
        {"CapacityReservationIds": ULTRA_IDS},
    )
    ext = extension(
        "cbe-0b2c3d4e5f6071829",
        "p6e-gb200.36xlarge",
        18,
        "us-east-1-dfw-2a",
        "2026-12-10T11:30:00",
        "2026-12-17T11:30:00",
        48,
        "41000.00",
    )
    ec2.add_response(
        "describe_capacity_block_extension_offerings",
        {"CapacityBlockExtensionOfferings": [ext], **META},
        {"CapacityBlockExtensionDurationHours": 48, "CapacityReservationId": ULTRA_IDS[0]},
    )
    code, doc, _ = run(capsys, str(stack), "--format", "json", "--deadline", "2026-12-20")
    ec2.assert_no_pending_responses()
    assert code == 0
    assert (doc["run_start"], doc["finish"], doc["meets_deadline"]) == (
        "2026-12-11T11:30:00Z",
        "2026-12-18T11:30:00Z",
        True,
    )
    first, second = doc["reservations"]
    assert [first["capacity_reservation_id"], second["capacity_reservation_id"]] == ULTRA_IDS  # the stack's order
    assert (
        first["covers_run"],
        first["asked_extension_hours"],
        second["covers_run"],
        second["asked_extension_hours"],
    ) == (False, [48], True, [])
    assert (first["short_by_hours"], second["short_by_hours"]) == (24.5, 0)
    assert first["extensions"][0]["usable_hours_after"] == 191.5 and second["pick"] is None
    assert doc["next"]["purchase_commands"] == [
        "aws ec2 purchase-capacity-block-extension --region us-east-1 --capacity-block-extension-offering-id "
        f"cbe-0b2c3d4e5f6071829 --capacity-reservation-id {ULTRA_IDS[0]}"
    ]
    ec2.add_response(
        "describe_capacity_reservations",
        {
            "CapacityReservations": [
                ultra_block(ULTRA_IDS[1], "2026-12-11T11:30:00", "2026-12-25T11:30:00"),
                ultra_block(ULTRA_IDS[0], "2026-12-10T11:30:00", "2026-12-17T11:30:00"),
            ],
            **META,
        },
    )
    ec2.add_response("describe_capacity_block_extension_offerings", {"CapacityBlockExtensionOfferings": [ext], **META})
    code, text, _ = run(capsys, str(stack), "--max-usd", "40000")
    assert code == 1
    text = " ".join(text.split())  # the table wraps to the terminal
    assert text.startswith("2 Capacity Blocks cr-0123456789abcdef0, cr-0123456789abcdef1 (us-east-1) for 36 x ")
    assert (
        f"{ULTRA_IDS[0]}: us-east-1-dfw-2a, 2026-12-10 11:30 to 2026-12-17 11:30 UTC: 168 h, 167.5 h usable "
        "(ends 24.5 h too early for the run)" in text
    )
    assert "the extensions cost $41,000.00 upfront, more than --max-usd $40,000.00" in text
    assert "the run uses every block: it starts 2026-12-11 11:30" in text
    assert text.rstrip().endswith("the extensions are over --max-usd; exit 1")


def test_a_resource_group_of_blocks_is_listed_then_read_in_one_call(aws: StubbedAws, capsys, tmp_path) -> None:
    group = "arn:aws:resource-groups:us-east-1:123456789012:group/nvl72-blocks"
    stack = tmp_path / "Pulumi.ultra.yaml"
    stack.write_text(
        ULTRA.replace(
            "capacity_reservation_id: [cr-0123456789abcdef0, cr-0123456789abcdef1]",
            f"capacity_reservation_resource_group_arn: {group}",
        ),
        encoding="utf-8",
    )
    rg = aws.stub("resource-groups", "us-east-1")
    asked = {"Group": group, "Filters": [{"Name": "resource-type", "Values": ["AWS::EC2::CapacityReservation"]}]}

    def member(rid: str) -> dict[str, Any]:
        return {
            "Identifier": {
                "ResourceArn": f"arn:aws:ec2:us-east-1:123456789012:capacity-reservation/{rid}",
                "ResourceType": "AWS::EC2::CapacityReservation",
            }
        }

    rg.add_response("list_group_resources", {"Resources": [member(ULTRA_IDS[0])], "NextToken": "page-2", **META}, asked)
    rg.add_response(
        "list_group_resources", {"Resources": [member(ULTRA_IDS[1])], **META}, {**asked, "NextToken": "page-2"}
    )
    ec2 = aws.stub("ec2", "us-east-1")
    ec2.add_response(
        "describe_capacity_reservations",
        {
            "CapacityReservations": [
                ultra_block(rid, "2026-12-10T11:30:00", "2026-12-24T11:30:00") for rid in ULTRA_IDS
            ],
            **META,
        },
        {"CapacityReservationIds": ULTRA_IDS},
    )
    code, doc, _ = run(capsys, str(stack), "--format", "json")
    rg.assert_no_pending_responses()
    ec2.assert_no_pending_responses()
    assert code == 0 and doc["resource_group_arn"] == group and doc["covers_run"] is True
    assert [b["capacity_reservation_id"] for b in doc["reservations"]] == ULTRA_IDS and doc["next"] is None
    rg.add_response("list_group_resources", {"Resources": [], **META}, asked)
    code, text, _ = run(capsys, str(stack))
    assert code == 1
    assert " ".join(text.split()) == (
        f"the Capacity Blocks of {group} (us-east-1) for 36 x p6e-gb200.36xlarge, a run of "
        f"168 h (schedule.hours) no answer: the resource group {group} holds no capacity "
        "reservation no answer; exit 1"
    )


def test_a_block_aws_does_not_know_is_a_line_and_exit_1(aws: StubbedAws, capsys, tmp_path) -> None:
    stack = tmp_path / "Pulumi.ultra.yaml"
    stack.write_text(ULTRA, encoding="utf-8")
    aws.stub("ec2", "us-east-1").add_client_error(
        "describe_capacity_reservations",
        "InvalidCapacityReservationId.NotFound",
        "The capacity reservation ID 'cr-0123456789abcdef1' does not exist",
        400,
        expected_params={"CapacityReservationIds": ULTRA_IDS},
    )
    code, text, err = run(capsys, str(stack))
    assert code == 1 and "Traceback" not in err
    assert (
        "no answer: a reservation (one of the node group's cr-0123456789abcdef0, cr-0123456789abcdef1) is not a "
        "capacity reservation of this account in us-east-1 (InvalidCapacityReservationId.NotFound: The capacity "
        "reservation ID 'cr-0123456789abcdef1' does not exist)"
    ) in " ".join(text.split())
    assert text.rstrip().endswith("no answer; exit 1")


def test_progress_is_shown_on_a_terminal_only_and_erased(aws: StubbedAws, capsys, monkeypatch) -> None:
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    three_regions(aws)
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    code = main(["capacity", *P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--format", "json"])
    assert code == 0
    shown = term.getvalue()
    assert "asking 3 regions: 1 answered (" in shown and "asking 3 regions: 2 answered (" in shown
    assert shown.endswith("\r\033[K")  # the last answer erases the line: nothing of it stays on the screen
    assert json.loads(capsys.readouterr().out)["capacity"]["pick"] is not None  # standard output holds only the report


def test_compare_capacity_prices_block_rows_from_offerings(aws: StubbedAws, capsys) -> None:
    # 70e9 x 1e11 tokens at MFU 0.4 on 16 p5en: a 230.4 h run -> 240 h and 264 h blocks are asked for
    expect(
        aws,
        "us-east-2",
        240,
        answers(
            offering("cb-07c0000000000072a", "us-east-2a", "2026-12-08T08:00:00", "2026-12-18T11:30:00", "60000.00")
        ),
    )
    expect(aws, "us-east-2", 264, answers())
    code = main(
        [
            "compare",
            "--parameters",
            "70e9",
            "--tokens",
            "1e11",
            "--mfu",
            "0.4",
            "--instances",
            "16",
            "--instance-type",
            "p5en.48xlarge",
            "--capacity",
            "--format",
            "json",
        ]
    )
    doc = json.loads(capsys.readouterr().out)["compare"]
    assert code == 0
    row = next(c for c in doc["candidates"] if c["purchase"] == "capacity-block")
    assert row["offering"]["offering_ids"] == ["cb-07c0000000000072a"] and row["total_usd"] == 60000.0
    assert row["usd_per_hour"] == round(60000 / (16 * 243.5), 4) and row["price_book"] == "Capacity Block offerings"
    book = block_price("us-east-2")
    assert row["book"]["usd_per_hour"] == book.usd  # the book's figure, beside it
    assert any(f"the book's figure: ${book.usd:,.2f}/h" in n for n in row["notes"])
    ondemand = next(c for c in doc["candidates"] if c["purchase"] == "on-demand")
    assert "offering" not in ondemand
    aws.stub("ec2", "us-east-2").assert_no_pending_responses()


def block_price(region: str) -> Any:
    """The built-in book's p5en.48xlarge Capacity Block price in `region` (what the tests hold the offerings to)."""
    from planner.core.cost.book import builtin

    return builtin("current").instance("p5en.48xlarge", region, "capacity-block")


def test_plan_live_prices_says_when_the_book_is_far_from_the_offerings(aws: StubbedAws, capsys, monkeypatch) -> None:
    monkeypatch.setattr(
        "planner.aws.live_prices.live_book", lambda book, needs, **_: book
    )  # on-demand: not this test's
    expect(
        aws,
        "us-east-1",
        168,
        answers(
            offering("cb-0168000000000000a", "us-east-1a", "2026-12-08T09:30:00", "2026-12-15T11:30:00", "54400.00", 8)
        ),
        8,
    )
    expect(aws, "us-east-1", 192, answers(), 8)
    stack = ROOT / "stacks" / "Pulumi.p5en-train.yaml"
    main(["plan", str(stack), "--live-prices", "--format", "json"])
    err = capsys.readouterr().err
    book = block_price("us-east-1")
    assert book.usd > 40 / 0.75  # the case: the book is more than 25 % above the offering
    assert (
        "node group 'gpus': the cheapest Capacity Block offering AWS shows now for p5en.48xlarge in us-east-1 "
        f"($40.00/h, cb-0168000000000000a in us-east-1a) is {(book.usd - 40) / book.usd:.0%} below the price "
        f"book's (${book.usd:,.2f}/h, as of {book.as_of}"
    ) in err


def test_plan_live_prices_is_quiet_when_the_book_is_close(aws: StubbedAws, capsys, monkeypatch) -> None:
    monkeypatch.setattr("planner.aws.live_prices.live_book", lambda book, needs, **_: book)
    fee = f"{block_price('us-east-1').usd * 8 * 170:.2f}"
    expect(
        aws,
        "us-east-1",
        168,
        answers(offering("cb-0168000000000000b", "us-east-1a", "2026-12-08T09:30:00", "2026-12-15T11:30:00", fee, 8)),
        8,
    )
    expect(aws, "us-east-1", 192, answers(), 8)
    main(["plan", str(ROOT / "stacks" / "Pulumi.p5en-train.yaml"), "--live-prices", "--format", "json"])
    assert "Capacity Block offering" not in capsys.readouterr().err


def test_earliest_is_sent_as_the_start_of_the_window(aws: StubbedAws, capsys) -> None:
    day = (dt.datetime.now(UTC) + dt.timedelta(days=7)).date()
    start = dt.datetime(day.year, day.month, day.day, tzinfo=UTC)
    for hours in (24, 48):
        aws.stub("ec2", "us-east-2").add_response(
            "describe_capacity_block_offerings",
            answers(),
            {
                "CapacityDurationHours": hours,
                "AllAvailabilityZones": True,
                "InstanceType": "p5en.48xlarge",
                "InstanceCount": 2,
                "StartDateRange": start,
            },
        )
    code, doc, _ = run(
        capsys,
        "--instance-type",
        "p5en.48xlarge",
        "--count",
        "2",
        "--hours",
        "20",
        "--regions",
        "us-east-2",
        "--earliest",
        day.isoformat(),
        "--format",
        "json",
    )
    assert code == 1 and doc["earliest"] == f"{day.isoformat()}T00:00:00Z" and doc["regions"][0]["error"] is None
    aws.stub("ec2", "us-east-2").assert_no_pending_responses()


def test_the_same_answers_give_byte_identical_json(aws: StubbedAws, capsys) -> None:
    outs = []
    for _ in range(2):
        three_regions(aws)
        main(
            [
                "capacity",
                *P5EN,
                "--regions",
                "us-west-2,us-east-1,us-east-2",
                "--deadline",
                "2027-01-06",
                "--format",
                "json",
            ]
        )
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert [r["region"] for r in json.loads(outs[0])["capacity"]["regions"]] == [
        "us-west-2",
        "us-east-1",
        "us-east-2",
    ]  # as asked


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_unusable_input_is_the_report_in_the_format_asked_for(capsys, tmp_path, fmt: str) -> None:
    """As plan: unusable input (caught before any AWS call) is written as the report of its problems
    (to --output here for json), the one line on standard error stays, exit 2."""
    saved = tmp_path / "report.json"
    argv = ["capacity", "--instance-type", "p5en.48xlarge", "--hours", "24", "--format", fmt]
    code = main([*argv, *(["--output", str(saved)] if fmt == "json" else [])])
    out, err = capsys.readouterr()
    message = "expected --count N (instances) or --ultraservers N with --instance-type"
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    if fmt == "json":
        assert out == ""
        doc = json.loads(saved.read_text(encoding="utf-8"))
        assert (doc["command"], "capacity" in doc) == ("capacity", False)
        assert doc["problems"] == [{"file": "<command line>", "line": None, "key": "--count", "message": message}]
    else:
        assert (
            message in " ".join(out.split())
            and "1 input problem, nothing searched" in out
            and "nothing planned" not in out
        )


def test_no_credentials_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path) -> None:
    from tests.test_preflight_helpers import isolate

    isolate(monkeypatch, tmp_path, credentials=False)
    code = main(["capacity", *P5EN, "--regions", "us-east-2"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("planner: capacity: no AWS credentials found") and len(err.splitlines()) == 1


def test_pages_are_followed_and_other_currencies_left_out(aws: StubbedAws, capsys) -> None:
    ec2 = aws.stub("ec2", "us-east-2")
    first = offering("cb-0aaa00000000000a1", "us-east-2a", "2026-12-10T09:00:00", "2026-12-24T11:30:00", "300000.00")
    yen = dict(
        offering("cb-0aaa00000000000a2", "us-east-2b", "2026-12-10T09:00:00", "2026-12-24T11:30:00", "1.00"),
        CurrencyCode="JPY",
    )
    ec2.add_response("describe_capacity_block_offerings", {**answers(first), "NextToken": "page-2"})
    ec2.add_response(
        "describe_capacity_block_offerings",
        answers(yen),
        {
            "CapacityDurationHours": 336,
            "AllAvailabilityZones": True,
            "InstanceType": "p5en.48xlarge",
            "InstanceCount": 16,
            "NextToken": "page-2",
        },
    )
    ec2.add_response("describe_capacity_block_offerings", answers())
    code, doc, _ = run(capsys, *P5EN, "--regions", "us-east-2", "--format", "json")
    assert code == 0 and doc["regions"][0]["offerings"] == 2
    assert [o["offering_ids"] for o in doc["options"]] == [["cb-0aaa00000000000a1"]]
    assert any("currency other than USD" in n for n in doc["notes"])


def test_several_types_are_alternatives_ranked_together(aws: StubbedAws, capsys) -> None:
    expect(
        aws,
        "us-east-2",
        48,
        answers(
            offering("cb-0bbb00000000000b1", "us-east-2a", "2026-12-10T09:00:00", "2026-12-12T11:30:00", "90000.00", 2)
        ),
        2,
    )
    expect(aws, "us-east-2", 72, answers(), 2)
    expect(
        aws,
        "us-east-2",
        48,
        answers(
            offering(
                "cb-0bbb00000000000b2",
                "us-east-2b",
                "2026-12-10T09:00:00",
                "2026-12-12T11:30:00",
                "70000.00",
                2,
                "p5.48xlarge",
            )
        ),
        2,
        "p5.48xlarge",
    )
    expect(aws, "us-east-2", 72, answers(), 2, "p5.48xlarge")
    code, doc, out = run(
        capsys,
        "--instance-type",
        "p5en.48xlarge",
        "--instance-type",
        "p5.48xlarge",
        "--count",
        "2",
        "--hours",
        "40",
        "--regions",
        "us-east-2",
        "--format",
        "json",
    )
    assert code == 0
    assert [(o["instance_type"], o["offering_ids"][0]) for o in doc["options"]] == [
        ("p5.48xlarge", "cb-0bbb00000000000b2"),
        ("p5en.48xlarge", "cb-0bbb00000000000b1"),
    ]
    assert doc["pick"]["instance_type"] == "p5.48xlarge"
    assert [(r["region"], r["instance_type"]) for r in doc["regions"]] == [
        ("us-east-2", "p5en.48xlarge"),
        ("us-east-2", "p5.48xlarge"),
    ]


def test_the_run_hours_from_a_workload(aws: StubbedAws, capsys) -> None:
    # 70e9 x 1e11 tokens at MFU 0.4 on 16 p5en: 230.4 h, so 240 h and 264 h blocks are asked for
    expect(aws, "us-east-2", 240, answers())
    expect(aws, "us-east-2", 264, answers())
    code, doc, _ = run(
        capsys,
        "--instance-type",
        "p5en.48xlarge",
        "--count",
        "16",
        "--parameters",
        "70e9",
        "--tokens",
        "1e11",
        "--mfu",
        "0.4",
        "--regions",
        "us-east-2",
        "--format",
        "json",
    )
    assert code == 1 and doc["needs"][0]["hours_basis"] == "workload"
    assert doc["needs"][0]["run_hours"] == pytest.approx(230.399, abs=1e-3)


def test_a_stack_with_several_block_groups_needs_node_group(aws: StubbedAws, capsys, tmp_path) -> None:
    stack = tmp_path / "Pulumi.two.yaml"
    stack.write_text(
        """config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2a
    node_groups:
      - {name: a, instance_type: p5en.48xlarge, count: 8, purchase: capacity-block}
      - {name: b, instance_type: p5.48xlarge, count: 8, purchase: capacity-block}
    placement_group: none
    schedule:
      hours: 24
""",
        encoding="utf-8",
    )
    assert main(["capacity", str(stack)]) == 2
    err = capsys.readouterr().err
    assert "2 Capacity Block node groups (a, b); expected --node-group NAME" in err
    expect(aws, "us-east-2", 24, answers(), 8, "p5.48xlarge")
    expect(aws, "us-east-2", 48, answers(), 8, "p5.48xlarge")
    code, doc, _ = run(capsys, str(stack), "--node-group", "b", "--format", "json")
    assert code == 1 and doc["node_group"] == "b" and doc["needs"][0]["instance_type"] == "p5.48xlarge"


def test_markdown_of_a_booked_block_and_output_to_a_file(aws: StubbedAws, capsys, tmp_path) -> None:
    stack = tmp_path / "Pulumi.booked.yaml"
    stack.write_text(BOOKED, encoding="utf-8")
    aws.stub("ec2", "us-east-1").add_response(
        "describe_capacity_reservations", reservation("2026-12-10T09:00:00", "2026-12-24T11:30:00")
    )
    report = tmp_path / "capacity.md"
    code = main(["capacity", str(stack), "--format", "markdown", "--output", str(report)])
    assert code == 0 and capsys.readouterr().out == ""
    text = report.read_text(encoding="utf-8")
    assert text.startswith("**Capacity Block cr-0f1e2d3c4b5a69788 (us-east-1) for 8 x p5en.48xlarge")
    assert "- us-east-1a, 2026-12-10 09:00 to 2026-12-24 11:30 UTC: 338.5 h, 338 h usable (covers the run)" in text
    assert text.rstrip().endswith("the block covers the run; exit 0")


@pytest.mark.parametrize(
    "run_hours, asked",
    [
        (20, (24, 48)),
        (100, (96, 120)),
        (168, (168, 192)),
        (230.4, (240, 264)),
        (336, (336, 504)),
        (340, (336, 504)),
        (4368, (4368,)),
    ],
)
def test_the_durations_asked_for_are_those_whose_offerings_may_cover_the_run(
    run_hours: float, asked: tuple[int, ...]
) -> None:
    from planner.core.cost.block_offerings import durations

    assert durations(run_hours) == asked


def test_block_sizes_and_what_cannot_be_booked() -> None:
    from planner.core.cost.block_offerings import NoBlock, block_sizes, durations

    assert block_sizes(64) == (64,) and block_sizes(96) == (64, 32) and block_sizes(256) == (64, 64, 64, 64)
    with pytest.raises(NoBlock):
        block_sizes(257)
    with pytest.raises(NoBlock):
        durations(4368.5)


def test_a_saved_search_renders_as_the_run(aws: StubbedAws, capsys, tmp_path) -> None:
    """`planner render` of the saved JSON prints what the search printed (a CI job posts it from an artifact)."""
    for _ in range(3):  # the JSON run, then the table and the Markdown
        three_regions(aws)
    args = (*P5EN, "--regions", "us-east-1,us-east-2,us-west-2", "--deadline", "2027-01-06")
    saved = tmp_path / "capacity.json"
    assert main(["capacity", *args, "--format", "json", "--output", str(saved)]) == 0
    capsys.readouterr()
    for fmt in ("table", "markdown"):
        code, printed, _ = run(capsys, *args, "--format", fmt)
        assert code == 0
        assert main(["render", "--format", fmt, str(saved)]) == 0
        assert capsys.readouterr().out == printed
    for s in aws.stubbers.values():
        s.assert_no_pending_responses()
    assert main(["render", "--format", "sarif", str(saved)]) == 2
    assert "a capacity report renders as table, json, markdown" in capsys.readouterr().err


def test_the_next_steps_are_edits_of_the_stack() -> None:
    """What to set once a block is bought is data (`next_edits`: edits of the node group and the schedule), said in
    the stack file's keys (`fix_words.in_group_terms`), and it applies to the model like a finding's fix."""
    from decimal import Decimal

    from planner.core.cost.block_offerings import Offering, Option, next_edits
    from planner.core.input.fix_words import in_group_terms
    from planner.core.input.stack_files import load_stack
    from planner.core.model.edits import apply_edits

    start = dt.datetime(2026, 12, 20, 7, tzinfo=dt.UTC)
    block = Offering(
        "cb-1", "us-east-2", "us-east-2b", "p5.48xlarge", 2, start, start + dt.timedelta(hours=48), 48.0,
        Decimal("1000"), "USD", asked_hours=48,
    )  # fmt: skip
    edits = next_edits(Option((block,), need=None), group=1)  # type: ignore[arg-type]
    assert [in_group_terms("gpus", e) for e in edits] == [
        "in node group 'gpus', set purchase: capacity-block",
        "in node group 'gpus', set availability_zone: us-east-2b",
        "in node group 'gpus', set capacity_reservation_id: cr-... (CapacityReservation.CapacityReservationId that "
        "the purchase prints)",
        "set schedule.hours: 48",
    ]
    stack = load_stack(str(ROOT / "stacks" / "Pulumi.trn2-dev.yaml"))
    edited = apply_edits(stack.cluster, next_edits(Option((block,), need=None)))  # type: ignore[arg-type]
    g = edited.node_groups[0]
    assert (g.purchase, g.availability_zone, g.capacity_reservation_ids) == (
        "capacity-block",
        "us-east-2b",
        ("cr-...",),
    )
    assert edited.schedule is not None and edited.schedule.hours == 48
