"""The components, deployed into moto through Pulumi mocks, checked through boto3.

Each test runs in its own moto account (`mock_aws` per test) with fresh Pulumi mocks
(`planner.testing` calls `set_mocks` on every run).
"""

from __future__ import annotations

import logging
from typing import Any

import boto3
import pulumi
import pytest
from conftest import ROOT
from moto import mock_aws

from planner.components import (
    AcceleratedCluster,
    ClusterArgs,
    ClusterInputError,
    ClusterRejected,
    EfaNetwork,
    EfaNetworkArgs,
    LustreArgs,
    LustreStorage,
    LustreStorageArgs,
    NodeGroupArgs,
    P5enCluster,
    Trn2Cluster,
    UltraServerCluster,
    from_config,
)
from planner.core.catalogue import instance_types as catalogue
from planner.core.document import codec
from planner.core.input.stack_files import load_stack
from planner.core.model.findings import Finding
from planner.core.planning.pipeline import plan_stack
from planner.runtime import declared_clusters as registry
from planner.testing import MotoMocks, deploy, run

LT = "aws:ec2/launchTemplate:LaunchTemplate"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"


@pytest.fixture(autouse=True)
def aws(monkeypatch: pytest.MonkeyPatch):
    """A fresh moto account per test; no public AMIs (the templates resolve theirs via SSM)."""
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    registry.reset()
    with mock_aws():
        yield


def ec2(region: str) -> Any:
    return boto3.client("ec2", region_name=region)


def template_data(region: str, template_id: str) -> dict[str, Any]:
    versions = ec2(region).describe_launch_template_versions(LaunchTemplateId=template_id)["LaunchTemplateVersions"]
    return versions[-1]["LaunchTemplateData"]


def only(items: list[Any]) -> Any:
    assert len(items) == 1, items
    return items[0]


def our_subnet(region: str) -> dict[str, Any]:
    return only([s for s in ec2(region).describe_subnets()["Subnets"] if not s.get("DefaultForAz")])


def group_named(region: str, suffix: str) -> dict[str, Any]:
    return only(
        [g for g in ec2(region).describe_security_groups()["SecurityGroups"] if g["GroupName"].endswith(suffix)]
    )


def all_traffic_with(perms: list[dict[str, Any]], group_id: str) -> bool:
    return any(
        p["IpProtocol"] == "-1" and any(pair["GroupId"] == group_id for pair in p.get("UserIdGroupPairs", []))
        for p in perms
    )


def check_efa_template(region: str, data: dict[str, Any], instance_type: str, subnet_id: str, efa_sg: str) -> None:
    spec = catalogue.load().instance_types[instance_type]
    nics = sorted(data["NetworkInterfaces"], key=lambda n: n["NetworkCardIndex"])
    assert [n["NetworkCardIndex"] for n in nics] == list(range(spec.network_cards))
    assert all(n["DeviceIndex"] == 0 for n in nics)
    assert nics[0]["InterfaceType"] == "efa"
    assert {n["InterfaceType"] for n in nics[1:]} == {"efa-only"}
    assert all(efa_sg in n["Groups"] and n["SubnetId"] == subnet_id for n in nics)
    assert nics[0]["AssociatePublicIpAddress"] is False
    assert "SecurityGroupIds" not in data  # groups are set per interface
    assert data["InstanceType"] == instance_type
    assert data["MetadataOptions"]["HttpTokens"] == "required"
    assert all(b["Ebs"]["Encrypted"] for b in data["BlockDeviceMappings"])


