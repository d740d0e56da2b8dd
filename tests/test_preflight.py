"""`planner preflight`: every check against moto where moto implements the API (offerings,
instance types, VPCs and subnets, Service Quotas' "not in this region"), against botocore's
Stubber with AWS-shaped responses where it does not (quotas, capacity reservations), and
every failure path (no credentials, access denied, throttling, unreachable endpoint)."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError
from conftest import run_cli, run_process
from test_preflight_helpers import StubbedAws, isolate

from planner.aws import preflight_run as preflight
from planner.aws.account import Account
from planner.aws.checks import Preflight
from planner.aws.preflight_run import preflight_stack
from planner.core.input.stack_files import load_stack
from tests.conftest import fix_words

UTC = dt.UTC
TRN2_DEV = "stacks/Pulumi.trn2-dev.yaml"


pytestmark = pytest.mark.usefixtures("isolated_aws")  # fake credentials and config (conftest)


def findings(result_out: str) -> list[dict[str, Any]]:
    return [f for s in json.loads(result_out)["stacks"] for f in s["findings"]]


def by_rule(fs: list[dict[str, Any]], rule: str) -> list[dict[str, Any]]:
    return [f for f in fs if f["rule"] == rule]


def run_check(check_id: str, stack_path: Path | str, account: Account, region: str | None = None) -> list[Any]:
    """One check on one stack, as `planner preflight` runs it."""
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.rules import RuleContext

    stack = load_stack(str(stack_path))
    ctx = RuleContext(stack, catalogue.load(), None, (Preflight(account, region or stack.region),))
    return preflight.registry()[check_id].run(ctx)


# --- the registry --------------------------------------------------------------------------


def test_registry_holds_every_check_with_its_metadata() -> None:
    reg = preflight.registry()
    assert set(reg) == {
        "preflight-aws-error",
        "preflight-catalogue",
        "preflight-efa",
        "preflight-local-zone",
        "preflight-network",
        "preflight-offering",
        "preflight-quota",
        "preflight-reservation",
    }
    for r in reg.values():
        assert r.severity in ("error", "warning", "info")
        assert r.description.endswith(".") and r.remediation
        assert r.source.startswith("https://docs.aws.amazon.com/")


def test_preflight_checks_are_not_plan_rules() -> None:
    from planner.core import rules

    assert not set(preflight.registry()) & set(rules.registry())


# --- against moto ----------------------------------------------------------------------------


def test_bundled_stack_reports_the_documented_memory_disagreement_and_the_quota_api_gap(moto) -> None:
    res = run_cli("preflight", TRN2_DEV, "--format", "json")
    fs = findings(res.out)
    info = by_rule(fs, "preflight-catalogue")
    assert len(info) == 1 and info[0]["severity"] == "info"
    assert "512 GiB in DescribeInstanceTypes" in info[0]["message"] and "96 GiB in the catalogue" in info[0]["message"]
    assert "planner uses 96 GiB" in info[0]["message"]  # the catalogue's note, not hidden
    assert info[0]["line"] == 9  # instance_type: trn2.48xlarge
    # moto's Service Quotas answers "not available in the current Region" in us-east-2
    err = by_rule(fs, "preflight-aws-error")
    assert len(err) == 1 and err[0]["line"] == 10  # count: 2
    assert "Service Quotas is not available in us-east-2" in err[0]["message"] and "L-2C3B7624" in err[0]["message"]
    assert not by_rule(fs, "preflight-offering") and not by_rule(fs, "preflight-efa")
    assert res.code == 1  # a check that could not run is not a pass
    ok = run_cli("preflight", TRN2_DEV, "--suppress", "preflight-aws-error")
    assert ok.code == 0 and re.search(r"^    suppressed\s+preflight-aws-error ", ok.out, flags=re.M)


def test_a_preflight_baseline_accepts_the_findings_it_records(moto, tmp_path: Path) -> None:
    """`--create-baseline` and `--baseline` on preflight (docs/output.md#baselines): its own checks,
    in a baseline of its own (`plan` refuses it)."""
    base = tmp_path / "preflight-baseline.json"
    made = run_cli("preflight", TRN2_DEV, "--create-baseline", str(base))
    assert made.code == 0, made.err
    data = json.loads(base.read_text(encoding="utf-8"))
    assert data["command"] == "preflight"
    assert data["stacks"][0]["findings"] == [
        {"rule": "preflight-aws-error", "path": "planner:cluster.node_groups[0].count"}
    ]
    judged = run_cli("preflight", TRN2_DEV, "--baseline", str(base), "--format", "json")
    assert judged.code == 0, judged.err
    (err,) = by_rule(findings(judged.out), "preflight-aws-error")
    assert err["suppression"] == {"kind": "baseline", "reason": f"recorded in the baseline {base}"}
    refused = run_cli("plan", TRN2_DEV, "--baseline", str(base))
    assert refused.code == 2 and "command: 'preflight'; expected 'plan'" in refused.err


def test_type_not_offered_in_the_zone_lists_where_it_is(moto, stack_file) -> None:
    path = stack_file(
        """
availability_zone: us-east-1b
node_groups:
  - {name: gpus, instance_type: p5en.48xlarge, count: 2}
""",
        region="us-east-1",
    )
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    (f,) = by_rule(fs, "preflight-offering")
    assert f["severity"] == "error" and f["line"] == 4
    assert (
        "p5en.48xlarge is not offered in us-east-1b for on-demand instances (offered in us-east-1a, us-east-1c)"
        in f["message"]
    )


def test_type_offered_nowhere_in_the_region(moto, stack_file) -> None:
    path = stack_file(
        """
availability_zone: us-east-1a
node_groups:
  - name: trainers
    instance_type: trn2.48xlarge
    count: 2
    availability_zone: us-east-1c
""",
        region="us-east-1",
    )
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    (f,) = by_rule(fs, "preflight-offering")
    assert f["line"] == 9 and "offered in no Availability Zone of us-east-1" in f["message"]  # the group's own AZ line


def test_capacity_block_type_missing_from_offerings_is_a_warning(moto, stack_file) -> None:
    path = stack_file("""
availability_zone: us-east-2b
node_groups:
  - {name: ultraservers, instance_type: trn2u.48xlarge, ultraservers: 1, purchase: capacity-block}
placement_group: none
""")
    res = run_cli("preflight", str(path), "--format", "json")
    (f,) = by_rule(findings(res.out), "preflight-offering")
    assert f["severity"] == "warning" and "trn2u.48xlarge" in f["message"]
    assert "declare capacity_reservation_id" in f["message"]


def test_region_override_flags_zones_outside_it(moto) -> None:
    res = run_cli("preflight", TRN2_DEV, "--region", "us-west-2", "--format", "json")
    (f,) = by_rule(findings(res.out), "preflight-offering")
    assert "us-east-2b is not in us-west-2, the region queried" in f["message"]


def test_offering_request_asks_per_availability_zone() -> None:
    aws = StubbedAws()
    aws.stub("ec2", "us-east-2").add_response(
        "describe_instance_type_offerings",
        {
            "InstanceTypeOfferings": [
                {"InstanceType": "trn2.48xlarge", "LocationType": "availability-zone", "Location": "us-east-2b"}
            ]
        },
        {"LocationType": "availability-zone", "Filters": [{"Name": "instance-type", "Values": ["trn2.48xlarge"]}]},
    )
    assert run_check("preflight-offering", TRN2_DEV, Account(aws.client)) == []
    aws.assert_no_pending()


NETWORK = """
availability_zone: us-east-2b
node_groups:
  - {{name: trainers, instance_type: trn2.48xlarge, count: 2}}
lustre: {{deployment_type: SCRATCH_2, storage_capacity_gib: 1200}}
network:
  vpc_id: {vpc}
  subnet_id: {subnet}
"""


def _vpc_and_subnets() -> tuple[str, str, str, str]:
    import boto3

    ec2 = boto3.client("ec2", region_name="us-east-2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    other = ec2.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
    in_b = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.1.0/24", AvailabilityZone="us-east-2b")["Subnet"]["SubnetId"]
    in_a = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.2.0/24", AvailabilityZone="us-east-2a")["Subnet"]["SubnetId"]
    return vpc, other, in_b, in_a


def test_network_that_exists_and_fits_passes(moto, stack_file) -> None:
    vpc, _, in_b, _ = _vpc_and_subnets()
    fs = findings(run_cli("preflight", str(stack_file(NETWORK.format(vpc=vpc, subnet=in_b))), "--format", "json").out)
    assert by_rule(fs, "preflight-network") == []


def test_subnet_in_another_zone_and_vpc(moto, stack_file) -> None:
    vpc, other, _, in_a = _vpc_and_subnets()
    fs = findings(run_cli("preflight", str(stack_file(NETWORK.format(vpc=other, subnet=in_a))), "--format", "json").out)
    msgs = [f["message"] for f in by_rule(fs, "preflight-network")]
    assert f"subnet {in_a} belongs to {vpc}, not to the declared {other}" in msgs
    assert f"subnet {in_a} is in us-east-2a; node group 'trainers' is declared in us-east-2b" in msgs
    assert f"subnet {in_a} is in us-east-2a; the FSx for Lustre file system is declared in us-east-2b" in msgs
    assert {f["line"] for f in by_rule(fs, "preflight-network")} == {10}  # subnet_id


def test_missing_vpc_and_subnet(moto, stack_file) -> None:
    path = stack_file(NETWORK.format(vpc="vpc-0123456789abcdef0", subnet="subnet-0123456789abcdef0"))
    fs = by_rule(findings(run_cli("preflight", str(path), "--format", "json").out), "preflight-network")
    assert [(f["line"], f["message"]) for f in fs] == [
        (9, "VPC vpc-0123456789abcdef0 does not exist in us-east-2"),
        (10, "subnet subnet-0123456789abcdef0 does not exist in us-east-2"),
    ]


# --- Local Zones: the zone group and opt-in status are the account's answer ------------------

LOCAL_ZONE_STACK = """
availability_zone: us-east-1-dfw-2a
node_groups:
  - {name: gb200, instance_type: p6e-gb200.36xlarge, ultraserver_type: u-p6e-gb200x36, ultraservers: 1, purchase: capacity-block}
placement_group: none
"""


@pytest.fixture
def dallas_local_zone(moto):  # noqa: ANN001, ANN201 - a generator fixture
    """moto's zone data has no Local Zones: the Dallas one added to its us-east-1 as DescribeAvailabilityZones
    describes a Local Zone (API_AvailabilityZone: ZoneType local-zone, GroupName, OptInStatus); the Available
    Local Zones page lists us-east-1-dfw-2a with zone ID use1-dfw2-az1 and group us-east-1-dfw-2."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ec2.models import ec2_backends
    from moto.ec2.models.availability_zones_and_regions import Zone

    zones = ec2_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].zones["us-east-1"]
    zone = Zone("us-east-1-dfw-2a", "us-east-1", "use1-dfw2-az1", zone_type="local-zone")
    # moto's Zone has neither attribute; its response serializer reads them by the API's member names
    zone.group_name = "us-east-1-dfw-2"  # type: ignore[attr-defined]  # see above
    zone.opt_in_status = "not-opted-in"  # type: ignore[attr-defined]  # see above
    zones.append(zone)
    yield zone
    zones.remove(zone)


