"""Fixes of read-back clusters in the program's terms: the resource as declared, the property that holds the value."""

from __future__ import annotations

import json
from typing import Any

from planner.core.model.cluster import Cluster, NodeGroup, Stack
from planner.core.model.findings import Edit, Fix
from planner.core.model.provenance import Provenance
from planner.readback.program_terms import declared_as, in_program_terms, python_class, python_name
from tests.conftest import run_cli

ASG = "urn:pulumi:dev::sample::aws:autoscaling/group:Group::trainers"
LT = "urn:pulumi:dev::sample::aws:ec2/launchTemplate:LaunchTemplate::gpu"
NG = "urn:pulumi:dev::sample::aws:eks/nodeGroup:NodeGroup::cbr"


def test_the_resource_is_named_as_the_program_declares_it() -> None:
    assert python_class("aws:ec2/launchTemplate:LaunchTemplate") == "aws.ec2.LaunchTemplate"
    assert declared_as(LT, ("app.py", 12)) == 'aws.ec2.LaunchTemplate "gpu" (app.py:12)'
    parent = "urn:pulumi:dev::sample::my:Cluster$aws:ec2/launchTemplate:LaunchTemplate::gpu"
    assert declared_as(parent) == 'aws.ec2.LaunchTemplate "gpu"'


def _stack(urns: dict[tuple[Any, ...], tuple[str, str]], groups: int = 1) -> Stack:
    """A read-back stack of `groups` node groups whose model paths came from the given resources:
    (model path) -> (URN, property)."""
    cluster = Cluster(
        "us-east-2b",
        tuple(
            NodeGroup(f"g{i}", "p5.48xlarge", 2, path=CLUSTER + ("node_groups", i), availability_zone="us-east-2b")
            for i in range(groups)
        ),
        path=CLUSTER,
    )
    provenance = {CLUSTER + path: Provenance(urn, prop, "app.py", 8) for path, (urn, prop) in urns.items()}
    return Stack("dev", "app.py", "us-east-2", cluster, provenance=provenance)


CLUSTER = ("config", "planner:cluster")
COUNT = ("node_groups", 0, "count")
GROUP = ("node_groups", 0)


def test_an_asgs_count_is_its_desired_capacity() -> None:
    stack = _stack({GROUP: (ASG, ""), COUNT: (ASG, "desired_capacity")})
    said = in_program_terms(stack, Fix(edits=(Edit(COUNT, "set", 8, "the 2 UltraServers you pay for"),)))
    assert said == (
        'set `desired_capacity` of aws.autoscaling.Group "trainers" (app.py:8) to 8 (the 2 UltraServers you pay for)'
    )
    lowered = in_program_terms(stack, Fix("x", alternatives=(Edit(("node_groups", 0, "max_count"), "set", 2),)))
    assert lowered == 'x, or set `max_size` of aws.autoscaling.Group "trainers" (app.py:8) to 2'


def test_a_launch_templates_instance_type() -> None:
    """The group is the ASG; its instance type was read from its launch template, which says it."""
    stack = _stack({GROUP: (ASG, ""), ("node_groups", 0, "instance_type"): (LT, "instance_type")})
    said = in_program_terms(stack, Fix(edits=(Edit(("node_groups", 0, "instance_type"), "set", "p5en.48xlarge"),)))
    assert said == 'set `instance_type` of aws.ec2.LaunchTemplate "gpu" (app.py:8) to "p5en.48xlarge"'
    efa = in_program_terms(stack, Fix("EFA is on by default", (Edit(("node_groups", 0, "efa"), "remove"),)))
    assert efa == (  # an ASG launches what its launch template says: the change is the template's
        'set `network_interfaces[].interface_type` of the launch template of aws.autoscaling.Group "trainers" '
        '(app.py:8) to "efa" on every network card (EFA is on by default)'
    )
    root = in_program_terms(stack, Fix(edits=(Edit(("node_groups", 0, "root_volume_gib"), "set", 200),)))
    assert root == (  # no property of the ASG holds it: the change in words about the resource
        'change aws.autoscaling.Group "trainers" (app.py:8) so that its root volume size in GiB is 200'
    )


