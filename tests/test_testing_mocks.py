"""planner.testing: resources a program registers exist in moto afterwards, with real ids."""

from __future__ import annotations

import json

import boto3
import pulumi
import pulumi_aws as aws
import pytest
from conftest import ROOT
from moto import mock_aws

from planner.runtime import declared_clusters as registry
from planner.testing import MotoMocks, deploy, run

ASSUME_EC2 = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
)


@pytest.fixture(autouse=True)
def aws_account(monkeypatch: pytest.MonkeyPatch):
    """A fresh moto account per test, without moto's public AMIs (faster)."""
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    registry.reset()
    with mock_aws():
        yield


def test_example_program_creates_bucket_role_and_profile_used_by_the_nodes() -> None:
    mocks = deploy(str(ROOT / "examples" / "ultraserver-training"), "dev")
    iam = boto3.client("iam")
    (bucket,) = mocks.of_type("aws:s3/bucket:Bucket")
    assert bucket.id in [b["Name"] for b in boto3.client("s3").list_buckets()["Buckets"]]
    (profile,) = mocks.of_type("aws:iam/instanceProfile:InstanceProfile")
    roles = iam.get_instance_profile(InstanceProfileName=profile.id)["InstanceProfile"]["Roles"]
    assert [r["RoleName"] for r in roles] == [mocks.of_type("aws:iam/role:Role")[0].id]
    (policy,) = mocks.of_type("aws:iam/rolePolicy:RolePolicy")
    document = iam.get_role_policy(RoleName=roles[0]["RoleName"], PolicyName=policy.outputs["name"])["PolicyDocument"]
    assert document["Statement"][0]["Resource"] == [bucket.outputs["arn"], bucket.outputs["arn"] + "/*"]
    (template,) = mocks.of_type("aws:ec2/launchTemplate:LaunchTemplate")
    data = boto3.client("ec2", region_name="us-east-2").describe_launch_template_versions(LaunchTemplateId=template.id)[
        "LaunchTemplateVersions"
    ][0]["LaunchTemplateData"]
    assert data["IamInstanceProfile"] == {"Name": profile.id}
    assert template.outputs["arn"].endswith(f"launch-template/{template.id}")


def test_plain_resources_and_invokes_go_through_moto() -> None:
    zones: list[list[str]] = []

    def declare() -> None:
        vpc = aws.ec2.Vpc("v", cidr_block="10.1.0.0/16")
        subnet = aws.ec2.Subnet("s", vpc_id=vpc.id, cidr_block="10.1.0.0/24", availability_zone="us-east-1c")
        sg = aws.ec2.SecurityGroup(
            "web",
            vpc_id=vpc.id,
            description="inline rules",
            ingress=[{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_blocks": ["10.0.0.0/8"]}],
            egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}],
        )
        aws.ec2.SecurityGroupRule(
            "https",
            type="ingress",
            security_group_id=sg.id,
            protocol="tcp",
            from_port=443,
            to_port=443,
            cidr_blocks=["10.0.0.0/8"],
        )
        aws.ec2.Instance(
            "box",
            ami="ami-12c6146b",
            instance_type="t3.micro",
            subnet_id=subnet.id,
            vpc_security_group_ids=[sg.id],
            metadata_options={"http_tokens": "required"},
        )
        aws.ec2.CapacityReservation(
            "cr",
            instance_type="p5en.48xlarge",
            instance_platform="Linux/UNIX",
            availability_zone="us-east-1c",
            instance_count=2,
        )
        aws.get_availability_zones_output().names.apply(zones.append)

    mocks = run(declare, MotoMocks("us-east-1"))
    ec2 = boto3.client("ec2", region_name="us-east-1")
    (group,) = ec2.describe_security_groups(GroupIds=[mocks.named("web").id])["SecurityGroups"]
    assert sorted(p["FromPort"] for p in group["IpPermissions"]) == [22, 443]
    assert group["IpPermissionsEgress"][0]["UserIdGroupPairs"][0]["GroupId"] == group["GroupId"]
    assert not any(r.get("CidrIp") == "0.0.0.0/0" for p in group["IpPermissionsEgress"] for r in p.get("IpRanges", []))
    (instance,) = ec2.describe_instances(InstanceIds=[mocks.named("box").id])["Reservations"][0]["Instances"]
    assert instance["SubnetId"] == mocks.named("s").id
    assert instance["Placement"]["AvailabilityZone"] == "us-east-1c"
    assert mocks.named("cr").backend == "recorded"  # moto has no CreateCapacityReservation
    assert "us-east-1c" in zones[0]
    assert [t for t, _ in mocks.calls] == ["aws:index/getAvailabilityZones:getAvailabilityZones"]


def test_set_mocks_directly_with_pulumi_test() -> None:
    """The plain Pulumi pattern works too: set_mocks, then @pulumi.runtime.test."""
    mocks = MotoMocks("us-east-2")
    pulumi.runtime.set_mocks(mocks, preview=False)

    @pulumi.runtime.test
    def check():
        bucket = aws.s3.Bucket("data")
        return bucket.arn.apply(lambda arn: arn == "arn:aws:s3:::data" or pytest.fail(arn))

    check()
    assert [b["Name"] for b in boto3.client("s3").list_buckets()["Buckets"]] == ["data"]


# --- common programs (issue 11, item 5) -----------------------------------------------------------