@pytest.mark.parametrize("stack_name", ["trn2-dev", "ultraserver-prod", "p5en-train"])
def test_bundled_stack_deploys_into_moto(stack_name: str) -> None:
    stack = load_stack(str(ROOT / "stacks" / f"Pulumi.{stack_name}.yaml"))
    cluster = stack.cluster
    mocks = deploy(str(ROOT), stack_name)
    region = mocks.region
    assert region == stack.region

    subnet = our_subnet(region)
    assert subnet["AvailabilityZone"] == cluster.availability_zone
    assert subnet["MapPublicIpOnLaunch"] is False

    efa = group_named(region, "-efa")
    assert all_traffic_with(efa["IpPermissions"], efa["GroupId"])
    assert all_traffic_with(efa["IpPermissionsEgress"], efa["GroupId"])
    for g in ec2(region).describe_security_groups()["SecurityGroups"]:
        for p in g["IpPermissions"]:  # no open ingress anywhere
            assert not any(r["CidrIp"] == "0.0.0.0/0" for r in p.get("IpRanges", [])), g["GroupName"]

    lustre_sg = group_named(region, "-lustre")
    ports = {
        (p["FromPort"], p["ToPort"])
        for p in lustre_sg["IpPermissions"]
        if p["IpProtocol"] == "tcp" and any(x["GroupId"] == efa["GroupId"] for x in p["UserIdGroupPairs"])
    }
    assert ports == {(988, 988), (1018, 1023)}

    (group,) = cluster.node_groups
    template = only(ec2(region).describe_launch_templates()["LaunchTemplates"])
    data = template_data(region, template["LaunchTemplateId"])
    check_efa_template(region, data, group.instance_type, subnet["SubnetId"], efa["GroupId"])
    if group.purchase == "capacity-block":
        assert data["InstanceMarketOptions"]["MarketType"] == "capacity-block"
    else:
        assert "InstanceMarketOptions" not in data
    target = data.get("CapacityReservationSpecification", {}).get("CapacityReservationTarget", {})
    assert target.get("CapacityReservationId") == (group.capacity_reservation_ids or (None,))[0]

    asg = only(boto3.client("autoscaling", region_name=region).describe_auto_scaling_groups()["AutoScalingGroups"])
    assert (asg["MinSize"], asg["MaxSize"], asg["DesiredCapacity"]) == (group.count,) * 3
    assert asg["VPCZoneIdentifier"] == subnet["SubnetId"]
    assert asg["LaunchTemplate"]["LaunchTemplateId"] == template["LaunchTemplateId"]
    placement = mocks.of_type("aws:ec2/placementGroup:PlacementGroup")
    if cluster.placement == "cluster":
        assert only(placement).backend == "recorded"
        assert only(placement).inputs["strategy"] == "cluster"
        assert asg.get("PlacementGroup") == only(placement).id
    else:
        assert not placement and not asg.get("PlacementGroup")
    instances = [i for r in ec2(region).describe_instances()["Reservations"] for i in r["Instances"]]
    assert len(instances) == group.count
    assert all(
        not i.get("PublicIpAddress") and i["Placement"]["AvailabilityZone"] == cluster.availability_zone
        for i in instances
    )

    fs = only(boto3.client("fsx", region_name=region).describe_file_systems()["FileSystems"])
    lu = cluster.lustre
    assert fs["StorageCapacity"] == lu.storage_capacity_gib
    assert fs["SubnetIds"] == [subnet["SubnetId"]]
    # DescribeFileSystems does not return security groups: check the request moto received.
    assert only(mocks.of_type(FSX)).inputs["securityGroupIds"] == [lustre_sg["GroupId"]]
    assert only(mocks.of_type(FSX)).inputs["fileSystemTypeVersion"] == "2.15"
    assert fs["LustreConfiguration"]["DeploymentType"] == lu.deployment_type
    assert fs["LustreConfiguration"].get("PerUnitStorageThroughput") == lu.per_unit_storage_throughput
    associations = mocks.of_type("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")
    if lu.s3_import_path:  # PERSISTENT_2: an association, never an import path
        assert only(associations).inputs["dataRepositoryPath"] == lu.s3_import_path
        assert only(associations).inputs["fileSystemId"] == fs["FileSystemId"]
        assert "importPath" not in only(mocks.of_type(FSX)).inputs
    else:
        assert not associations


def test_outputs_carry_the_plan_summary_and_cost() -> None:
    stack = load_stack(str(ROOT / "stacks" / "Pulumi.trn2-dev.yaml"))
    seen: dict[str, Any] = {}

    def declare() -> None:
        c = from_config("trn2-dev", _raw_cluster("trn2-dev"), "us-east-2")
        assert isinstance(c, Trn2Cluster)
        c.summary.apply(lambda s: seen.__setitem__("summary", s))
        c.cost.apply(lambda s: seen.__setitem__("cost", s))

    run(declare, MotoMocks("us-east-2"))
    expected = plan_stack(stack)
    assert seen["summary"] == codec.dump(expected.summary)
    assert seen["cost"] == (None if expected.cost is None else expected.cost.to_json())


