"""UltraServer Capacity Blocks: how a trn2u group names where it launches, and what gets built.

What AWS documents, quoted where each test rests on it:

- DescribeCapacityBlockOfferings (AWS CLI reference): "With Capacity Blocks, you can purchase a
  specific GPU instance type or EC2 UltraServer for a period of time." Request `UltraserverCount`:
  "The number of EC2 UltraServers in the offerings." InstanceCount: "Each Capacity Block can have up
  to 64 instances, and you can have up to 256 instances across Capacity Blocks."
  https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityBlockOfferings.html
- CapacityBlock: `capacityBlockId` "The ID of the Capacity Block."; `capacityReservationIdSet`
  "The ID of the Capacity Reservation." (a list). https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityBlock.html
- CapacityReservationTarget: "Describes a target Capacity Reservation or Capacity Reservation
  group." https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityReservationTarget.html
- "To add instance Capacity Blocks to a Capacity Reservation Resource Group, see Capacity Reservation
  Resource Groups." https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/cb-group.html (read 2026-12-05;
  older copies said "You can't add instance Capacity Blocks to a resource group.")

Not documented anywhere found: whether an N-UltraServer block has one reservation per UltraServer,
per block or per instance. planner accepts one id for the whole block or one per UltraServer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner.core import rules
from planner.core.input.stack_files import load_stack, parse_cluster
from planner.core.planning.pipeline import plan_stack
from planner.core.reading.problems import InputError
from planner.policy.testing import capture, check, stack_args
from tests.conftest import fix_words, no_plan, run_cli

IDS = ["cr-0123456789abcdef0", "cr-0123456789abcdef1", "cr-0123456789abcdef2", "cr-0123456789abcdef3"]
ARN = "arn:aws:resource-groups:us-east-2:123456789012:group/ultra-blocks"
P2 = {"deployment_type": "PERSISTENT_2", "storage_capacity_gib": 2400, "per_unit_storage_throughput": 250}


def ultra(ultraservers: int = 4, **group: Any) -> dict[str, Any]:
    """A `planner:cluster` mapping: one trn2u.48xlarge Capacity Block group and its file system."""
    g = {
        "name": "ultra",
        "instance_type": "trn2u.48xlarge",
        "ultraservers": ultraservers,
        "purchase": "capacity-block",
        **group,
    }
    return {
        "availability_zone": "us-east-2b",
        "node_groups": [g],
        "placement_group": "none",
        "lustre": P2,
        "schedule": {"hours": 336},
    }


def problems(data: dict[str, Any], region: str = "us-east-2") -> list[str]:
    with pytest.raises(InputError) as err:
        parse_cluster(data, region, "Pulumi.x.yaml")
    return [f"{p.key}: {p.message}" for p in err.value.problems]


# --- the parser ----------------------------------------------------------------------------


def test_one_id_a_list_of_ids_or_a_resource_group_are_read() -> None:
    (one,) = parse_cluster(ultra(capacity_reservation_id=IDS[0]), "us-east-2").node_groups
    assert one.capacity_reservation_ids == (IDS[0],) and one.capacity_reservation_resource_group_arn is None
    (many,) = parse_cluster(ultra(capacity_reservation_id=IDS), "us-east-2").node_groups
    assert many.capacity_reservation_ids == tuple(IDS)
    (group,) = parse_cluster(ultra(capacity_reservation_resource_group_arn=ARN), "us-east-2").node_groups
    assert group.capacity_reservation_ids == () and group.capacity_reservation_resource_group_arn == ARN
    assert one.launch_target and many.launch_target and group.launch_target


@pytest.mark.parametrize(
    "group,expected",
    [
        (
            {"capacity_reservation_id": []},
            "capacity_reservation_id: expected a capacity reservation id such as "
            "cr-0123456789abcdef0, or a non-empty list of them, got an empty list",
        ),
        (
            {"capacity_reservation_id": [IDS[0], "cr-x"]},
            "capacity_reservation_id[1]: expected a capacity reservation id such as cr-0123456789abcdef0, got 'cr-x'",
        ),
        (
            {"capacity_reservation_id": [IDS[0], IDS[0]]},
            f"capacity_reservation_id[1]: repeats '{IDS[0]}' (also [0]); expected each value once",
        ),
        (
            {"capacity_reservation_resource_group_arn": "arn:aws:resource-groups:us-east-2:1234:group/x"},
            "capacity_reservation_resource_group_arn: expected a resource group ARN such as "
            "arn:aws:resource-groups:us-east-2:123456789012:group/NAME, got 'arn:aws:resource-grou...'",
        ),
        (
            {"capacity_reservation_resource_group_arn": ARN.replace("us-east-2", "us-west-2")},
            "capacity_reservation_resource_group_arn: expected a resource group in the stack's region us-east-2, got one in us-west-2",
        ),
        (
            {"capacity_reservation_id": IDS[0], "capacity_reservation_resource_group_arn": ARN},
            "capacity_reservation_resource_group_arn: give either 'capacity_reservation_id' or "
            "'capacity_reservation_resource_group_arn', not both (a launch targets one or the other)",
        ),
    ],
)
def test_bad_launch_targets_are_one_line_problems(group: dict[str, Any], expected: str) -> None:
    assert problems(ultra(**group)) == [f"planner:cluster.node_groups[0].{expected}"]


def test_cli_exit_2_names_file_key_and_expected(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(
        "config:\n  aws:region: us-east-2\n  planner:cluster:\n    availability_zone: us-east-2b\n"
        "    node_groups:\n      - {name: u, instance_type: trn2u.48xlarge, ultraservers: 1, purchase: capacity-block,\n"
        "         capacity_reservation_resource_group_arn: 'arn:aws:resource-groups:eu-west-1:123456789012:group/b'}\n",
        encoding="utf-8",
    )
    res = run_cli("plan", str(path))
    assert res.code == 2 and no_plan(res.out)
    (line,) = res.err.strip().splitlines()
    assert str(path) in line and "node_groups[0].capacity_reservation_resource_group_arn" in line
    assert "expected a resource group in the stack's region us-east-2, got one in eu-west-1" in line


def test_the_editor_schema_takes_one_id_or_a_list() -> None:
    import jsonschema

    from planner.core.input import json_schema as schema

    def valid(group: dict[str, Any]) -> bool:
        doc = {"config": {"aws:region": "us-east-2", "planner:cluster": ultra(**group)}}
        return not list(jsonschema.Draft7Validator(schema.build()).iter_errors(doc))

    assert valid({"capacity_reservation_id": IDS[0]}) and valid({"capacity_reservation_id": IDS})
    assert valid({"capacity_reservation_resource_group_arn": ARN})
    assert not valid({"capacity_reservation_id": []}) and not valid({"capacity_reservation_id": [IDS[0], IDS[0]]})
    assert not valid({"capacity_reservation_id": IDS[0], "capacity_reservation_resource_group_arn": ARN})


# --- the rules -----------------------------------------------------------------------------


def plan(data: dict[str, Any], tmp_path: Path, region: str = "us-east-2") -> Any:
    import yaml

    path = tmp_path / "Pulumi.t.yaml"
    path.write_text(yaml.safe_dump({"config": {"aws:region": region, "planner:cluster": data}}), encoding="utf-8")
    return plan_stack(load_stack(str(path)))


def by_rule(p: Any, rule_id: str) -> list[Any]:
    return [f for f in p.findings if f.rule == rule_id]


def test_one_id_per_ultraserver_or_one_for_the_block(tmp_path: Path) -> None:
    """CapacityBlock.capacityReservationIdSet, "The ID of the Capacity Reservation.", is a list: how many
    an N-UltraServer block has is not documented, so one id for the block or one per UltraServer pass."""
    assert rules.get("capacity-block-reservation-count").source == (
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityBlock.html"
    )
    for ids in (IDS[:1], IDS):
        p = plan(ultra(capacity_reservation_id=ids), tmp_path)
        assert [f for f in p.findings if f.severity == "error"] == [], ids
    (hit,) = by_rule(plan(ultra(capacity_reservation_id=IDS[:3]), tmp_path), "capacity-block-reservation-count")
    assert hit.severity == "warning"  # AWS documents no count
    assert hit.message == (
        "node group 'ultra' names 3 capacity reservations for 4 UltraServers: planner targets one id for the "
        "whole block or one per UltraServer (4), so its launch template targets none of these; AWS does not "
        "document how many reservations an UltraServer Capacity Block has (its CapacityBlock lists them: "
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityBlock.html)"
    )
    assert fix_words(hit) == (
        "give node group 'ultra' 4 reservation ids, one per UltraServer (1 more), or in node group 'ultra', set "
        "capacity_reservation_id: cr-0123456789abcdef0 (a single id for the whole block)"
    )
    (more,) = by_rule(plan(ultra(2, capacity_reservation_id=IDS[:3]), tmp_path), "capacity-block-reservation-count")
    assert fix_words(more) == (
        "in node group 'ultra', set capacity_reservation_id: [cr-0123456789abcdef0, cr-0123456789abcdef1], or set "
        "ultraservers: 3 (if you booked that many), or set capacity_reservation_id: cr-0123456789abcdef0 (a single "
        "id for the whole block) (one per UltraServer, 1 fewer)"
    )


def test_a_list_on_an_instance_block_is_an_error(tmp_path: Path) -> None:
    """ "Describes a target Capacity Reservation or Capacity Reservation group": one launch template, one target."""
    r = rules.get("capacity-reservation-list")
    assert r.source == "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityReservationTarget.html"
    data = {
        "availability_zone": "us-east-2b",
        "placement_group": "none",
        "node_groups": [
            {
                "name": "gpus",
                "instance_type": "p5en.48xlarge",
                "count": 16,
                "purchase": "capacity-block",
                "capacity_reservation_id": IDS[:2],
            }
        ],
    }
    (hit,) = by_rule(plan(data, tmp_path), "capacity-reservation-list")
    assert hit.severity == "error"
    assert (
        "names 2 capacity reservations, but it is not an UltraServer type: its launch template targets one reservation"
        in hit.message
    )
    assert fix_words(hit) == (
        f"in node group 'gpus', set capacity_reservation_id: {IDS[0]} (and declare one node group per other "
        f"reservation ({IDS[1]}))"
    )
    data["node_groups"][0]["capacity_reservation_id"] = IDS[:1]  # a list of one is one id
    assert by_rule(plan(data, tmp_path), "capacity-reservation-list") == []


def test_a_resource_group_may_hold_instance_capacity_blocks_too(tmp_path: Path) -> None:
    """AWS's Capacity Reservation Resource Groups page: "A group supports all reservation types, including
    On-Demand Capacity Reservations, interruptible Capacity Reservations, and Capacity Blocks for ML", and
    its UltraServer page (cb-group.html): "To add instance Capacity Blocks to a Capacity Reservation Resource
    Group, see Capacity Reservation Resource Groups." (read 2026-12-05; older copies said the opposite, and
    planner's rule on it, `capacity-block-resource-group`, is retired). An instance Capacity Block group
    launched into a resource group draws no finding about the group."""
    assert rules.get("capacity-block-resource-group") is None
    data = {
        "availability_zone": "us-east-2b",
        "placement_group": "none",
        "node_groups": [
            {
                "name": "gpus",
                "instance_type": "p5en.48xlarge",
                "count": 16,
                "purchase": "capacity-block",
                "capacity_reservation_resource_group_arn": ARN,
            }
        ],
    }
    assert [f.rule for f in plan(data, tmp_path).findings if f.severity == "error"] == []
    assert by_rule(plan(data, tmp_path), "capacity-block-reservation") == []  # the group is its launch target
    # the reservation warning takes the group (or a list) as the launch target
    assert (
        by_rule(plan(ultra(capacity_reservation_resource_group_arn=ARN), tmp_path), "capacity-block-reservation") == []
    )
    assert by_rule(plan(ultra(capacity_reservation_id=IDS), tmp_path), "capacity-block-reservation") == []
    assert len(by_rule(plan(ultra(), tmp_path), "capacity-block-reservation")) == 1


def test_ultraserver_groups_are_one_block_per_ultraserver(tmp_path: Path) -> None:
    """EC2 User Guide: "Each Capacity Block can have up to 64 instances, and you can have up to 256 instances
    across Capacity Blocks" is said of instance blocks; UltraServers are reserved one UltraServer per Capacity
    Block (CapacityBlock API: `ultraserverType`), so neither limit splits an UltraServer group."""
    assert by_rule(plan(ultra(20, capacity_reservation_id=IDS[0]), tmp_path), "capacity-block-size") == []
    data = ultra(16, capacity_reservation_id=IDS[0])
    data["node_groups"] = [dict(data["node_groups"][0], name=f"u{i}") for i in range(5)]
    assert by_rule(plan(data, tmp_path), "capacity-block-size") == []


def test_spot_with_a_resource_group_is_named(tmp_path: Path) -> None:
    data = {
        "availability_zone": "us-east-2b",
        "node_groups": [
            {
                "name": "s",
                "instance_type": "trn2.48xlarge",
                "count": 1,
                "purchase": "spot",
                "capacity_reservation_resource_group_arn": ARN,
            }
        ],
    }
    (hit,) = by_rule(plan(data, tmp_path), "spot-capacity-reservation")
    assert f"targets capacity reservation resource group {ARN}" in hit.message


# --- the components and their read-back -------------------------------------------------------


# every test here reads a program's resources, with no stack config of its own
pytestmark = pytest.mark.usefixtures("no_stack_config")


def build(data: dict[str, Any]) -> Any:
    from planner import components

    return capture(
        lambda: components.from_config("prod", data, "us-east-2"), config={"aws:region": "us-east-2"}, stack="t"
    )


def of_type(specs: Any, type_: str) -> list[Any]:
    return sorted((s for s in specs if s.type == type_), key=lambda s: s.name)


LT, ASG = "aws:ec2/launchTemplate:LaunchTemplate", "aws:autoscaling/group:Group"


def target(spec: Any) -> dict[str, Any]:
    return spec.props["capacityReservationSpecification"]["capacityReservationTarget"]


def test_one_launch_template_and_group_per_ultraserver() -> None:
    specs = build(ultra(capacity_reservation_id=IDS))
    lts, asgs = of_type(specs, LT), of_type(specs, ASG)
    assert [s.name for s in lts] == [s.name for s in asgs] == [f"prod-ultra-us{k}" for k in range(1, 5)]
    assert [target(s) for s in lts] == [{"capacityReservationId": rid} for rid in IDS]
    assert all((a.props["minSize"], a.props["maxSize"], a.props["desiredCapacity"]) == (4, 4, 4) for a in asgs)
    # children of the component: a child's URN carries its parent's type
    assert all("planner:index:UltraServerCluster$" in s.urn for s in lts + asgs), [s.urn for s in lts]
    tags = [{t["key"]: t["value"] for t in a.props["tags"]} for a in asgs]
    assert [(t["planner:node-group"], t["planner:ultraserver"]) for t in tags] == [
        ("ultra", str(k)) for k in range(1, 5)
    ]


def test_outputs_list_every_ultraserver_in_moto() -> None:
    """Deployed into moto: four templates, each targeting its UltraServer's reservation, four groups
    of four instances, and the component's outputs naming them all."""
    import boto3
    from moto import mock_aws

    from planner import components
    from planner.testing import MotoMocks, run

    made: list[Any] = []
    with mock_aws():
        run(
            lambda: made.append(components.from_config("prod", ultra(capacity_reservation_id=IDS), "us-east-2")),
            MotoMocks("us-east-2"),
        )
        client = boto3.client("ec2", region_name="us-east-2")
        targets = {}
        for t in client.describe_launch_templates()["LaunchTemplates"]:
            (v,) = client.describe_launch_template_versions(LaunchTemplateId=t["LaunchTemplateId"])[
                "LaunchTemplateVersions"
            ]
            targets[t["LaunchTemplateName"]] = v["LaunchTemplateData"]["CapacityReservationSpecification"][
                "CapacityReservationTarget"
            ]["CapacityReservationId"]
        asgs = boto3.client("autoscaling", region_name="us-east-2").describe_auto_scaling_groups()["AutoScalingGroups"]
    assert sorted(targets.values()) == IDS and len(targets) == 4
    assert sorted(a["DesiredCapacity"] for a in asgs) == [4, 4, 4, 4]
    (cluster,) = made
    keys = [f"ultra-us{k}" for k in range(1, 5)]
    assert sorted(cluster.launch_template_ids) == sorted(cluster.auto_scaling_group_names) == keys