def _moto_account() -> Account:
    import boto3

    return Account(lambda service, region: boto3.client(service, region_name=region))


def test_a_local_zone_not_opted_in_names_the_group_aws_gives(dallas_local_zone, stack_file) -> None:
    path = stack_file(LOCAL_ZONE_STACK, region="us-east-1")
    (f,) = run_check("preflight-local-zone", path, _moto_account())
    assert f.severity == "error" and f.line == 4  # the availability_zone that puts the group there
    assert f.message == (
        "us-east-1-dfw-2a is a Local Zone of us-east-1 in zone group us-east-1-dfw-2, which the account has not "
        "opted in to (DescribeAvailabilityZones: OptInStatus not-opted-in)"
    )
    assert fix_words(f) == (
        "opt in: `aws ec2 modify-availability-zone-group --region us-east-1 --group-name us-east-1-dfw-2 "
        "--opt-in-status opted-in` (once per account), then run preflight again"
    )
    dallas_local_zone.opt_in_status = "opted-in"
    assert run_check("preflight-local-zone", path, _moto_account()) == []


def test_a_group_name_that_is_not_a_name_is_not_printed_into_a_command(dallas_local_zone, stack_file) -> None:
    dallas_local_zone.group_name = "x; rm -rf ~"
    (f,) = run_check("preflight-local-zone", stack_file(LOCAL_ZONE_STACK, region="us-east-1"), _moto_account())
    assert "rm -rf" not in f.message + fix_words(f) and "--zone-names us-east-1-dfw-2a" in fix_words(f)