@pytest.mark.parametrize("suppress", [False, True], ids=["reported", "suppressed"])
def test_findings_output_is_the_json_reports_findings(suppress: bool) -> None:
    """The component's `findings` are what `planner plan --format json` gives for the same stack file,
    key for key (the document's shape: path, fix, parts, a suppression's kind and reason)."""
    import json

    import yaml

    from planner.core.reading.yaml_lines import load_path
    from tests.conftest import run_cli

    rel = "tests/invalid_stacks/Pulumi.efa-recommended.yaml"
    raw = yaml.safe_load((ROOT / rel).read_text())["config"]["planner:cluster"]
    if suppress:
        raw = dict(raw, suppress=[{"rule": "efa-recommended", "reason": "a test cluster"}])
    seen: dict[str, Any] = {}

    def declare() -> None:
        lines = load_path(str(ROOT / rel))[1]
        c = from_config("efa-recommended", raw, "us-east-2", file=rel, lines=lines)
        c.findings.apply(lambda f: seen.__setitem__("findings", f))

    run(declare, MotoMocks("us-east-2"))
    # the stack's on-demand trn2.48xlarge has no price in the book (price-unknown): the finding here is the other
    (finding,) = [f for f in seen["findings"] if f["rule"] == "efa-recommended"]
    if suppress:
        assert finding["suppressed"] and finding["suppression"] == {"kind": "inSource", "reason": "a test cluster"}
        return
    cli = json.loads(run_cli("plan", rel, "--format", "json").out)["stacks"][0]["findings"]
    assert seen["findings"] == cli
    assert finding["path"] == "planner:cluster.node_groups[0].efa" and finding["parts"] == [0] and finding["fix"]


def _raw_cluster(name: str) -> dict[str, Any]:
    import yaml

    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text())["config"]["planner:cluster"]


def test_from_config_picks_the_component_for_the_type() -> None:
    made: list[Any] = []

    def declare() -> None:
        made.append(from_config("a", _raw_cluster("ultraserver-prod"), "us-east-2"))
        made.append(from_config("b", _raw_cluster("p5en-train"), "us-east-1"))
        made.append(
            from_config(
                "c",
                {
                    "availability_zone": "us-east-1a",
                    "node_groups": [
                        {"name": "h100", "instance_type": "p5.48xlarge", "count": 2, "purchase": "capacity-block"}
                    ],
                },
                "us-east-1",
            )
        )

    run(declare, MotoMocks("us-east-1"))
    assert [type(c) for c in made] == [UltraServerCluster, P5enCluster, AcceleratedCluster]


def test_p5_gets_one_efa_interface_per_card_on_32_cards() -> None:
    def declare() -> None:
        AcceleratedCluster(
            "h100",
            ClusterArgs(
                availability_zone="us-east-1a",
                node_groups=[
                    NodeGroupArgs(
                        name="gpus",
                        instance_type="p5.48xlarge",
                        count=2,
                        purchase="capacity-block",
                        capacity_reservation_id="cr-0123456789abcdef0",
                    )
                ],
            ),
        )

    mocks = run(declare, MotoMocks("us-east-1"))
    data = template_data("us-east-1", only(mocks.of_type(LT)).id)
    assert len(data["NetworkInterfaces"]) == 32
    assert (
        data["CapacityReservationSpecification"]["CapacityReservationTarget"]["CapacityReservationId"]
        == "cr-0123456789abcdef0"
    )
    assert data["ImageId"].startswith("resolve:ssm:/aws/service/deeplearning/")


def test_existing_vpc_and_subnet_are_used_not_created() -> None:
    client = ec2("us-east-2")
    vpc = client.create_vpc(CidrBlock="10.8.0.0/16")["Vpc"]["VpcId"]
    subnet = client.create_subnet(VpcId=vpc, CidrBlock="10.8.0.0/20", AvailabilityZone="us-east-2b")["Subnet"][
        "SubnetId"
    ]
    before = len(client.describe_vpcs()["Vpcs"])

    def declare() -> None:
        Trn2Cluster(
            "dev",
            ClusterArgs(
                availability_zone="us-east-2b", subnet_id=subnet, node_groups=[NodeGroupArgs(name="trainers", count=2)]
            ),
        )

    mocks = run(declare, MotoMocks("us-east-2"))
    assert len(client.describe_vpcs()["Vpcs"]) == before
    assert not mocks.of_type("aws:ec2/subnet:Subnet")
    efa = group_named("us-east-2", "-efa")
    assert efa["VpcId"] == vpc  # found through the subnet (aws.ec2.get_subnet)
    data = template_data("us-east-2", only(mocks.of_type(LT)).id)
    assert {n["SubnetId"] for n in data["NetworkInterfaces"]} == {subnet}