def test_an_eks_node_groups_scaling_config_and_capacity_type() -> None:
    stack = _stack({GROUP: (NG, "")})
    said = in_program_terms(stack, Fix(edits=(Edit(COUNT, "set", 4),)))
    assert said == 'set `scaling_config.desired_size` of aws.eks.NodeGroup "cbr" (app.py:8) to 4'
    block = in_program_terms(stack, Fix(edits=(Edit(("node_groups", 0, "purchase"), "set", "capacity-block"),)))
    assert block == 'set `capacity_type` of aws.eks.NodeGroup "cbr" (app.py:8) to "CAPACITY_BLOCK"'


def test_a_pcs_compute_node_group_is_named_with_its_own_properties() -> None:
    """pulumi-aws-native's `aws_native.pcs.ComputeNodeGroup` (a PCS group's count is its static instances, its
    purchase its purchaseOption, its reservation its launch template's)."""
    pcs = "urn:pulumi:dev::sample::aws-native:pcs:ComputeNodeGroup::gpu"
    assert python_class("aws-native:pcs:ComputeNodeGroup") == "aws_native.pcs.ComputeNodeGroup"
    stack = _stack({GROUP: (pcs, "")})
    assert in_program_terms(stack, Fix(edits=(Edit(COUNT, "set", 2),))) == (
        'set `scaling_configuration.min_instance_count` of aws_native.pcs.ComputeNodeGroup "gpu" (app.py:8) to 2'
    )
    purchase = ("node_groups", 0, "purchase")
    assert in_program_terms(stack, Fix(edits=(Edit(purchase, "set", "on-demand"),))) == (
        'set `purchase_option` of aws_native.pcs.ComputeNodeGroup "gpu" (app.py:8) to "ONDEMAND"'
    )
    block = in_program_terms(stack, Fix(edits=(Edit(purchase, "set", "capacity-block"),)))
    assert 'to "CAPACITY_BLOCK" (and its launch template\'s `instance_market_options.market_type`' in block
    ids = ("node_groups", 0, "capacity_reservation_ids")
    reservation = in_program_terms(stack, Fix(edits=(Edit(ids, "set", ("cr-...",)),)))
    assert reservation == (
        "set `capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id` of the "
        'launch template of aws_native.pcs.ComputeNodeGroup "gpu" (app.py:8) to "cr-..."'
    )


def test_no_fix_for_a_program_names_a_stack_file_key() -> None:
    """Where no property of the resource carries the value, the change is said in words about the resource;
    where no resource holds it at all, in words about the cluster: never as `key: value`."""
    stack = _stack({GROUP: (ASG, "")})
    fixes = [
        Fix(edits=(Edit(("node_groups", 0, "public_ip"), "set", False),)),
        Fix(edits=(Edit(("node_groups", 0, "root_volume_gib"), "set", 200),)),
        Fix(edits=(Edit(("lustre", "storage_capacity_gib"), "set", 4800),)),
        Fix(edits=(Edit(("placement_group",), "set", "none"),)),
    ]
    for fix in fixes:
        said = in_program_terms(stack, fix)
        assert ": " not in said and "public_ip" not in said and "lustre." not in said, said
    assert in_program_terms(stack, fixes[2]) == "make the storage capacity in GiB 4800 in the program"


def test_a_planning_key_is_the_stack_configs() -> None:
    stack = _stack({GROUP: (ASG, "")})
    said = in_program_terms(stack, Fix("to plan the whole block", (Edit(("schedule", "hours"), "set", 336),)))
    assert said == "in the stack config's planner:cluster, set schedule.hours: 336 (to plan the whole block)"


def test_engine_property_names_become_the_programs_python_names() -> None:
    """The read-back reads the engine's camelCase inputs; its fixes name pulumi_aws's Python names."""
    assert python_name("scalingConfig.desiredSize") == "scaling_config.desired_size"
    assert python_name("networkInterfaces") == "network_interfaces"
    assert python_name("spec.limits") == "spec.limits"


def test_plan_program_gives_fixes_in_the_programs_terms() -> None:
    res = run_cli("plan", "--program", "tests/corpus/eks-mixed-instances-efa", "--stack", "test", "--format", "json")
    fixes = [
        f
        for s in json.loads(res.out)["stacks"]
        for f in s["findings"]
        if f.get("fix") and f["rule"] == "placement-group"
    ]
    (f,) = fixes
    assert f["fix"]["text"].startswith(
        'launch aws.autoscaling.Group "node-group" (tests/corpus/eks-mixed-instances-efa/__main__.py:36) into a '
        "cluster placement group"
    )
    assert f["fix"]["edits"] == [{"path": "planner:cluster.placement_group", "op": "remove", "value": None}]
    assert "placement_group: none" not in f["fix"]["text"]


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
    assert f["fix"]["text"] == (
        f'set `network_interfaces[7].interface_type` of aws.ec2.LaunchTemplate "trainers" ({tmp_path / "app.py"}:5) '
        'to "efa" (network_card_index 0, device_index 0), or set `network_interfaces[7].interface_type` of '
        f'aws.ec2.LaunchTemplate "trainers" ({tmp_path / "app.py"}:5) to "interface" (an ENA interface)'
    )
    (edit,) = f["fix"]["edits"]  # the resource's property, as the engine names it
    assert (edit["path"], edit["value"]) == ("networkInterfaces[7].interfaceType", "efa")