def test_availability_zones_are_not_asked_about() -> None:
    """An Availability Zone needs no opt-in ("For Availability Zones, this parameter always has the value of
    opt-in-not-required"): no DescribeAvailabilityZones call (the Stubber fails on any call it was not given)."""
    aws = StubbedAws()
    assert run_check("preflight-local-zone", TRN2_DEV, Account(aws.client)) == []


# --- against the Stubber: EFA disagreements, quotas, reservations ----------------------------


def _trn2(efa: bool = True, cards: int = 16) -> dict[str, Any]:
    return {
        "InstanceTypes": [
            {
                "InstanceType": "trn2.48xlarge",
                "VCpuInfo": {"DefaultVCpus": 192, "DefaultCores": 96, "DefaultThreadsPerCore": 2},
                "MemoryInfo": {"SizeInMiB": 2097152},
                "NetworkInfo": {
                    "NetworkPerformance": "16x 200 Gigabit",
                    "MaximumNetworkInterfaces": 32,
                    "MaximumNetworkCards": cards,
                    "EfaSupported": efa,
                    **({"EfaInfo": {"MaximumEfaInterfaces": cards}} if efa else {}),
                },
                "NeuronInfo": {
                    "NeuronDevices": [
                        {
                            "Count": 16,
                            "Name": "Trainium2",
                            "CoreInfo": {"Count": 8, "Version": 3},
                            "MemoryInfo": {"SizeInMiB": 98304},
                        }
                    ]
                },
            }
        ]
    }