def test_efa_enabled_lustre_and_scratch_import_path() -> None:
    def declare() -> None:
        Trn2Cluster(
            "efa",
            ClusterArgs(
                availability_zone="us-east-2b",
                node_groups=[NodeGroupArgs(name="t", count=2)],
                lustre=LustreArgs("PERSISTENT_2", 4800, 250, efa_enabled=True),
            ),
        )
        Trn2Cluster(
            "scratch",
            ClusterArgs(
                availability_zone="us-east-2b",
                node_groups=[NodeGroupArgs(name="t", count=2)],
                lustre=LustreArgs("SCRATCH_2", 1200, s3_import_path="s3://bucket/prefix"),
            ),
        )

    mocks = run(declare, MotoMocks("us-east-2"))
    systems = {
        s["Tags"][0]["Value"]: s
        for s in boto3.client("fsx", region_name="us-east-2").describe_file_systems()["FileSystems"]
    }
    efa_fs = systems["efa-lustre-fs"]["LustreConfiguration"]
    assert efa_fs["EfaEnabled"] is True and efa_fs["MetadataConfiguration"] == {"Mode": "AUTOMATIC"}
    assert mocks.named("efa-network-efa").id in mocks.named("efa-lustre-fs").inputs["securityGroupIds"]
    # DescribeFileSystems reports import paths elsewhere than moto keeps them: check the request.
    assert mocks.named("scratch-lustre-fs").inputs["importPath"] == "s3://bucket/prefix"
    assert systems["scratch-lustre-fs"]["LustreConfiguration"]["DeploymentType"] == "SCRATCH_2"
    assert not mocks.of_type("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")


def test_children_are_parented_and_named_after_the_component() -> None:
    mocks = run(
        lambda: Trn2Cluster(
            "dev", ClusterArgs(availability_zone="us-east-2b", node_groups=[NodeGroupArgs(name="t", count=2)])
        ),
        MotoMocks("us-east-2"),
    )
    assert all(r.name.startswith("dev") for r in mocks.resources)
    assert [r.type for r in mocks.resources if r.backend == "component"].count("planner:index:EfaNetwork") == 1


# --- invalid topologies stop before anything is registered ----------------------------------

INVALID = {
    "UltraServers on Spot": (  # p6e-gb200.36xlarge: the catalogue lists no Spot (trn2u.48xlarge lists spot)
        ClusterRejected,
        lambda: AcceleratedCluster(
            "us",
            ClusterArgs(
                availability_zone="us-east-1-dfw-2a",
                node_groups=[
                    NodeGroupArgs(
                        name="u",
                        instance_type="p6e-gb200.36xlarge",
                        ultraserver_type="u-p6e-gb200x36",
                        ultraservers=1,
                        purchase="spot",
                    )
                ],
            ),
        ),
    ),
    "unknown key in config": (
        ClusterInputError,
        lambda: from_config("x", {"availability_zone": "us-east-2b", "node_group": []}, "us-east-2"),
    ),
    "AZ outside the region": (
        ClusterInputError,
        lambda: Trn2Cluster(
            "x", ClusterArgs(availability_zone="us-west-2a", node_groups=[NodeGroupArgs(name="t", count=2)])
        ),
    ),
    "wrong type for the component": (
        ClusterInputError,
        lambda: Trn2Cluster(
            "x",
            ClusterArgs(
                availability_zone="us-east-2b",
                node_groups=[NodeGroupArgs(name="t", instance_type="p5en.48xlarge", count=2)],
            ),
        ),
    ),
    "public IP on a multi-card type": (
        pulumi.RunError,
        lambda: Trn2Cluster(
            "x",
            ClusterArgs(availability_zone="us-east-2b", node_groups=[NodeGroupArgs(name="t", count=2, public_ip=True)]),
        ),
    ),
}


INVALID_REGION = {"UltraServers on Spot": "us-east-1"}  # the Dallas Local Zone's region; the others run in us-east-2


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_topology_raises_before_any_resource(case: str) -> None:
    error, declare = INVALID[case]
    mocks = MotoMocks(INVALID_REGION.get(case, "us-east-2"))
    with pytest.raises(error) as info:
        run(declare, mocks)
    assert mocks.resources == []
    assert str(info.value)


