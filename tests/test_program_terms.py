"""Fixes of read-back clusters in the program's terms: the resource as declared, the property that holds the value."""

from __future__ import annotations

import json

from planner.readback.program_terms import declared_as, in_python, python_class, restate
from tests.conftest import run_cli

ASG = "urn:pulumi:dev::sample::aws:autoscaling/group:Group::trainers"
LT = "urn:pulumi:dev::sample::aws:ec2/launchTemplate:LaunchTemplate::gpu"
NG = "urn:pulumi:dev::sample::aws:eks/nodeGroup:NodeGroup::cbr"


def test_the_resource_is_named_as_the_program_declares_it() -> None:
    assert python_class("aws:ec2/launchTemplate:LaunchTemplate") == "aws.ec2.LaunchTemplate"
    assert declared_as(LT, ("app.py", 12)) == 'aws.ec2.LaunchTemplate "gpu" (app.py:12)'
    parent = "urn:pulumi:dev::sample::my:Cluster$aws:ec2/launchTemplate:LaunchTemplate::gpu"
    assert declared_as(parent) == 'aws.ec2.LaunchTemplate "gpu"'


def test_keys_become_the_resources_properties() -> None:
    count = ("config", "planner:cluster", "node_groups", 0, "count")
    assert restate("in node group 'trainers', set count: 8 (or ultraservers: 2)", count, ASG, ("app.py", 8)) == (
        'in `desired_capacity` of aws.autoscaling.Group "trainers" (app.py:8): set desired_capacity: 8'
    )
    assert (
        restate("set count: 4", count, NG)
        == 'in `scaling_config.desired_size` of aws.eks.NodeGroup "cbr": set scaling_config.desired_size: 4'
    )
    efa = ("config", "planner:cluster", "node_groups", 0, "efa")
    assert restate("in node group 'g', remove efa: false (EFA is on by default)", efa, LT) == (
        'in `network_interfaces[].interface_type` of aws.ec2.LaunchTemplate "gpu": set '
        '`network_interfaces[].interface_type` to "efa" on every network card (EFA is on by default)'
    )
    purchase = ("config", "planner:cluster", "node_groups", 0, "purchase")
    assert 'set `capacity_type` to "CAPACITY_BLOCK"' in restate("set purchase: capacity-block", purchase, NG)
    assert restate("set instance_type: p5.48xlarge", purchase, NG).endswith("set instance_types: p5.48xlarge")


def test_a_pcs_compute_node_group_is_named_with_its_own_properties() -> None:
    """pulumi-aws-native's `aws_native.pcs.ComputeNodeGroup` (a PCS group's count is its static instances, its
    purchase its purchaseOption, its reservation its launch template's)."""
    pcs = "urn:pulumi:dev::sample::aws-native:pcs:ComputeNodeGroup::gpu"
    assert python_class("aws-native:pcs:ComputeNodeGroup") == "aws_native.pcs.ComputeNodeGroup"
    count = ("config", "planner:cluster", "node_groups", 0, "count")
    assert restate("set count: 2", count, pcs) == (
        'in `scaling_configuration.min_instance_count` of aws_native.pcs.ComputeNodeGroup "gpu": '
        "set scaling_configuration.min_instance_count: 2"
    )
    purchase = ("config", "planner:cluster", "node_groups", 0, "purchase")
    assert restate("set purchase: on-demand", purchase, pcs).endswith('set `purchase_option` to "ONDEMAND"')
    assert 'set `purchase_option` to "CAPACITY_BLOCK" (and its launch template' in restate(
        "set purchase: capacity-block", purchase, pcs
    )
    reservation = "set capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id of its "
    assert reservation + "launch template: cr-..." in restate(
        "book the block, then set capacity_reservation_id: cr-...", purchase, pcs
    )


def test_engine_property_names_become_the_programs_python_names() -> None:
    """The read-back rules speak the engine's camelCase inputs; the program writes pulumi_aws's Python names."""
    efa = ("config", "planner:cluster", "node_groups", 0, "efa")
    fixed = restate(
        "add 8 network interface(s) with interfaceType 'efa-only' (or 'efa'), one on each networkCardIndex 8-15",
        efa,
        LT,
        ("app.py", 20),
    )
    assert fixed == (
        'in `network_interfaces[].interface_type` of aws.ec2.LaunchTemplate "gpu" (app.py:20): add 8 network '
        "interface(s) with interface_type 'efa-only' (or 'efa'), one on each network_card_index 8-15"
    )
    assert "interfaceType" not in restate("set interfaceType: 'efa' on networkCardIndex 0, deviceIndex 0", efa, LT)


def test_plan_program_gives_fixes_in_the_programs_terms() -> None:
    res = run_cli("plan", "--program", "tests/corpus/eks-mixed-instances-efa", "--stack", "test", "--format", "json")
    fixes = [
        f
        for s in json.loads(res.out)["stacks"]
        for f in s["findings"]
        if f.get("fix") and f["rule"] == "placement-group"
    ]
    (f,) = fixes
    assert f["fix"].startswith(
        'in `placement_group` of aws.autoscaling.Group "node-group" '
        "(tests/corpus/eks-mixed-instances-efa/__main__.py:36): launch into a cluster placement group"
    )
    assert "placement_group: none" not in f["fix"]


INTERFACES_OUT_OF_ORDER = """
import pulumi_aws as aws
subnet = aws.ec2.Subnet("private", vpc_id="vpc-0123456789abcdef0", cidr_block="10.0.1.0/24", availability_zone="us-east-2b")
cards = [1, 2, 3, 4, 5, 6, 7, 0]  # the primary (card 0) is declared last, as efa-only
lt = aws.ec2.LaunchTemplate("trainers", instance_type="p5.48xlarge", image_id="ami-0123456789abcdef0",
    metadata_options={"http_tokens": "required"},
    network_interfaces=[{"network_card_index": c, "device_index": 0 if c == 0 else 1,
                         "interface_type": "efa-only", "subnet_id": subnet.id} for c in cards])
aws.autoscaling.Group("trainers", desired_capacity=2, max_size=2, min_size=0, vpc_zone_identifiers=[subnet.id],
                      launch_template={"id": lt.id, "version": "$Latest"}, placement_group="existing-cluster-pg")
"""


def test_plan_program_names_the_interface_by_its_list_position_in_python_names(tmp_path) -> None:
    """The read-back rules' fixes name the element of `network_interfaces` the program declared (here the
    last, position 7), in the program's own (pulumi_aws Python) property names."""
    (tmp_path / "Pulumi.yaml").write_text("name: sample\nruntime: python\nmain: app.py\nstackConfigDir: stacks\n")
    (tmp_path / "app.py").write_text(INTERFACES_OUT_OF_ORDER)
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-2\n")
    res = run_cli("plan", "--program", str(tmp_path), "--stack", "dev", "--format", "json")
    (stack,) = json.loads(res.out)["stacks"]
    (f,) = [f for f in stack["findings"] if f["rule"] == "efa-interface-layout" and f["severity"] == "error"]
    assert f["fix"] == (
        "in the launch template of node group 'trainers', set network_interfaces[7].interface_type: 'efa' "
        "(network_card_index 0, device_index 0), or make it an ENA interface"
    )


def test_quoted_names_stay_as_written() -> None:
    """A name in backticks is quoted as it is (the policy pack's `availabilityZone` config key), not a property."""
    assert in_python("set availabilityZone (or the pack's `availabilityZone` config)") == (
        "set availability_zone (or the pack's `availabilityZone` config)"
    )