def test_efa_not_supported_by_the_account_is_an_error_and_card_drift_a_warning() -> None:
    aws = StubbedAws()
    aws.stub("ec2", "us-east-2").add_response(
        "describe_instance_types", _trn2(efa=False, cards=8), {"InstanceTypes": ["trn2.48xlarge"]}
    )
    fs = run_check("preflight-efa", TRN2_DEV, Account(aws.client))
    assert [(f.severity, f.line) for f in fs] == [("error", 9), ("warning", 9), ("warning", 9)]
    assert "DescribeInstanceTypes in us-east-2 says trn2.48xlarge does not support EFA" in fs[0].message
    assert "the catalogue says EFA is supported" in fs[1].message
    assert "assumes 16 network cards" in fs[2].message and "reports 8" in fs[2].message


def test_matching_instance_type_gives_no_finding() -> None:
    aws = StubbedAws()
    stub = aws.stub("ec2", "us-east-2")
    stub.add_response("describe_instance_types", _trn2(), {"InstanceTypes": ["trn2.48xlarge"]})
    account = Account(aws.client)
    assert run_check("preflight-efa", TRN2_DEV, account) == []
    assert run_check("preflight-catalogue", TRN2_DEV, account) == []  # 96 GiB per device: agrees; asked once
    aws.assert_no_pending()


def _quota(code: str, value: float, name: str) -> dict[str, Any]:
    return {
        "Quota": {
            "ServiceCode": "ec2",
            "ServiceName": "Amazon Elastic Compute Cloud (Amazon EC2)",
            "QuotaArn": f"arn:aws:servicequotas:us-east-2:123456789012:ec2/{code}",
            "QuotaCode": code,
            "QuotaName": name,
            "Value": value,
            "Unit": "None",
            "Adjustable": True,
            "GlobalQuota": False,
        }
    }


def test_quota_smaller_than_the_declared_vcpus() -> None:
    aws = StubbedAws()
    aws.stub("service-quotas", "us-east-2").add_response(
        "get_service_quota",
        _quota("L-2C3B7624", 256.0, "Running On-Demand Trn instances"),
        {"ServiceCode": "ec2", "QuotaCode": "L-2C3B7624"},
    )
    (f,) = run_check("preflight-quota", TRN2_DEV, Account(aws.client))
    assert f.severity == "error" and f.line == 10
    assert f.message == (
        "node group 'trainers' needs 384 vCPUs (2 x trn2.48xlarge x 192) of 'Running On-Demand Trn "
        "instances' (L-2C3B7624); the applied quota in us-east-2 is 256 vCPUs, and running instances "
        "count against it too"
    )