@pytest.mark.parametrize(
    ("declare", "said"),
    [
        (
            lambda: Trn2Cluster(
                "x",
                ClusterArgs(
                    availability_zone="us-east-2b", node_groups=[NodeGroupArgs(name="t", count=2, purchase="reserved")]
                ),
            ),
            "node_groups[0].purchase: expected one of on-demand, capacity-block, spot, got 'reserved'",
        ),
        (
            lambda: Trn2Cluster(
                "x",
                ClusterArgs(
                    availability_zone="us-east-2b",
                    node_groups=[NodeGroupArgs(name="t", count=2)],
                    lustre=LustreArgs("SCRATCH_3", 1200),
                ),
            ),
            "lustre.deployment_type: expected one of SCRATCH_1, SCRATCH_2, PERSISTENT_1, PERSISTENT_2, got 'SCRATCH_3'",
        ),
    ],
)
def test_a_purchase_or_deployment_type_outside_the_literal_is_an_input_error(declare: Any, said: str) -> None:
    """The args are typed with the core's Purchase and DeploymentType (mypy catches a typo in a
    typed program); at run time the parser checks them as it checks a stack file's."""
    mocks = MotoMocks("us-east-2")
    with pytest.raises(ClusterInputError) as info:
        run(declare, mocks)
    assert mocks.resources == [] and said in str(info.value)


