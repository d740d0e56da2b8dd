"""Case-specific fixes of the preflight checks (issue 15 item 4): each names the key of the stack
(or of the catalogue) to change and the value to use, from the account's answer (moto, or
botocore's Stubber with AWS-shaped responses) and the stack's values. One test per check module."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from conftest import run_cli
from test_preflight import (
    NETWORK,
    TRN2_DEV,
    ULTRA,
    UTC,
    _block,
    _quota,
    _trn2,
    _vpc_and_subnets,
    by_rule,
    findings,
    run_check,
)
from test_preflight_helpers import StubbedAws

from planner.aws.account import Account
from planner.aws.checks import aws_error_fix
from planner.aws.errors import AwsCallError
from tests.conftest import fix_words

pytestmark = pytest.mark.usefixtures("isolated_aws")  # fake credentials and config (conftest)


def fixes(fs: list[dict[str, Any]], rule: str) -> list[str]:
    return [f["fix"]["text"] for f in by_rule(fs, rule)]


# --- network.py ---------------------------------------------------------------------------------


def test_network_fixes_name_the_subnet_key_the_vpc_and_the_zone(moto, stack_file) -> None:
    vpc, other, _, in_a = _vpc_and_subnets()
    fs = findings(run_cli("preflight", str(stack_file(NETWORK.format(vpc=other, subnet=in_a))), "--format", "json").out)
    got = {f["message"]: f["fix"]["text"] for f in by_rule(fs, "preflight-network")}
    assert got[f"subnet {in_a} belongs to {vpc}, not to the declared {other}"] == (
        f"set network.vpc_id: {vpc} (the subnet's VPC), or set network.subnet_id: subnet-... (a subnet of {other} "
        "in us-east-2b)"
    )
    # the group and the file system inherit the cluster's AZ: the key is the cluster's availability_zone
    assert got[f"subnet {in_a} is in us-east-2a; node group 'trainers' is declared in us-east-2b"] == (
        f"set availability_zone: us-east-2a (the subnet's AZ), or set network.subnet_id: subnet-... (a subnet of "
        f"{other} in us-east-2b)"
    )
    assert got[f"subnet {in_a} is in us-east-2a; the FSx for Lustre file system is declared in us-east-2b"] == (
        f"set availability_zone: us-east-2a (the subnet's AZ), or set network.subnet_id: subnet-... (a subnet of "
        f"{other} in us-east-2b)"
    )


def test_network_fix_names_the_groups_own_zone_key(moto, stack_file) -> None:
    vpc, _, _, in_a = _vpc_and_subnets()
    path = stack_file(f"""
availability_zone: us-east-2a
node_groups:
  - {{name: trainers, instance_type: trn2.48xlarge, count: 2, availability_zone: us-east-2b}}
network: {{vpc_id: {vpc}, subnet_id: {in_a}}}
""")
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    assert fixes(fs, "preflight-network") == [
        "in node group 'trainers', set availability_zone: us-east-2a (the subnet's AZ), "
        f"or set network.subnet_id: subnet-... (a subnet of {vpc} in us-east-2b)"
    ]


def test_missing_vpc_and_subnet_fixes(moto, stack_file) -> None:
    path = stack_file(NETWORK.format(vpc="vpc-0123456789abcdef0", subnet="subnet-0123456789abcdef0"))
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    assert fixes(fs, "preflight-network") == [
        "set network.vpc_id: vpc-... (a VPC of us-east-2: aws ec2 describe-vpcs --region us-east-2), "
        "or remove network (to let the components create one)",
        "set network.subnet_id: subnet-... (a subnet in us-east-2b: aws ec2 describe-subnets --region us-east-2)",
    ]


def test_subnet_short_of_free_addresses_names_the_number_needed(moto, stack_file) -> None:
    import boto3

    ec2 = boto3.client("ec2", region_name="us-east-2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    # a /28 has 16 addresses; AWS keeps 5 of each subnet: 11 free
    small = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.0.0/28", AvailabilityZone="us-east-2b")["Subnet"]["SubnetId"]
    path = stack_file(f"""
availability_zone: us-east-2b
node_groups:
  - {{name: trainers, instance_type: trn2.48xlarge, count: 16}}