def test_quota_large_enough_passes_and_falls_back_to_the_aws_default() -> None:
    aws = StubbedAws()
    stub = aws.stub("service-quotas", "us-east-2")
    stub.add_client_error(
        "get_service_quota",
        "NoSuchResourceException",
        "The request failed because the specified service quota does not exist.",
        400,
    )
    stub.add_response(
        "get_aws_default_service_quota",
        _quota("L-2C3B7624", 384.0, "Running On-Demand Trn instances"),
        {"ServiceCode": "ec2", "QuotaCode": "L-2C3B7624"},
    )
    assert run_check("preflight-quota", TRN2_DEV, Account(aws.client)) == []
    aws.assert_no_pending()


def test_spot_groups_use_the_spot_quota_and_capacity_blocks_none(stack_file) -> None:
    path = stack_file(
        """
availability_zone: us-east-1a
node_groups:
  - {name: spot, instance_type: p5.48xlarge, count: 4, purchase: spot}
  - {name: block, instance_type: p5en.48xlarge, count: 8, purchase: capacity-block}
placement_group: none
""",
        region="us-east-1",
    )
    aws = StubbedAws()
    aws.stub("service-quotas", "us-east-1").add_response(
        "get_service_quota",
        _quota("L-7212CCBC", 384.0, "All P Spot Instance Requests"),
        {"ServiceCode": "ec2", "QuotaCode": "L-7212CCBC"},
    )
    (f,) = run_check("preflight-quota", path, Account(aws.client))
    assert (
        "768 vCPUs (4 x p5.48xlarge x 192)" in f.message and "'All P Spot Instance Requests' (L-7212CCBC)" in f.message
    )
    aws.assert_no_pending()


ULTRA = """
availability_zone: us-east-2b
node_groups:
  - name: ultraservers
    instance_type: trn2u.48xlarge
    ultraservers: {ultraservers}
    purchase: capacity-block
    capacity_reservation_id: cr-0123456789abcdef0
placement_group: none
lustre: {{deployment_type: PERSISTENT_2, storage_capacity_gib: 9600, per_unit_storage_throughput: 250}}
schedule: {{hours: 336}}
"""


def _block(**over: Any) -> dict[str, Any]:
    """A DescribeCapacityReservations answer for a 14-day UltraServer Capacity Block, as AWS shapes it."""
    cr = {
        "CapacityReservationId": "cr-0123456789abcdef0",
        "OwnerId": "123456789012",
        "CapacityReservationArn": "arn:aws:ec2:us-east-2:123456789012:capacity-reservation/cr-0123456789abcdef0",
        "AvailabilityZoneId": "use2-az2",
        "InstanceType": "trn2u.48xlarge",
        "InstancePlatform": "Linux/UNIX",
        "AvailabilityZone": "us-east-2b",
        "Tenancy": "default",
        "TotalInstanceCount": 16,
        "AvailableInstanceCount": 16,
        "EbsOptimized": True,
        "EphemeralStorage": False,
        "State": "scheduled",
        "StartDate": dt.datetime(2026, 12, 1, 11, 30, tzinfo=UTC),
        "EndDate": dt.datetime(2026, 12, 15, 11, 30, tzinfo=UTC),
        "EndDateType": "limited",
        "InstanceMatchCriteria": "targeted",
        "CreateDate": dt.datetime(2026, 11, 20, 9, 0, tzinfo=UTC),
        "ReservationType": "capacity-block",
    }
    cr.update(over)
    return {"CapacityReservations": [cr]}


def _reservation_findings(
    stack_file, answer: dict[str, Any] | None, ultraservers: int = 4, error: str | None = None
) -> list[Any]:
    aws = StubbedAws()
    stub = aws.stub("ec2", "us-east-2")
    if error:
        stub.add_client_error(
            "describe_capacity_reservations",
            error,
            "The capacity reservation ID 'cr-0123456789abcdef0' does not exist",
            400,
        )
    else:
        stub.add_response(
            "describe_capacity_reservations", answer, {"CapacityReservationIds": ["cr-0123456789abcdef0"]}
        )
    out = run_check("preflight-reservation", stack_file(ULTRA.format(ultraservers=ultraservers)), Account(aws.client))
    aws.assert_no_pending()
    return out