def _vpc_program(**subnet_args: object):
    def program() -> None:
        import pulumi
        import pulumi_aws as aws

        vpc = aws.ec2.Vpc("corpus-vpc", cidr_block="10.1.0.0/21")
        secondary = aws.ec2.VpcIpv4CidrBlockAssociation("secondary", vpc_id=vpc.id, cidr_block="100.64.0.0/16")
        sub = aws.ec2.Subnet(
            "pods",
            vpc_id=vpc.id,
            cidr_block="100.64.0.0/17",
            opts=pulumi.ResourceOptions(depends_on=[secondary]),
            **subnet_args,
        )
        aws.fsx.LustreFileSystem("scratch", storage_capacity=1200, deployment_type="SCRATCH_2", subnet_ids=sub.id)

    return program


def test_secondary_cidr_subnets_and_an_untagged_file_system_are_created_in_moto() -> None:
    """awslabs/data-on-eks trainium-inferentia puts its node subnets in the secondary CIDR 100.64.0.0/16, and
    its FSx for Lustre file system has no tags (fsx-for-lustre.tf): both must deploy into moto."""
    from moto import mock_aws

    from planner.testing import MotoMocks, run

    with mock_aws():
        mocks = run(_vpc_program(availability_zone="us-west-2a"), MotoMocks("us-west-2"))
        ec2, fsx = boto3.client("ec2", region_name="us-west-2"), boto3.client("fsx", region_name="us-west-2")
        (vpc,) = [v for v in ec2.describe_vpcs()["Vpcs"] if v["CidrBlock"] == "10.1.0.0/21"]
        assert {a["CidrBlock"] for a in vpc["CidrBlockAssociationSet"]} == {"10.1.0.0/21", "100.64.0.0/16"}
        (sub,) = ec2.describe_subnets(Filters=[{"Name": "cidr-block", "Values": ["100.64.0.0/17"]}])["Subnets"]
        assert sub["AvailabilityZone"] == "us-west-2a"
        assert [f["StorageCapacity"] for f in fsx.describe_file_systems()["FileSystems"]] == [1200]
        assert mocks.named("pods").outputs["availabilityZone"] == "us-west-2a"


def test_an_az_the_program_does_not_name_is_not_made_up() -> None:
    """Without an AZ, moto puts the subnet in an AZ of its choosing; the outputs leave the AZ unknown, and an AZ
    given by id (as data-on-eks's az_mapping does: usw2-az1) is translated when moto knows the id."""
    from moto import mock_aws

    from planner.testing import MotoMocks, run

    with mock_aws():
        mocks = run(_vpc_program(), MotoMocks("us-west-2"))
        assert "availabilityZone" not in mocks.named("pods").outputs
    with mock_aws():
        zones = boto3.client("ec2", region_name="us-west-2").describe_availability_zones()["AvailabilityZones"]
        zone = zones[0]
        mocks = run(_vpc_program(availability_zone_id=zone["ZoneId"]), MotoMocks("us-west-2"))
        assert mocks.named("pods").outputs["availabilityZone"] == zone["ZoneName"]


def test_a_failed_registration_does_not_leak_into_the_next_run() -> None:
    """A subnet outside its VPC fails in moto; the next program in the same process still runs cleanly."""
    from moto import mock_aws

    from planner.testing import MotoMocks, run

    def broken() -> None:
        import pulumi_aws as aws

        vpc = aws.ec2.Vpc("v", cidr_block="10.0.0.0/16")
        aws.ec2.Subnet("outside", vpc_id=vpc.id, cidr_block="192.168.0.0/24")

    with mock_aws():
        with pytest.raises(Exception, match="InvalidSubnet.Range"):
            run(broken, MotoMocks("us-east-1"))
        mocks = run(_vpc_program(availability_zone="us-east-1a"), MotoMocks("us-east-1"))
        assert [r.name for r in mocks.resources if r.backend == "moto"] == [
            "corpus-vpc",
            "secondary",
            "pods",
            "scratch",
        ]


def test_one_mock_family_offline_readback_echo_and_moto() -> None:
    """Every mock planner runs programs under shares one base: registrations, custom, calls, the lock."""
    from planner.runtime.offline_run import OfflineMocks, ReadbackMocks, run_with_mocks
    from planner.runtime.recording_mocks import EchoMocks, PlannerMocks

    for cls in (OfflineMocks, ReadbackMocks, EchoMocks, MotoMocks):
        assert issubclass(cls, PlannerMocks), cls

    def declare() -> None:
        import pulumi_aws as aws

        vpc = aws.ec2.Vpc("net", cidr_block="10.0.0.0/16")
        aws.ec2.Subnet("sub", vpc_id=vpc.id, cidr_block="10.0.1.0/24")

    offline, readback = OfflineMocks(), ReadbackMocks()
    run_with_mocks(declare, offline)
    run_with_mocks(declare, readback)
    assert [(r.type, r.name, r.id, r.backend) for r in offline.resources] == [
        ("aws:ec2/vpc:Vpc", "net", "net-id", "echo"),
        ("aws:ec2/subnet:Subnet", "sub", "sub-id", "echo"),
    ]
    assert offline.named("sub").outputs == {"cidrBlock": "10.0.1.0/24", "vpcId": "net-id"}
    # the read-back fills in what a provider would: a name and an ARN ending in the id
    assert readback.named("sub").outputs["arn"] == "arn:aws:mock::000000000000:Subnet/sub-id"
    assert readback.named("sub").outputs["name"] == "sub"
    assert readback.custom == {("aws:ec2/vpc:Vpc", "net"): True, ("aws:ec2/subnet:Subnet", "sub"): True}