def test_one_id_or_a_resource_group_keep_one_launch_template() -> None:
    specs = build(ultra(capacity_reservation_id=IDS[0]))
    (lt,), (asg,) = of_type(specs, LT), of_type(specs, ASG)
    assert lt.name == asg.name == "prod-ultra" and target(lt) == {"capacityReservationId": IDS[0]}
    assert asg.props["desiredCapacity"] == 16
    specs = build(ultra(capacity_reservation_resource_group_arn=ARN))
    (lt,) = of_type(specs, LT)
    assert target(lt) == {"capacityReservationResourceGroupArn": ARN}


@pytest.mark.parametrize(
    "group",
    [
        {"capacity_reservation_id": IDS},
        {"capacity_reservation_resource_group_arn": ARN},
        {"capacity_reservation_id": IDS[0]},
    ],
)
def test_the_read_back_is_the_declared_cluster(group: dict[str, Any]) -> None:
    """Config -> components -> resources -> the pack's read-back: one node group again (the
    per-UltraServer Auto Scaling groups joined by their planner tags), no gap, and no finding
    `planner plan` does not report for the config."""
    from planner.readback.resources import Graph, from_policy
    from planner.readback.topology import rebuild

    declared = ultra(**group)
    specs = build(declared)
    rebuilt = rebuild(Graph(from_policy(r) for r in stack_args(specs, region="us-east-2").resources))
    assert rebuilt.gaps == []
    (back,) = parse_cluster(rebuilt.data, "us-east-2").node_groups
    (want,) = parse_cluster(declared, "us-east-2").node_groups
    assert (
        back.instance_type,
        back.count,
        back.purchase,
        back.capacity_reservation_ids,
        back.capacity_reservation_resource_group_arn,
    ) == (
        want.instance_type,
        want.count,
        want.purchase,
        want.capacity_reservation_ids,
        want.capacity_reservation_resource_group_arn,
    )
    assert back.name == "prod-ultra"
    reported = check(specs, region="us-east-2")
    assert [r for r in reported if r.enforcement == "mandatory"] == []
    pack_rules = {r.message[1:].split("]")[0] for r in reported if r.message.startswith("[")}
    cli_rules = {f.rule for f in plan_stack(load_stack_from(declared)).findings}
    assert pack_rules <= cli_rules