def test_matching_capacity_block_passes(stack_file) -> None:
    assert _reservation_findings(stack_file, _block()) == []


def test_reservation_that_does_not_exist(stack_file) -> None:
    (f,) = _reservation_findings(stack_file, None, error="InvalidCapacityReservationId.NotFound")
    assert f.rule == "preflight-reservation" and f.line == 10
    assert "cr-0123456789abcdef0 does not exist in us-east-2" in f.message


def test_reservation_of_the_wrong_kind_type_zone_and_size(stack_file) -> None:
    answer = _block(
        ReservationType="default",
        InstanceType="trn2.48xlarge",
        AvailabilityZone="us-east-2a",
        TotalInstanceCount=8,
        AvailableInstanceCount=8,
        State="active",
    )
    msgs = [f.message for f in _reservation_findings(stack_file, answer)]
    assert any(
        "is an On-Demand Capacity Reservation (ReservationType default), not a Capacity Block" in m for m in msgs
    )
    assert any("reserves trn2.48xlarge, the group declares trn2u.48xlarge" in m for m in msgs)
    assert any("is in us-east-2a, the group is in us-east-2b" in m for m in msgs)
    assert any("holds 8 instances; node group(s) 'ultraservers' declare 16" in m for m in msgs)


def test_expired_block_and_short_block(stack_file) -> None:
    (f,) = _reservation_findings(stack_file, _block(State="expired"))
    assert f.message == "capacity reservation cr-0123456789abcdef0 is expired; instances cannot launch into it"
    short = _block(EndDate=dt.datetime(2026, 12, 8, 11, 30, tzinfo=UTC))
    (w,) = _reservation_findings(stack_file, short)
    assert w.severity == "warning" and "lasts 168.0 h; the schedule declares 336 h" in w.message


def test_block_partly_in_use_is_a_warning(stack_file) -> None:
    (w,) = _reservation_findings(stack_file, _block(State="active", AvailableInstanceCount=12))
    assert w.severity == "warning" and "has 12 of 16 instances available now" in w.message


def test_one_reservation_per_ultraserver_is_checked_id_by_id(stack_file) -> None:
    """A group naming one reservation per UltraServer: each id is checked for what it is (kind, type,
    zone, state), and a missing one is pointed at in the list; no size is asked of each, since how a
    block's instances spread over its reservations is not documented."""
    ids = ["cr-0123456789abcdef0", "cr-0123456789abcdef1"]
    aws = StubbedAws()
    stub = aws.stub("ec2", "us-east-2")
    stub.add_response(
        "describe_capacity_reservations",
        _block(TotalInstanceCount=4, AvailableInstanceCount=4),
        {"CapacityReservationIds": [ids[0]]},
    )
    stub.add_client_error(
        "describe_capacity_reservations",
        "InvalidCapacityReservationId.NotFound",
        f"The capacity reservation ID '{ids[1]}' does not exist",
        400,
    )
    cluster = ULTRA.format(ultraservers=2).replace(
        "    capacity_reservation_id: cr-0123456789abcdef0\n",
        "    capacity_reservation_id:\n" + "".join(f"      - {i}\n" for i in ids),
    )
    (f,) = run_check("preflight-reservation", stack_file(cluster), Account(aws.client))
    aws.assert_no_pending()
    assert (
        f.message == f"node group 'ultraservers': capacity reservation {ids[1]} does not exist in us-east-2 "
        "(or is not shared with this account)"
    )
    assert f.line == 12  # the second id of the list


# --- failure paths: each check isolated, one line each, never a traceback ----------------------