network: {{vpc_id: {vpc}, subnet_id: {small}}}
""")
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    (f,) = by_rule(fs, "preflight-network")
    assert f["message"] == (
        f"subnet {small} has 11 free IP addresses; the cluster declares 16 instances, each needing at least one"
    )
    assert f["fix"]["text"] == (
        f"set network.subnet_id: subnet-... (a subnet of {vpc} in us-east-2b with at least 16 free IP addresses), "
        f"or free 5 more in {small}"
    )
    # as data: the edit of the network's subnet id
    assert f["fix"]["edits"][0]["path"] == "planner:cluster.network.subnet_id"


# --- offerings.py -------------------------------------------------------------------------------


def test_offering_fixes_name_a_zone_that_offers_the_type_or_the_regions(moto, stack_file) -> None:
    path = stack_file(
        """
availability_zone: us-east-1b
node_groups:
  - {name: gpus, instance_type: p5en.48xlarge, count: 2}
""",
        region="us-east-1",
    )
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    assert fixes(fs, "preflight-offering") == [
        "set availability_zone: us-east-1a (p5en.48xlarge is offered in us-east-1a, us-east-1c)"
    ]
    path = stack_file(
        """
availability_zone: us-east-1a
node_groups:
  - {name: trainers, instance_type: trn2.48xlarge, count: 2, availability_zone: us-east-1c}
""",
        region="us-east-1",
    )
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    # moto offers trn2.48xlarge in no zone of us-east-1; the catalogue lists ap-south-2 and us-east-2
    # the stack moves to the listed region nearest in name, every zone it declares with it
    assert fixes(fs, "preflight-offering") == [
        "set aws:region: us-east-2 (the catalogue lists ap-south-2, us-east-2); set availability_zone: us-east-2a; "
        "in node group 'trainers', set availability_zone: us-east-2a, or confirm "
        "with aws ec2 describe-instance-type-offerings --location-type availability-zone --filters "
        "Name=instance-type,Values=trn2.48xlarge --region REGION"
    ]


def test_offering_fixes_for_capacity_blocks_and_another_region(moto, stack_file) -> None:
    path = stack_file("""
availability_zone: us-east-2b
node_groups:
  - {name: ultraservers, instance_type: trn2u.48xlarge, ultraservers: 1, purchase: capacity-block}
placement_group: none
""")
    fs = findings(run_cli("preflight", str(path), "--format", "json").out)
    assert fixes(fs, "preflight-offering") == [
        "in node group 'ultraservers', set capacity_reservation_id: cr-... (the block's reservation id) "
        "(book the block in us-east-2b first)"
    ]
    fs = findings(run_cli("preflight", TRN2_DEV, "--region", "us-west-2", "--format", "json").out)
    assert fixes(fs, "preflight-offering") == [
        "run preflight without --region us-west-2 (the stack's region is us-east-2), "
        "or move node group 'trainers' to a zone of us-west-2"
    ]


def test_efa_and_catalogue_fixes_name_the_group_key_or_the_catalogue_key() -> None:
    aws = StubbedAws()
    aws.stub("ec2", "us-east-2").add_response(
        "describe_instance_types", _trn2(efa=False, cards=8), {"InstanceTypes": ["trn2.48xlarge"]}
    )
    account = Account(aws.client)
    assert [fix_words(f) for f in run_check("preflight-efa", TRN2_DEV, account)] == [
        "in node group 'trainers', set efa: false, or choose a type that DescribeInstanceTypes in us-east-2 "
        "lists with EfaSupported: true",
        "if DescribeInstanceTypes is right, set instance_types.trn2.48xlarge.efa.supported: false in "
        "planner/data/catalogue.yaml, with its source",
        "if DescribeInstanceTypes is right, set instance_types.trn2.48xlarge.network_cards: 8 in "
        "planner/data/catalogue.yaml, with its source",
    ]
    aws = StubbedAws()
    answer = _trn2()
    answer["InstanceTypes"][0]["VCpuInfo"]["DefaultVCpus"] = 128
    answer["InstanceTypes"][0]["NeuronInfo"]["NeuronDevices"][0]["MemoryInfo"]["SizeInMiB"] = (
        524288  # 512 GiB, as AWS says
    )
    aws.stub("ec2", "us-east-2").add_response("describe_instance_types", answer, {"InstanceTypes": ["trn2.48xlarge"]})
    fs = run_check("preflight-catalogue", TRN2_DEV, Account(aws.client))
    assert [(f.severity, fix_words(f)) for f in fs] == [
        (
            "warning",
            "if DescribeInstanceTypes is right, set instance_types.trn2.48xlarge.vcpus: 128 in "
            "planner/data/catalogue.yaml with its source; else document the catalogue's 192 in the entry's "
            "notes and field_sources.vcpus",
        ),
        ("info", "none: the catalogue's note says why it uses 96 GiB; --suppress preflight-catalogue hides this"),
    ]


# --- quotas.py ------------------------------------------------------------------------------------


def test_quota_fix_names_the_code_the_numbers_and_the_count_that_fits() -> None:
    aws = StubbedAws()
    aws.stub("service-quotas", "us-east-2").add_response(
        "get_service_quota",
        _quota("L-2C3B7624", 256.0, "Running On-Demand Trn instances"),
        {"ServiceCode": "ec2", "QuotaCode": "L-2C3B7624"},
    )
    (f,) = run_check("preflight-quota", TRN2_DEV, Account(aws.client))
    assert fix_words(f) == (
        "request L-2C3B7624 (Running On-Demand Trn instances) be raised to at least 384 vCPUs (now 256) in "
        "Service Quotas, region us-east-2, plus what already runs there, or in node group 'trainers', "
        "set count: 1 (192 vCPUs)"
    )


def test_quota_fix_for_several_groups_and_for_a_quota_below_one_instance(stack_file) -> None:
    path = stack_file(
        """