def test_rejected_program_creates_nothing_in_aws(tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: bad\nruntime: python\nmain: program.py\n")
    (project / "program.py").write_text((ROOT / "planner" / "pulumi_program" / "__main__.py").read_text())
    (project / "Pulumi.odd.yaml").write_text(
        "config:\n  aws:region: us-east-1\n  bad:unused: 1\n  planner:cluster:\n    availability_zone: us-east-1-dfw-2a\n"
        "    node_groups:\n      - {name: u, instance_type: p6e-gb200.36xlarge, ultraserver_type: u-p6e-gb200x36, "
        "ultraservers: 1, purchase: spot}\n"
    )
    with pytest.raises(ClusterRejected):
        deploy(str(project), "odd")
    assert [v for v in ec2("us-east-1").describe_vpcs()["Vpcs"] if not v["IsDefault"]] == []


def test_rejection_message_lists_the_findings() -> None:
    with pytest.raises(ClusterRejected) as info:
        run(INVALID["UltraServers on Spot"][1], MotoMocks(INVALID_REGION["UltraServers on Spot"]))
    assert "spot-unsupported" in str(info.value)
    assert "nothing was deployed" in str(info.value)
    assert info.value.findings[0].severity == "error"
    # the message is rendered from the one output document, which the error carries (as `plan` would write it)
    doc = info.value.report
    assert doc is not None and doc.command == "components" and doc.rule("spot-unsupported") is not None
    (stack,) = doc.stacks
    listed = [f for f in stack.findings if f.severity == "error" and not f.suppressed]
    assert info.value.findings == listed
    assert str(info.value).splitlines()[1:] == [f"  {f.where}: error [{f.rule}] {f.message}" for f in listed]
    assert codec.load(type(doc), codec.dump(doc)) == doc


def test_warnings_go_to_pulumi_log(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from planner.components import checks

    def with_warning(stack):
        plan = plan_stack(stack)
        warning = Finding("example-warning", "warning", "a warning the planner found", stack.file)
        return type(plan)(plan.stack, plan.summary, plan.findings + (warning,), plan.cost)

    monkeypatch.setattr(checks, "plan_stack", with_warning)
    with caplog.at_level(logging.WARNING):
        run(
            lambda: Trn2Cluster(
                "w", ClusterArgs(availability_zone="us-east-2b", node_groups=[NodeGroupArgs(name="t", count=2)])
            ),
            MotoMocks("us-east-2"),
        )
    assert "[example-warning] a warning the planner found" in caplog.text


def test_components_record_their_stack_for_plan_program() -> None:
    run(
        lambda: Trn2Cluster(
            "dev", ClusterArgs(availability_zone="us-east-2b", node_groups=[NodeGroupArgs(name="t", count=2)])
        ),
        MotoMocks("us-east-2"),
    )
    (stack,) = registry.declared()
    assert stack.name == "dev" and stack.cluster.node_groups[0].instance_type == "trn2.48xlarge"


def test_spot_groups_use_a_mixed_instances_policy_and_the_template_has_no_market() -> None:
    mocks = run(
        lambda: Trn2Cluster(
            "s",
            ClusterArgs(
                availability_zone="us-east-2b",
                placement_group="none",
                node_groups=[NodeGroupArgs(name="t", count=2, purchase="spot")],
            ),
        ),
        MotoMocks("us-east-2"),
    )
    asg = only(boto3.client("autoscaling", region_name="us-east-2").describe_auto_scaling_groups()["AutoScalingGroups"])
    policy = asg["MixedInstancesPolicy"]
    assert policy["InstancesDistribution"]["OnDemandPercentageAboveBaseCapacity"] == 0
    assert policy["LaunchTemplate"]["LaunchTemplateSpecification"]["LaunchTemplateId"] == only(mocks.of_type(LT)).id
    assert "InstanceMarketOptions" not in template_data("us-east-2", only(mocks.of_type(LT)).id)


def test_network_and_storage_on_their_own() -> None:
    """Used without a cluster: EfaNetwork checks its AZ, LustreStorage plans its file system."""

    def declare() -> None:
        net = EfaNetwork("shared", EfaNetworkArgs(availability_zone="us-east-2a", placement_group=True))
        LustreStorage(
            "scratch",
            LustreStorageArgs(
                lustre=LustreArgs("SCRATCH_2", 2400, availability_zone="us-east-2a"),
                subnet_id=net.subnet_id,
                security_group_ids=[net.lustre_security_group_id],
            ),
        )

    mocks = run(declare, MotoMocks("us-east-2"))
    assert our_subnet("us-east-2")["AvailabilityZone"] == "us-east-2a"
    assert only(mocks.of_type(FSX)).inputs["storageCapacity"] == 2400
    (stack,) = registry.declared()  # the file system was planned (FSx rules), as a cluster is
    assert stack.cluster.lustre.storage_capacity_gib == 2400 and stack.cluster.node_groups == ()
    assert only(mocks.of_type("aws:ec2/placementGroup:PlacementGroup")).backend == "recorded"


def test_network_and_storage_refuse_bad_input_before_registering() -> None:
    for declare in (
        lambda: EfaNetwork("n", EfaNetworkArgs(availability_zone="eu-west-1a")),
        lambda: EfaNetwork(
            "n",
            EfaNetworkArgs(availability_zone="us-east-2a", vpc_id=pulumi.Output.from_input("vpc-0123456789abcdef0")),
        ),
        lambda: Trn2Cluster(
            "c",
            ClusterArgs(
                availability_zone="us-east-2b",
                node_groups=[NodeGroupArgs(name="t", count=2)],
                vpc_id=pulumi.Output.from_input("vpc-0123456789abcdef0"),
            ),
        ),
        lambda: LustreStorage(
            "l",
            LustreStorageArgs(
                lustre=LustreArgs("SCRATCH_3", 1200, availability_zone="us-east-2a"),
                subnet_id="subnet-0123456789abcdef0",
                security_group_ids=[],
            ),
        ),
    ):
        mocks = MotoMocks("us-east-2")
        with pytest.raises(ClusterInputError):
            run(declare, mocks)
        assert mocks.resources == []


@pytest.mark.parametrize("stack_name", ["trn2-dev", "ultraserver-prod", "p5en-train"])
def test_args_round_trip_the_declared_topology(stack_name: str) -> None:
    """from_config goes mapping -> model -> ClusterArgs -> mapping: nothing added or lost."""
    from planner.core.input.stack_files import parse_cluster

    parsed = parse_cluster(_raw_cluster(stack_name), "us-east-1" if stack_name == "p5en-train" else "us-east-2")
    again = parse_cluster(
        ClusterArgs.from_model(parsed).to_config(), "us-east-1" if stack_name == "p5en-train" else "us-east-2"
    )
    assert again == parsed


def _unknown_keys(value: Any, path: str = "") -> list[str]:
    """Input keys pulumi-aws does not know: the SDK turns each known snake_case argument
    into its camelCase wire name and passes unknown ones through unchanged, so any key
    left with an underscore would only be refused by the real provider (tag maps excepted)."""
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if "_" in k:
                out.append(f"{path}.{k}")
            if k not in ("tags", "tagsAll"):
                out.extend(_unknown_keys(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_unknown_keys(v, f"{path}[{i}]"))
    return out


def test_every_nested_argument_is_one_pulumi_aws_knows() -> None:
    """Nested dicts (interfaces, market options, mixed instances policy, FSx metadata, DRA
    S3 policy) are not checked by Python; a misspelt key would pass the moto tests and only
    fail under the Pulumi CLI. Every path the components take is exercised here."""
    from planner.runtime.offline_run import OfflineMocks, run_with_mocks

    seen: list[tuple[str, str, dict[str, Any]]] = []

    class Recording(OfflineMocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
            seen.append((args.typ, args.name, dict(args.inputs)))
            return super().new_resource(args)

        def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
            seen.append((args.token, "invoke", dict(args.args)))
            return {"vpcId": "vpc-0123456789abcdef0"}

    deployment: dict[str, Any] = {
        "instance_profile": "nodes",
        "key_name": "ops",
        "user_data": "IyEvYmluL3NoCg==",
        "tags": {"team": "ml"},
        "security_group_ids": ["sg-0123456789abcdef0"],
        "image_id": "ami-0123456789abcdef0",
    }

    def declare() -> None:
        for name in ("trn2-dev", "ultraserver-prod"):
            from_config(name, _raw_cluster(name), "us-east-2", **deployment)
        Trn2Cluster(
            "spot",
            ClusterArgs(
                availability_zone="us-east-2b",
                placement_group="none",
                subnet_id="subnet-0123456789abcdef0",
                node_groups=[NodeGroupArgs(name="t", count=2, purchase="spot")],
            ),
        )
        Trn2Cluster(
            "efa",
            ClusterArgs(
                availability_zone="us-east-2b",
                node_groups=[NodeGroupArgs(name="t", count=2)],
                lustre=LustreArgs("PERSISTENT_2", 4800, 250, efa_enabled=True, s3_import_path="s3://bucket/prefix"),
            ),
        )
        Trn2Cluster(
            "scratch",
            ClusterArgs(
                availability_zone="us-east-2b",
                node_groups=[NodeGroupArgs(name="t", count=2)],
                lustre=LustreArgs("SCRATCH_2", 1200, s3_import_path="s3://bucket/prefix"),
            ),
        )

    run_with_mocks(declare, Recording(), {"aws:region": "us-east-2"})
    kinds = {t for t, _, _ in seen}
    assert {
        LT,
        FSX,
        "aws:autoscaling/group:Group",
        "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation",
        "aws:ec2/getSubnet:getSubnet",
    } <= kinds
    templates = [i for t, _, i in seen if t == LT]
    assert any(
        "iamInstanceProfile" in i and "capacityReservationSpecification" in i and "instanceMarketOptions" in i
        for i in templates
    )
    assert any("mixedInstancesPolicy" in i for t, _, i in seen if t == "aws:autoscaling/group:Group")
    bad = {f"{t} {n}{key}" for t, n, i in seen if t.startswith("aws:") for key in _unknown_keys(i)}
    assert not bad, sorted(bad)


def test_one_ena_interface_gets_its_public_ip_and_scratch_1_its_import_path() -> None:
    """AssociatePublicIpAddress: "You cannot specify more than one network interface in the
    request": a node group without EFA launches with one interface, so its public IP goes
    through, even on a 16-card type. SCRATCH_1 takes ImportPath (CreateFileSystemLustreConfiguration:
    only Persistent_2 refuses it)."""

    def declare() -> None:
        Trn2Cluster(
            "edge",
            ClusterArgs(
                availability_zone="us-east-2b",
                node_groups=[NodeGroupArgs(name="bastion", count=1, efa=False, public_ip=True)],
                lustre=LustreArgs("SCRATCH_1", 2400, s3_import_path="s3://bucket/prefix"),
            ),
        )

    mocks = run(declare, MotoMocks("us-east-2"))
    (nic,) = template_data("us-east-2", only(mocks.of_type(LT)).id)["NetworkInterfaces"]
    assert nic["AssociatePublicIpAddress"] in (True, "true") and "InterfaceType" not in nic
    assert mocks.named("edge-lustre-fs").inputs["importPath"] == "s3://bucket/prefix"
    assert not mocks.of_type("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")


def _root_volume(region: str, template_id: str) -> dict[str, Any]:
    (mapping,) = template_data(region, template_id)["BlockDeviceMappings"]
    return mapping


@pytest.mark.parametrize("how", ["args", "config"])
def test_root_volume_size_comes_from_the_cluster_and_is_priced(how: str) -> None:
    """`root_volume_gib` is topology: a ClusterArgs argument or a `planner:cluster` key, the size of
    each instance's gp3 root volume in the launch template, and a line item of the component's cost."""
    seen: dict[str, Any] = {}
    cluster = {
        "availability_zone": "us-east-2b",
        "placement_group": "none",
        "schedule": {"hours": 48},
        "node_groups": [{"name": "t", "instance_type": "trn2.48xlarge", "count": 2, "purchase": "spot"}],
    }

    def declare() -> None:
        if how == "args":
            c = Trn2Cluster(
                "r",
                ClusterArgs(
                    availability_zone="us-east-2b",
                    placement_group="none",
                    schedule_hours=48,
                    node_groups=[NodeGroupArgs(name="t", count=2, purchase="spot")],
                    root_volume_gib=1000,
                ),
            )
        else:
            c = from_config("r", {**cluster, "root_volume_gib": 1000}, "us-east-2")
        c.cost.apply(lambda s: seen.__setitem__("cost", s))

    mocks = run(declare, MotoMocks("us-east-2"))
    mapping = _root_volume("us-east-2", only(mocks.of_type(LT)).id)
    assert mapping["DeviceName"] == "/dev/sda1"
    assert (mapping["Ebs"]["VolumeSize"], mapping["Ebs"]["VolumeType"]) == (1000, "gp3")
    (roots,) = [i for i in seen["cost"]["line_items"] if i["name"] == "t root volumes"]
    assert (roots["gib_per_instance"], roots["instances"], roots["volume_type"]) == (1000, 2, "gp3")
    assert roots["quantity"] == round(2 * 1000 * 48 / 730, 4)


def test_root_volume_defaults_to_500_gib_and_rejects_sizes_gp3_has_not() -> None:
    mocks = run(
        lambda: Trn2Cluster(
            "d",
            ClusterArgs(
                availability_zone="us-east-2b",
                placement_group="none",
                node_groups=[NodeGroupArgs(name="t", count=1, purchase="spot")],
            ),
        ),
        MotoMocks("us-east-2"),
    )
    assert _root_volume("us-east-2", only(mocks.of_type(LT)).id)["Ebs"]["VolumeSize"] == 500
    with pytest.raises(ClusterInputError) as err:
        run(
            lambda: from_config(
                "d",
                {
                    "availability_zone": "us-east-2b",
                    "root_volume_gib": 16385,
                    "node_groups": [{"name": "t", "instance_type": "trn2.48xlarge", "count": 1}],
                },
                "us-east-2",
            ),
            MotoMocks("us-east-2"),
        )
    assert "root_volume_gib: expected 1 to 16384 GiB (a gp3 volume), got 16385" in str(err.value)


def _with_system_group(**deployment: Any) -> ClusterArgs:
    return ClusterArgs(
        availability_zone="us-east-2b",
        placement_group="none",
        node_groups=[
            NodeGroupArgs(name="gpu", instance_type="p5en.48xlarge", count=2, purchase="spot"),
            NodeGroupArgs(name="system", instance_type="m7i.4xlarge", count=1, purchase="on-demand"),
        ],
        **deployment,
    )


def test_a_node_group_without_accelerators_is_built_on_the_given_image_and_root_device() -> None:
    """A system node group (m7i) has no Deep Learning AMI: with `image_id` (and the AMI's root device)
    the component builds it, maps the root volume on that device and prices the group."""
    seen: dict[str, Any] = {}

    def declare() -> None:
        c = AcceleratedCluster(
            "sys", _with_system_group(image_id="ami-0123456789abcdef0", root_device_name="/dev/xvda")
        )
        c.cost.apply(lambda s: seen.__setitem__("cost", s))

    mocks = run(declare, MotoMocks("us-east-2"))
    templates = [template_data("us-east-2", t.id) for t in mocks.of_type(LT)]
    assert sorted(t["InstanceType"] for t in templates) == ["m7i.4xlarge", "p5en.48xlarge"]
    for t in templates:
        assert t["ImageId"] == "ami-0123456789abcdef0"
        assert only(t["BlockDeviceMappings"])["DeviceName"] == "/dev/xvda"
    priced = {i["name"]: i["unit_price_usd"] for i in seen["cost"]["line_items"]}
    assert priced["system"] is not None and priced["system root volumes"] is not None  # m7i on demand, gp3


def test_a_node_group_without_accelerators_needs_an_image() -> None:
    with pytest.raises(ClusterInputError) as err:
        run(lambda: AcceleratedCluster("sys", _with_system_group()), MotoMocks("us-east-2"))
    said = str(err.value)
    assert "image_id" in said and "m7i.4xlarge (node group 'system') has no NVIDIA GPU or Neuron device" in said


def test_root_device_name_is_checked_before_any_resource() -> None:
    with pytest.raises(ClusterInputError) as err:
        run(
            lambda: AcceleratedCluster("sys", _with_system_group(image_id="ami-1", root_device_name="sda1")),
            MotoMocks("us-east-2"),
        )
    assert "root_device_name" in str(err.value) and "/dev/xvda" in str(err.value)