def test_access_denied_on_one_api_leaves_the_other_checks_reporting() -> None:
    aws = StubbedAws()
    ec2 = aws.stub("ec2", "us-east-2")
    # checks run in id order: catalogue (DescribeInstanceTypes) before offering
    ec2.add_response("describe_instance_types", _trn2(cards=8), {"InstanceTypes": ["trn2.48xlarge"]})
    ec2.add_client_error(
        "describe_instance_type_offerings",
        "UnauthorizedOperation",
        "You are not authorized to perform this operation.",
        403,
    )
    aws.stub("service-quotas", "us-east-2").add_client_error(
        "get_service_quota", "ThrottlingException", "Rate exceeded", 400
    )
    plan = preflight_stack(load_stack(TRN2_DEV), Account(aws.client))
    got = {(f.rule, f.line): f for f in plan.findings}
    assert (
        "access denied to ec2:DescribeInstanceTypeOfferings in us-east-2 (UnauthorizedOperation)"
        in got[("preflight-aws-error", 6)].message
    )
    assert (
        "AWS throttled servicequotas:GetServiceQuota in us-east-2 (ThrottlingException)"
        in got[("preflight-aws-error", 10)].message
    )
    assert "reports 8" in got[("preflight-efa", 9)].message  # still checked
    aws.assert_no_pending()


def test_unreachable_endpoint_is_one_finding_per_question() -> None:
    aws = StubbedAws()
    err = EndpointConnectionError(endpoint_url="https://ec2.us-east-2.amazonaws.com/")
    aws.fail_on_send("ec2", "us-east-2", err)
    aws.stub("service-quotas", "us-east-2").add_response(
        "get_service_quota", _quota("L-2C3B7624", 1024.0, "Running On-Demand Trn instances")
    )
    plan = preflight_stack(load_stack(TRN2_DEV), Account(aws.client))
    assert {f.rule for f in plan.findings} == {"preflight-aws-error"}
    msgs = sorted(f.message for f in plan.findings)
    assert len(msgs) == 2  # offerings (AZ line) and instance types (type line, asked once for two checks)
    assert all("could not reach the AWS endpoint" in m and "check the network, proxy and region" in m for m in msgs)


def test_an_api_the_endpoint_does_not_implement_stops_only_its_check(moto, stack_file) -> None:
    """moto has no DescribeCapacityReservations: the reservation check says so, the others still run."""
    path = stack_file(
        """
availability_zone: us-east-1b
node_groups:
  - {name: training, instance_type: p5en.48xlarge, count: 8, purchase: capacity-block, capacity_reservation_id: cr-0a1b2c3d4e5f60718}
placement_group: none
""",
        region="us-east-1",
    )
    res = run_cli("preflight", str(path), "--format", "json")
    fs = findings(res.out)
    (err,) = [f for f in by_rule(fs, "preflight-aws-error") if "reservation" in f["message"]]
    assert "NotImplementedError" in err["message"] and "Traceback" not in res.err
    assert by_rule(fs, "preflight-offering")  # us-east-1b does not list p5en: still reported


def test_preflight_offers_the_formats_of_plan() -> None:
    from planner.commands import plan

    res = run_cli("preflight", TRN2_DEV, "--format", "no-such-format")
    assert res.code == 2 and all(f in res.err for f in plan.FORMATS)


def test_no_credentials_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate(monkeypatch, tmp_path, credentials=False)
    res = run_cli("preflight", TRN2_DEV)
    assert res.code == 2 and res.out == ""
    assert res.err.startswith("planner: preflight: no AWS credentials found") and res.err.count("\n") == 1


def test_unknown_profile_is_one_line_and_exit_2() -> None:
    res = run_cli("preflight", TRN2_DEV, "--profile", "nope")
    assert res.code == 2 and "nope" in res.err and "Traceback" not in res.err and res.err.count("\n") == 1


def test_no_credentials_as_a_process_never_prints_a_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate(monkeypatch, tmp_path, credentials=False)  # the child inherits this environment
    res = run_process("preflight", TRN2_DEV)
    assert res.code == 2 and "Traceback" not in res.err and "no AWS credentials found" in res.err