availability_zone: us-east-1a
node_groups:
  - {name: a, instance_type: p5.48xlarge, count: 2}
  - {name: b, instance_type: p5en.48xlarge, count: 2}
""",
        region="us-east-1",
    )
    aws = StubbedAws()
    aws.stub("service-quotas", "us-east-1").add_response(
        "get_service_quota",
        _quota("L-417A185B", 384.0, "Running On-Demand P instances"),
        {"ServiceCode": "ec2", "QuotaCode": "L-417A185B"},
    )
    (f,) = run_check("preflight-quota", path, Account(aws.client))
    # the groups shrunk to the quota as it is, or the increase: both ways the finding goes
    assert f.fix is not None and f.fix.outside == "quota"
    assert fix_words(f) == (
        "in node group 'a', set count: 1; in node group 'b', set count: 1 (at most 384 vCPUs in all), or request "
        "L-417A185B (Running On-Demand P instances) be raised to at least 768 vCPUs (now 384) in "
        "Service Quotas, region us-east-1, plus what already runs there"
    )
    aws = StubbedAws()
    aws.stub("service-quotas", "us-east-2").add_response(
        "get_service_quota",
        _quota("L-2C3B7624", 0.0, "Running On-Demand Trn instances"),
        {"ServiceCode": "ec2", "QuotaCode": "L-2C3B7624"},
    )
    (f,) = run_check("preflight-quota", TRN2_DEV, Account(aws.client))  # new accounts: 0 vCPUs of Trn
    assert fix_words(f) == (
        "request L-2C3B7624 (Running On-Demand Trn instances) be raised to at least 384 vCPUs (now 0) in "
        "Service Quotas, region us-east-2, plus what already runs there"
    )


# --- reservations.py -------------------------------------------------------------------------------


def _reservation(
    stack_file, answer: dict[str, Any] | None, ultraservers: int = 4, error: str | None = None
) -> list[Any]:
    aws = StubbedAws()
    stub = aws.stub("ec2", "us-east-2")
    if error:
        stub.add_client_error("describe_capacity_reservations", error, "does not exist", 400)
    else:
        stub.add_response(
            "describe_capacity_reservations", answer, {"CapacityReservationIds": ["cr-0123456789abcdef0"]}
        )
    return run_check("preflight-reservation", stack_file(ULTRA.format(ultraservers=ultraservers)), Account(aws.client))


def test_reservation_fixes_give_the_reservations_values_and_the_keys(stack_file) -> None:
    answer = _block(
        ReservationType="default",
        InstanceType="trn2.48xlarge",
        AvailabilityZone="us-east-2a",
        TotalInstanceCount=8,
        AvailableInstanceCount=8,
        State="active",
        InstancePlatform="Windows",
    )
    assert [fix_words(f) for f in _reservation(stack_file, answer)] == [
        "in node group 'ultraservers', set purchase: on-demand (to use cr-0123456789abcdef0), "
        "or name the Capacity Block's reservation id instead",
        "in node group 'ultraservers', set instance_type: trn2.48xlarge (what cr-0123456789abcdef0 reserves), "
        "or name a reservation of trn2u.48xlarge",
        "set availability_zone: us-east-2a (that of cr-0123456789abcdef0), or name a reservation in us-east-2b",
        "name a Linux/UNIX reservation for node group 'ultraservers' (cr-0123456789abcdef0 is Windows)",
        "in node group 'ultraservers', set ultraservers: 2 (8 instances, what cr-0123456789abcdef0 holds), "
        "or declare a reservation of at least 16 instances",
    ]


def test_reservation_fixes_for_state_size_in_use_schedule_and_a_missing_id(stack_file) -> None:
    (f,) = _reservation(stack_file, None, error="InvalidCapacityReservationId.NotFound")
    assert fix_words(f) == (
        "name the id of the Capacity Block booked for trn2u.48xlarge in us-east-2b as the capacity reservation of "
        "node group 'ultraservers' (aws ec2 describe-capacity-reservations --region us-east-2)"
    )
    (f,) = _reservation(stack_file, _block(State="expired"))
    assert fix_words(f) == (
        "in node group 'ultraservers', set capacity_reservation_id: cr-... (the new block's reservation id) "
        "(book a new Capacity Block of 16 x trn2u.48xlarge in us-east-2b first)"
    )
    (f,) = _reservation(stack_file, _block(State="active", AvailableInstanceCount=12))
    assert fix_words(f) == (
        "in node group 'ultraservers', set ultraservers: 3 (12 instances, what cr-0123456789abcdef0 has free), "
        "or stop 4 of the instances running in it before deploying"
    )
    (f,) = _reservation(stack_file, _block(EndDate=dt.datetime(2026, 12, 8, 11, 30, tzinfo=UTC)))
    assert fix_words(f) == "set schedule.hours: 168 (the block's length), or book a block of at least 336 h (14 days)"


def test_reservation_size_fix_in_instances(stack_file) -> None:
    path = stack_file("""
