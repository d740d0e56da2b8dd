"""Fixes of read-back clusters in the program's terms: the resource as declared, the property that holds the value."""

from __future__ import annotations

import json

from planner.readback.program_terms import declared_as, python_class, restate
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