ULTRASERVERS_IN_AN_ASG = """
import pulumi_aws as aws
subnet = aws.ec2.Subnet("private", vpc_id="vpc-0123456789abcdef0", cidr_block="10.0.1.0/24", availability_zone="us-east-2b")
lt = aws.ec2.LaunchTemplate("gpu", instance_type="trn2u.48xlarge", image_id="ami-0123456789abcdef0",
    metadata_options={"http_tokens": "required"}, instance_market_options={"market_type": "capacity-block"})
aws.autoscaling.Group("gpu", desired_capacity=6, max_size=6, min_size=6, vpc_zone_identifiers=[subnet.id],
                      launch_template={"id": lt.id, "version": "$Latest"})
"""


def test_plan_program_says_each_edit_on_the_resource_that_holds_it(tmp_path) -> None:
    """A program's fixes name the ASG's `desired_capacity`, the launch template's properties (the reservation
    of an ASG's launches is its template's), never a stack-file key; the JSON keeps the edits."""
    (tmp_path / "Pulumi.yaml").write_text("name: sample\nruntime: python\nmain: app.py\nstackConfigDir: stacks\n")
    (tmp_path / "app.py").write_text(ULTRASERVERS_IN_AN_ASG)
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-2\n")
    res = run_cli("plan", "--program", str(tmp_path), "--stack", "dev", "--format", "json")
    (stack,) = json.loads(res.out)["stacks"]
    fixes = {f["rule"]: f["fix"] for f in stack["findings"] if "fix" in f}
    asg = f'aws.autoscaling.Group "gpu" ({tmp_path}/app.py:6)'
    whole = fixes["ultraserver-whole-units"]
    assert whole["text"].startswith(f"set `desired_capacity` of {asg} to 8 (the 2 UltraServers you pay for), or ")
    assert whole["edits"] == [
        {
            "path": "planner:cluster.node_groups[0].count",
            "op": "set",
            "value": 8,
            "note": "the 2 UltraServers you pay for",
        }
    ]
    assert fixes["capacity-block-reservation"]["text"].startswith(
        "set `capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id` of the "
        f'launch template of {asg} to "cr-..."'
    )
    assert fixes["efa-recommended"]["text"].startswith(
        f'set `network_interfaces[].interface_type` of aws.ec2.LaunchTemplate "gpu" ({tmp_path}/app.py:4) to "efa"'
    )
    for fix in fixes.values():  # no stack-file key: `key: value`
        assert not any(f"{key}: " in fix["text"] for key in ("count", "efa", "purchase", "capacity_reservation_id"))


def test_an_edit_of_a_resources_property_is_said_against_it() -> None:
    """A change the model holds no value for (`Edit.resource`): the property as the program writes it, of the
    resource as declared (its file and line from the provenance map); without a value, what its note says."""
    stack = _stack({GROUP: (ASG, "")})
    fix = Fix(
        "to have it planned and priced:",
        (Edit(("desiredCapacity",), "set", None, "a number known at preview", resource=ASG),),
        (Edit(("metadataOptions", "httpTokens"), "set", "required", resource=LT),),
    )
    assert in_program_terms(stack, fix) == (
        'to have it planned and priced: set `desired_capacity` of aws.autoscaling.Group "trainers" (app.py:8) to a '
        'number known at preview, or set `metadata_options.http_tokens` of aws.ec2.LaunchTemplate "gpu" to "required"'
    )
    pool = "urn:pulumi:dev::sample::kubernetes:karpenter.sh/v1:NodePool::gpu"
    removed = Fix(edits=(Edit(("spec", "limits"), "remove", resource=pool),))
    assert in_program_terms(stack, removed) == 'remove `spec.limits` from karpenter.sh/v1 NodePool "gpu"'