availability_zone: us-east-2b
node_groups:
  - {name: od, instance_type: trn2.48xlarge, count: 4, capacity_reservation_id: cr-0123456789abcdef0}
""")
    aws = StubbedAws()
    answer = _block(
        ReservationType="default",
        InstanceType="trn2.48xlarge",
        TotalInstanceCount=3,
        AvailableInstanceCount=3,
        State="active",
    )
    aws.stub("ec2", "us-east-2").add_response(
        "describe_capacity_reservations", answer, {"CapacityReservationIds": ["cr-0123456789abcdef0"]}
    )
    (f,) = run_check("preflight-reservation", path, Account(aws.client))
    assert fix_words(f) == (
        "in node group 'od', set count: 3 (what cr-0123456789abcdef0 holds), "
        "or declare a reservation of at least 4 instances"
    )


# --- checks.py: preflight-aws-error --------------------------------------------------------------


def test_aws_error_fixes_say_what_to_grant_refresh_or_raise() -> None:
    def fix(code: str, message: str = "m", action: str = "ec2:DescribeSubnets") -> str:
        return aws_error_fix(AwsCallError(action, message, code), "us-east-2", "subnet subnet-1")

    assert fix("UnauthorizedOperation") == (
        "allow ec2:DescribeSubnets for the role or user that runs preflight (the IAM "
        "policy in the preflight docs), or suppress preflight-aws-error to accept a "
        "partial preflight"
    )
    assert fix("ExpiredToken") == (
        "refresh the AWS credentials (ExpiredToken; for example aws sso login) or pass "
        "--profile, then run preflight again"
    )
    assert fix("ThrottlingException") == (
        "run preflight again later (ec2:DescribeSubnets was throttled in us-east-2), "
        "or suppress preflight-aws-error to accept a partial preflight"
    )
    assert (
        fix("Deadline") == "raise --aws-timeout, or check the credential_process, proxy or endpoint that did not answer"
    )
    assert fix("EndpointConnectionError") == (
        "check the network, proxy and AWS_ENDPOINT_URL (if set) for the us-east-2 endpoint, then run preflight again"
    )


def test_aws_error_findings_carry_their_fix(moto) -> None:
    res = run_cli("preflight", TRN2_DEV, "--format", "json")
    (err,) = by_rule(findings(res.out), "preflight-aws-error")
    assert err["fix"]["text"] == (
        "look up the vCPU quota L-2C3B7624 (Running On-Demand Trn instances) in us-east-2 another way "
        "(the AWS console, or AWS Support), or suppress preflight-aws-error to accept a partial preflight"
    )
    aws = StubbedAws()
    aws.stub("ec2", "us-east-2").add_client_error(
        "describe_instance_type_offerings",
        "UnauthorizedOperation",
        "You are not authorized to perform this operation.",
        403,
    )
    (f,) = run_check("preflight-offering", TRN2_DEV, Account(aws.client))
    assert fix_words(f) == (
        "allow ec2:DescribeInstanceTypeOfferings for the role or user that runs preflight (the IAM policy "
        "in the preflight docs), or suppress preflight-aws-error to accept a partial preflight"
    )