def load_stack_from(data: dict[str, Any]) -> Any:
    import tempfile

    import yaml

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "Pulumi.t.yaml"
        path.write_text(
            yaml.safe_dump({"config": {"aws:region": "us-east-2", "planner:cluster": data}}), encoding="utf-8"
        )
        return load_stack(str(path))


def test_per_ultraserver_groups_that_differ_stay_apart() -> None:
    """Hand-edited after the fact (one UltraServer's group on another type): not one node group."""
    import copy

    from planner.readback.resources import Graph, from_policy
    from planner.readback.topology import rebuild

    specs = copy.deepcopy(build(ultra(2, capacity_reservation_id=IDS[:2])))
    lt = next(s for s in specs if s.type == LT and s.name.endswith("-us2"))
    lt.props["instanceType"] = "trn2.48xlarge"
    rebuilt = rebuild(Graph(from_policy(r) for r in stack_args(specs, region="us-east-2").resources))
    assert sorted((g["instance_type"], g["count"]) for g in rebuilt.data["node_groups"]) == [
        ("trn2.48xlarge", 4),
        ("trn2u.48xlarge", 4),
    ]


def test_cost_is_the_same_whatever_the_launch_target(tmp_path: Path) -> None:
    """The launch target changes nothing in the estimate: the same UltraServer-hours."""
    costs = set()
    for group in (
        {"capacity_reservation_id": IDS[0]},
        {"capacity_reservation_id": IDS},
        {"capacity_reservation_resource_group_arn": ARN},
    ):
        p = plan(ultra(**group), tmp_path)
        assert p.cost is not None
        costs.add(json.dumps(p.cost.to_json(), sort_keys=True))
    assert len(costs) == 1