def test_plan_never_imports_boto3(tmp_path: Path) -> None:
    import subprocess
    import sys

    from conftest import ROOT

    code = (
        "import sys, io, contextlib\nfrom planner.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['plan'])\n"
        "assert 'boto3' not in sys.modules and 'botocore' not in sys.modules, 'boto3 imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


# --- the formats and suppressions of planner plan -----------------------------------------------


def test_sarif_describes_the_preflight_checks_it_reports(moto) -> None:
    import jsonschema
    from conftest import ROOT

    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    res = run_cli("preflight", TRN2_DEV, "--format", "sarif")
    doc = json.loads(res.out)
    jsonschema.Draft4Validator(schema).validate(doc)
    run = doc["runs"][0]
    ids = [d["id"] for d in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"] and result["ruleId"].startswith("preflight-")
    assert res.code == 1


def test_markdown_shows_the_case_specific_fix_of_a_preflight_check(moto) -> None:
    res = run_cli("preflight", TRN2_DEV, "--format", "markdown")
    assert "`preflight-aws-error`" in res.out
    assert (
        "<br>**Fix:** look up the vCPU quota L-2C3B7624 (Running On-Demand Trn instances) in us-east-2 another way "
        "(the AWS console, or AWS Support), or suppress preflight-aws-error to accept a partial preflight |"
    ) in res.out
    assert "Fix what the message names" not in res.out  # the check's general remediation is for planner rules


def test_a_stack_may_suppress_a_preflight_check_and_still_plan(moto, stack_file) -> None:
    path = stack_file("""
availability_zone: us-east-2b
node_groups:
  - {name: trainers, instance_type: trn2.48xlarge, count: 2}
suppress:
  - {rule: preflight-aws-error, reason: "Service Quotas is checked by the platform team"}
""")
    assert run_cli("plan", str(path)).code in (0, 1)  # a known id: not bad input
    res = run_cli("preflight", str(path), "--format", "json")
    (err,) = by_rule(findings(res.out), "preflight-aws-error")
    assert err["suppressed"] is True and res.code == 0


def test_an_unknown_suppression_is_bad_input_for_preflight_too(moto) -> None:
    res = run_cli("preflight", TRN2_DEV, "--suppress", "preflight-quotas")
    assert res.code == 2 and "did you mean 'preflight-quota'" in res.err


def test_an_unreachable_endpoint_is_not_retried_by_every_check(stack_file) -> None:
    aws = StubbedAws()
    calls: list[str] = []

    def count(**kwargs: Any) -> None:
        calls.append(kwargs["request"].url)
        raise EndpointConnectionError(endpoint_url="https://ec2.us-east-2.amazonaws.com/")

    client = aws.client("ec2", "us-east-2")
    aws.stubbers[("ec2", "us-east-2")].deactivate()
    client.meta.events.register_first("before-send", count)
    aws.stub("service-quotas", "us-east-2").add_response(
        "get_service_quota", _quota("L-2C3B7624", 1024.0, "Running On-Demand Trn instances")
    )
    path = stack_file(NETWORK.format(vpc="vpc-0123456789abcdef0", subnet="subnet-0123456789abcdef0"))
    plan = preflight_stack(load_stack(str(path)), Account(aws.client))
    assert len(calls) == 1  # instance types, offerings, VPC and subnet: one attempt, then known unreachable
    assert {f.rule for f in plan.findings} == {"preflight-aws-error"} and len(plan.findings) == 4


def test_region_must_look_like_one() -> None:
    res = run_cli("preflight", TRN2_DEV, "--region", "mars")
    assert res.code == 2 and "expected an AWS region such as us-east-2, got 'mars'" in res.err


def test_preflight_with_no_path_reads_the_projects_stack_config_dir(moto, tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    (tmp_path / "config").mkdir()
    (tmp_path / "Pulumi.yaml").write_text("name: demo\nruntime: python\nstackConfigDir: config\n", encoding="utf-8")
    (tmp_path / "config" / "Pulumi.dev.yaml").write_text(
        (root / TRN2_DEV).read_text(encoding="utf-8"), encoding="utf-8"
    )
    res = run_cli("preflight", "--format", "json", cwd=tmp_path)
    assert [s["file"] for s in json.loads(res.out)["stacks"]] == ["config/Pulumi.dev.yaml"], res.err
    (tmp_path / "Pulumi.yaml").unlink()
    res = run_cli("preflight", cwd=tmp_path)
    assert res.code == 2 and res.err == (
        "planner: Pulumi.yaml: not found: no Pulumi project in this folder; "
        "name stack files or folders instead (planner preflight PATH)\n"
    )