def test_a_hand_written_template_with_a_resource_group_is_read_back() -> None:
    """`capacityReservationResourceGroupArn` of a launch template is read back; one that is no ARN is a gap."""
    import pulumi_aws as aws

    from planner.readback.resources import Graph, from_policy
    from planner.readback.topology import rebuild

    def program(arn: str) -> Any:
        def run() -> None:
            subnet = aws.ec2.Subnet(
                "s", vpc_id="vpc-0123456789abcdef0", cidr_block="10.0.1.0/24", availability_zone="us-east-2b"
            )
            lt = aws.ec2.LaunchTemplate(
                "u",
                instance_type="trn2u.48xlarge",
                image_id="ami-0123456789abcdef0",
                instance_market_options={"market_type": "capacity-block"},
                capacity_reservation_specification={
                    "capacity_reservation_target": {"capacity_reservation_resource_group_arn": arn}
                },
            )
            aws.autoscaling.Group(
                "u",
                desired_capacity=8,
                max_size=8,
                min_size=8,
                vpc_zone_identifiers=[subnet.id],
                launch_template={"id": lt.id, "version": "$Latest"},
            )

        return run

    specs = capture(program(ARN), config={"aws:region": "us-east-2"})
    rebuilt = rebuild(Graph(from_policy(r) for r in stack_args(specs, region="us-east-2").resources))
    (group,) = rebuilt.data["node_groups"]
    assert group["capacity_reservation_resource_group_arn"] == ARN and group["purchase"] == "capacity-block"
    specs = capture(program("my-blocks"), config={"aws:region": "us-east-2"})
    rebuilt = rebuild(Graph(from_policy(r) for r in stack_args(specs, region="us-east-2").resources))
    assert "capacity_reservation_resource_group_arn" not in rebuilt.data["node_groups"][0]
    assert [g.message for g in rebuilt.gaps] == [
        "'u' targets capacity reservation resource group 'my-blocks', which is not a resource group ARN: the launch "
        "would fail; planned without it"
    ]


def test_the_component_package_takes_a_typed_list_of_ids() -> None:
    """Other languages pass `capacityReservationIds` (a typed list); it is the stack schema's list."""
    from planner.components import ClusterInputError
    from planner.provider.components import cluster_args

    group = {"name": "ultra", "instance_type": "trn2u.48xlarge", "ultraservers": 4, "purchase": "capacity-block"}
    args = cluster_args({"availability_zone": "us-east-2b", "node_groups": [dict(group, capacity_reservation_ids=IDS)]})
    assert args.to_config()["node_groups"][0]["capacity_reservation_id"] == IDS
    with pytest.raises(
        ClusterInputError, match="give either capacity_reservation_id or capacity_reservation_ids, not both"
    ):
        cluster_args(
            {
                "availability_zone": "us-east-2b",
                "node_groups": [dict(group, capacity_reservation_ids=IDS, capacity_reservation_id=IDS[0])],
            }
        )


def test_a_group_named_like_an_ultraserver_of_another_is_refused() -> None:
    from planner.components import ClusterInputError

    data = ultra(2, capacity_reservation_id=IDS[:2])
    data["node_groups"].append(
        {
            "name": "ultra-us2",
            "instance_type": "trn2u.48xlarge",
            "ultraservers": 1,
            "purchase": "capacity-block",
            "capacity_reservation_id": IDS[3],
        }
    )
    with pytest.raises(
        ClusterInputError, match="node groups 'ultra' and 'ultra-us2' would both build 'ultra-us2' resources"
    ):
        build(data)
