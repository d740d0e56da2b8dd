"""Shapes real programs use, read back by the one read-back (`planner.readback.topology`), each built
from a public example named in its docstring. Resources are given as the engine shows them."""

from __future__ import annotations

from typing import Any

import pytest

from planner.policy.planning import plan_resources
from planner.policy.testing import Spec, stack_args
from planner.readback.resources import Graph, from_policy
from planner.readback.topology import rebuild

LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
INSTANCE = "aws:ec2/instance:Instance"
ENI = "aws:ec2/networkInterface:NetworkInterface"
SUBNET = "aws:ec2/subnet:Subnet"
PG = "aws:ec2/placementGroup:PlacementGroup"
EKS_NG = "aws:eks/nodeGroup:NodeGroup"


# every test here reads a program's resources, with no stack config of its own
pytestmark = pytest.mark.usefixtures("no_stack_config")


def interfaces(cards: int, first: str = "efa", rest: str = "efa-only", device_of_rest: int = 1) -> list[dict[str, Any]]:
    return [
        {
            "networkCardIndex": c,
            "deviceIndex": 0 if c == 0 else device_of_rest,
            "interfaceType": first if c == 0 else rest,
            "subnetId": "subnet-0aaa1111",
        }
        for c in range(cards)
    ]


def subnet(az: str = "us-east-2b", sid: str = "subnet-0aaa1111") -> Spec:
    return Spec(SUBNET, f"s-{az}", {"id": sid, "availabilityZone": az})


def planned(specs: list[Spec], region: str | None = "us-east-2") -> Any:
    return plan_resources(stack_args(specs, region=region).resources, {})


def node_pool(name: str, instance_types: list[str], limits: dict[str, Any] | None = None) -> Spec:
    """A Karpenter NodePool that may launch `instance_types`, within `limits` (None: without limits)."""
    requirement = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": instance_types}
    spec: dict[str, Any] = {"template": {"spec": {"requirements": [requirement]}}}
    if limits is not None:
        spec["limits"] = limits
    return Spec("kubernetes:karpenter.sh/v1:NodePool", name, {"spec": spec})


def rules_of(outcome: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in outcome.plan.findings:
        out.setdefault(f.rule, []).append(f.message)
    return out


def test_template_without_a_type_is_checked_against_the_mixed_instances_override() -> None:
    """AWS CloudFormation user guide (awsdocs/aws-cloudformation-user-guide,
    doc_source/aws-properties-autoscaling-autoscalinggroup-launchtemplateoverrides.md): overrides "override the
    instance type that is specified in the launch template". The template names no type; the override's
    trn2.48xlarge (16 network cards) is what the EFA layout (8 cards here) is checked against."""
    lt = Spec(LT, "workers", {"id": "lt-0aaa", "networkInterfaces": interfaces(8)})
    asg = Spec(
        ASG,
        "workers",
        {
            "desiredCapacity": 2,
            "maxSize": 2,
            "vpcZoneIdentifiers": ["subnet-0aaa1111"],
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": "lt-0aaa"},
                    "overrides": [{"instanceType": "trn2.48xlarge"}, {"instanceType": "p5.48xlarge"}],
                }
            },
        },
    )
    out = planned([subnet(), lt, asg])
    (g,) = out.plan.stack.cluster.node_groups
    assert (g.instance_type, g.count, g.efa) == ("trn2.48xlarge", 2, True)
    found = rules_of(out)
    assert any(
        "trn2.48xlarge takes 16 EFA interfaces" in m and "missing card(s) 8-15" in m
        for m in found["efa-interface-layout"]
    )
    assert any(
        "may launch any of trn2.48xlarge, p5.48xlarge; planned as trn2.48xlarge" in m for m in found["readback-gap"]
    )


def test_instance_type_from_the_instance_when_the_template_has_none() -> None:
    """pulumi-aws `aws.ec2.Instance(launch_template=..., instance_type=...)`, as in the EFA run-instances scripts
    (whn09/DeepEP start_ec2.sh): the instance's type, the template's `efa-only` primary interface is an error."""
    lt = Spec(LT, "nodes", {"id": "lt-0bbb", "networkInterfaces": interfaces(16, first="efa-only")})
    nodes = [
        Spec(
            INSTANCE,
            f"node-{i}",
            {
                "instanceType": "p5en.48xlarge",
                "launchTemplate": {"id": "lt-0bbb"},
                "subnetId": "subnet-0aaa1111",
                "placementGroup": "pg-x",
            },
        )
        for i in range(2)
    ]
    pg = Spec(PG, "pg-x", {"name": "pg-x", "strategy": "cluster"})
    out = planned([subnet(), lt, pg, *nodes])
    (g,) = out.plan.stack.cluster.node_groups
    assert (g.instance_type, g.count) == ("p5en.48xlarge", 2)
    assert any("primary interface" in m for m in rules_of(out)["efa-interface-layout"])


def test_efa_is_read_from_attached_network_interfaces_never_assumed() -> None:
    """whn09/DeepEP start_ec2.sh (run-instances with one EFA interface per network card), as pulumi-aws writes
    it: `aws.ec2.NetworkInterface(interface_type="efa")` attached through `network_interfaces`. Without them,
    an instance has no EFA."""
    enis = [
        Spec(ENI, f"eni-{c}", {"id": f"eni-0{c:03x}", "interfaceType": "efa", "subnetId": "subnet-0aaa1111"})
        for c in range(16)
    ]
    with_efa = Spec(
        INSTANCE,
        "gpu-0",
        {
            "instanceType": "p5en.48xlarge",
            "networkInterfaces": [
                {"networkCardIndex": c, "deviceIndex": 0 if c == 0 else 1, "networkInterfaceId": f"eni-0{c:03x}"}
                for c in range(16)
            ],
        },
    )
    plain = Spec(INSTANCE, "solo-0", {"instanceType": "p5en.48xlarge", "subnetId": "subnet-0aaa1111"})
    out = rebuild(Graph(from_policy(r) for r in stack_args([subnet(), *enis, with_efa, plain]).resources))
    efa = {g["name"]: (g["efa"], g["availability_zone"]) for g in out.data["node_groups"]}
    assert efa == {"gpu": (True, "us-east-2b"), "solo": (False, "us-east-2b")}


def test_eks_group_plans_at_desired_size_and_reports_the_maximum() -> None:
    """aws-samples/awsome-distributed-training 1.architectures/4.amazon-eks/amazon-eks-nodegroup.yaml pattern as an
    EKS managed group (`scaling_config` desired 3, max 4): planned at 3, the maximum an info finding."""
    ng = Spec(
        EKS_NG,
        "p5",
        {
            "instanceTypes": ["p5.48xlarge"],
            "capacityType": "ON_DEMAND",
            "subnetIds": ["subnet-0aaa1111"],
            "scalingConfig": {"desiredSize": 3, "minSize": 1, "maxSize": 4},
        },
    )
    out = planned([subnet(), ng])
    (g,) = out.plan.stack.cluster.node_groups
    assert (g.count, g.max_count, g.efa) == (3, 4, False)
    assert any("may scale to 4 p5.48xlarge" in m for m in rules_of(out)["scaling-maximum"])


def test_existing_placement_group_is_not_no_placement_group() -> None:
    """aws-samples/aws-hpc-recipes recipes/pcs/enable_efa/assets/pcs-lt-efa-p5.yaml takes `PlacementGroupName` of an
    existing group: named, not declared. It is read as a cluster placement group, with a note, and no
    "add a placement group" advice."""
    lt = Spec(
        LT,
        "p5",
        {
            "id": "lt-0ccc",
            "instanceType": "p5.48xlarge",
            "networkInterfaces": interfaces(32),
            "placement": {"groupName": "efa-existing"},
        },
    )
    asg = Spec(
        ASG,
        "p5",
        {
            "desiredCapacity": 4,
            "maxSize": 4,
            "vpcZoneIdentifiers": ["subnet-0aaa1111"],
            "launchTemplate": {"id": "lt-0ccc"},
        },
    )
    out = planned([subnet(), lt, asg])
    assert out.plan.stack.cluster.placement_group == "cluster"
    found = rules_of(out)
    assert "placement-group" not in found
    assert any(
        "placement group 'efa-existing'" in m and "not a resource of this stack" in m for m in found["readback-gap"]
    )


def test_targeted_reservation_gets_no_placement_group_advice() -> None:
    """aws-samples/awsome-distributed-training 1.architectures/4.amazon-eks/eks-p4de-odcr.yaml launches into a
    targeted On-Demand Capacity Reservation. AWS: a reservation is created in a cluster placement group, or not
    (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/cr-cpg.html): telling the user to add a group the
    reservation is not in would break the launch."""
    lt = Spec(
        LT,
        "odcr",
        {
            "id": "lt-0ddd",
            "instanceType": "p5.48xlarge",
            "networkInterfaces": interfaces(32),
            "capacityReservationSpecification": {
                "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}
            },
        },
    )
    asg = Spec(
        ASG,
        "odcr",
        {
            "desiredCapacity": 4,
            "maxSize": 4,
            "vpcZoneIdentifiers": ["subnet-0aaa1111"],
            "launchTemplate": {"id": "lt-0ddd"},
        },
    )
    out = planned([subnet(), lt, asg])
    (g,) = out.plan.stack.cluster.node_groups
    assert g.capacity_reservation_ids == ("cr-0123456789abcdef0",) and g.purchase == "on-demand"
    assert "placement-group" not in rules_of(out)


def test_region_from_subnets_and_zones_when_no_provider_says() -> None:
    """`us-east-2b` is in `us-east-2`: the region of a stack whose provider names none (the pack sees no default
    provider region; the CLI has no `aws:region`), as in awsome-distributed-training's CloudFormation templates."""
    inst = Spec(INSTANCE, "node-0", {"instanceType": "p5.48xlarge", "availabilityZone": "us-east-2b"})
    out = rebuild(Graph(from_policy(r) for r in stack_args([inst], region=None).resources))
    assert out.region == "us-east-2"
    out = rebuild(Graph(from_policy(r) for r in stack_args([subnet("us-west-2c"), inst], region=None).resources))
    assert out.region == "us-west-2"


def test_types_outside_the_catalogue_are_kept_and_counted() -> None:
    """An accelerated type AWS's API data does not list (p6e-gb300.36xlarge, named in AWS's PCS guide) is named
    with its count in a finding, never dropped without a word; a t3 bastion, a type AWS lists, is planned (issue 35)."""
    gpus = [
        Spec(INSTANCE, f"gb300-{i}", {"instanceType": "p6e-gb300.36xlarge", "subnetId": "subnet-0aaa1111"})
        for i in range(3)
    ]
    bastion = Spec(INSTANCE, "bastion", {"instanceType": "t3.micro", "subnetId": "subnet-0aaa1111"})
    out = planned([subnet(), *gpus, bastion])
    (text,) = rules_of(out)["instance-type-unlisted"]
    assert "3 instance(s) of p6e-gb300.36xlarge" in text and "bastion" not in text
    assert [(g.name, g.instance_type) for g in out.plan.stack.cluster.node_groups] == [("bastion", "t3.micro")]


def test_desired_zero_is_never_the_maximum() -> None:
    """awslabs/data-on-eks trn1-32xl-ng1: `desired_size = var.trn1_32xl_desired_size` (default 0), `max_size = 4`."""
    asg = Spec(
        ASG,
        "trn1",
        {
            "desiredCapacity": 0,
            "minSize": 0,
            "maxSize": 4,
            "vpcZoneIdentifiers": ["subnet-0aaa1111"],
            "launchTemplate": {"id": "lt-0eee"},
        },
    )
    lt = Spec(LT, "trn1", {"id": "lt-0eee", "instanceType": "trn1.32xlarge", "networkInterfaces": interfaces(8)})
    out = planned([subnet(), lt, asg])
    assert out.plan.summary.instances == 0
    (text,) = rules_of(out)["scaling-maximum"]
    assert "desired size of 0" in text and "may scale to 4 trn1.32xlarge" in text


def test_karpenter_and_hyperpod_compute_is_named_with_its_types_and_range() -> None:
    """awsome-distributed-training 1.architectures/4.amazon-eks/terraform/examples/karpenter-workloads.yaml style
    node pools and SageMaker HyperPod instance groups size themselves: `compute-unsized`, never silence."""
    pool = node_pool("gpu", ["p5.48xlarge", "p4d.24xlarge"], limits={"nvidia.com/gpu": 64})
    hyperpod = Spec(
        "aws-native:sagemaker:Cluster",
        "hp",
        {"instanceGroups": [{"instanceGroupName": "workers", "instanceType": "ml.p5.48xlarge", "instanceCount": 4.0}]},
    )
    out = planned([subnet(), pool, hyperpod])
    (elastic,) = rules_of(out)["scaling-maximum"]
    assert elastic.startswith(
        "Karpenter node pool 'gpu' launches p4d.24xlarge, p5.48xlarge on demand (planned at 0 now): "
        "spec.limits (nvidia.com/gpu 64) allow at most 8 p4d.24xlarge or 8 p5.48xlarge"
    )
    (hp,) = rules_of(out)["compute-unsized"]
    assert hp.startswith(
        "SageMaker HyperPod cluster 'hp' instance group 'workers' runs 4 x ml.p5.48xlarge "
        "(p5.48xlarge, 32 H100); EFA and placement are provided by HyperPod"
    )
    cost = out.plan.cost
    assert not cost.complete and cost.left_out == (
        "SageMaker HyperPod cluster 'hp' instance group 'workers' (4 x ml.p5.48xlarge: no price)",
    )
    # the pool at its maximum: 8 p5.48xlarge (64 GPUs), the dearer fill of its two types
    (item,) = cost.maximum.line_items
    assert (item.detail["instance_type"], item.detail["instances"]) == ("p5.48xlarge", 8)


def test_the_same_program_gives_byte_identical_json(tmp_path: Any) -> None:
    from conftest import run_cli

    runs = [
        run_cli("plan", "--program", "tests/corpus/eks-trn1-neuron", "--stack", "test", "--format", "json")
        for _ in range(2)
    ]
    assert runs[0].code == runs[1].code == 0 and runs[0].out == runs[1].out  # imdsv2-required is a warning


def test_root_volumes_are_priced_from_the_launch_templates_gp3_root_device() -> None:
    """The components' launch template (`block_device_mappings` of /dev/sda1, gp3, `volume_size`) and the
    data-on-eks trainium-inferentia blueprint's (/dev/xvda, gp3, 100 GiB; tests/corpus/eks-trn1-neuron): the
    size is read back per group and priced; a root mapping without a type (the AMI's) is left out, and named."""
    sized = Spec(
        LT,
        "sized",
        {
            "id": "lt-0aaa",
            "instanceType": "trn2.48xlarge",
            "networkInterfaces": interfaces(16),
            "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": 100, "volumeType": "gp3"}}],
        },
    )
    bare = Spec(
        LT,
        "bare",
        {
            "id": "lt-0bbb",
            "instanceType": "trn2.48xlarge",
            "networkInterfaces": interfaces(16),
            "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": 100}}],
        },
    )  # the AMI's type
    groups = [
        Spec(
            ASG,
            name,
            {
                "desiredCapacity": 2,
                "maxSize": 2,
                "vpcZoneIdentifiers": ["subnet-0aaa1111"],
                "launchTemplate": {"id": lt},
                "placementGroup": "pg-x",
            },
        )
        for name, lt in (("sized", "lt-0aaa"), ("bare", "lt-0bbb"))
    ]
    pg = Spec(PG, "pg-x", {"name": "pg-x", "strategy": "cluster"})
    out = planned([subnet(), sized, bare, pg, *groups])
    cluster = out.plan.stack.cluster
    assert cluster.root_volume_gib is None  # nothing declared: read back per group
    assert {g.name: [(v.volume_type, v.size_gib, v.root) for v in g.ebs] for g in cluster.node_groups} == {
        "sized": [("gp3", 100, True)],
        "bare": [(None, 100, True)],
    }
    cost = out.plan.cost
    (roots,) = [i for i in cost.line_items if i.detail.get("volume_type")]
    assert (roots.name, roots.detail["gib_per_instance"], roots.detail["instances"]) == ("sized root volumes", 100, 2)
    assert roots.unit_price_usd == 0.08  # gp3 in us-east-2, the built-in book
    assert cost.left_out == ("bare root volumes (type unknown: the AMI's default mapping)",) and not cost.complete
    assert any("EBS volumes not priced: bare root volumes" in n for n in cost.notes)


PCS = "aws-native:pcs:ComputeNodeGroup"


def pcs_group(name: str, purchase: str | None, lo: int, hi: int, *types: str, template: str = "lt-0pcs") -> Spec:
    """An AWS PCS compute node group as pulumi-aws-native registers it (camelCase inputs, the CloudFormation
    resource's properties: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-pcs-computenodegroup.html)."""
    inputs: dict[str, Any] = {
        "clusterId": "pcs_0123456789",
        "customLaunchTemplate": {"templateId": template, "version": "1"},
        "instanceConfigs": [{"instanceType": t} for t in types],
        "scalingConfiguration": {"minInstanceCount": lo, "maxInstanceCount": hi},
        "subnetIds": ["subnet-0aaa1111"],
    }
    if purchase is not None:
        inputs["purchaseOption"] = purchase
    return Spec(PCS, name, inputs)


def pcs_template(market: str | None = "capacity-block", reservation: str | None = "cr-0123456789abcdef0") -> Spec:
    inputs: dict[str, Any] = {"id": "lt-0pcs", "networkInterfaces": interfaces(32)}
    if market is not None:
        inputs["instanceMarketOptions"] = {"marketType": market}
    if reservation is not None:
        inputs["capacityReservationSpecification"] = {
            "capacityReservationTarget": {"capacityReservationId": reservation}
        }
    return Spec(LT, "pcs", inputs)


def test_pcs_group_is_planned_at_its_static_instances_bought_as_its_purchase_option() -> None:
    """AWS PCS CreateComputeNodeGroup (https://docs.aws.amazon.com/pcs/latest/APIReference/API_CreateComputeNodeGroup.html):
    `purchaseOption` ONDEMAND, SPOT or CAPACITY_BLOCK, On-Demand when not given; the instances between
    `minInstanceCount` and `maxInstanceCount` are launched as jobs arrive (job-level scaling, AWS PCS User Guide).
    A group with 2 static p5.48xlarge on a Capacity Block, up to 4: a node group of 2 in the summary, bought as a
    Capacity Block into the template's reservation, 4 at the maximum; its EFA layout read from the template."""
    out = planned([subnet(), pcs_template(), pcs_group("gpu", "CAPACITY_BLOCK", 2, 4, "p5.48xlarge")])
    (g,) = out.plan.stack.cluster.node_groups
    assert (g.name, g.instance_type, g.count, g.max_count, g.purchase) == ("gpu", "p5.48xlarge", 2, 4, "capacity-block")
    assert g.capacity_reservation_ids == ("cr-0123456789abcdef0",) and g.efa and g.availability_zone == "us-east-2b"
    assert out.plan.summary.instances == 2 and out.plan.stack.cluster.unplanned == ()
    (now,) = [i for i in out.plan.cost.line_items if i.detail.get("instance_type")]
    assert (now.detail["purchase"], now.detail["instances"]) == ("capacity-block", 2)
    (most,) = [i for i in out.plan.cost.maximum.line_items if i.detail.get("instance_type")]
    assert (most.detail["purchase"], most.detail["instances"]) == ("capacity-block", 4)
    assert most.unit_price_usd == now.unit_price_usd
    (text,) = rules_of(out)["scaling-maximum"]
    assert text.startswith("node group 'gpu' is planned at the 2 instance(s) it starts with but may scale to 4")
    assert "readback-gap" not in rules_of(out)
    # PCS launches the instances above the static ones by itself: a budget holds at the maximum, as for pools
    assert out.plan.cost.budget_basis is out.plan.cost.maximum
    # SPOT, and no purchaseOption at all (the API's default, On-Demand)
    for option, purchase in (("SPOT", "spot"), (None, "on-demand")):
        out = planned([subnet(), pcs_template(None, None), pcs_group("gpu", option, 1, 1, "p5.48xlarge")])
        (g,) = out.plan.stack.cluster.node_groups
        assert (g.purchase, g.count, g.max_count) == (purchase, 1, None)


def test_pcs_capacity_block_needs_both_the_purchase_option_and_the_market_type() -> None:
    """AWS PCS User Guide, "Configure an AWS PCS compute node group to use a Capacity Block"
    (https://docs.aws.amazon.com/pcs/latest/userguide/capacity-blocks-configure-cng.html): the launch template's
    MarketType must be capacity-block and the group's purchaseOption CAPACITY_BLOCK. Either alone is a gap; the
    group is bought as its purchaseOption says (what AWS PCS reads)."""
    out = planned([subnet(), pcs_template(), pcs_group("gpu", None, 2, 2, "p5.48xlarge")])
    (g,) = out.plan.stack.cluster.node_groups
    assert g.purchase == "on-demand"
    (gap,) = rules_of(out)["readback-gap"]
    assert gap.startswith(
        "AWS PCS compute node group 'gpu' has purchaseOption ONDEMAND (the default) but its launch template 'pcs' "
        "has market type 'capacity-block': AWS PCS launches a Capacity Block group only with both"
    )
    out = planned([subnet(), pcs_template(None), pcs_group("gpu", "CAPACITY_BLOCK", 2, 2, "p5.48xlarge")])
    (g,) = out.plan.stack.cluster.node_groups
    assert g.purchase == "capacity-block"
    (gap,) = rules_of(out)["readback-gap"]
    assert "has purchaseOption CAPACITY_BLOCK but its launch template 'pcs' has no market type" in gap


def test_pcs_group_without_static_instances_sizes_itself_and_is_priced_as_bought() -> None:
    """minInstanceCount 0 (aws-hpc-recipes' PCS recipes): nothing runs until jobs arrive, planned at 0; at the
    maximum, 4 p5.48xlarge at the Capacity Block rate, never the On-Demand one. An interruptible capacity
    reservation (botocore's PCS model lists INTERRUPTIBLE_CAPACITY_RESERVATION) has no price: left out, said so."""
    out = planned([subnet(), pcs_template(), pcs_group("gpu", "CAPACITY_BLOCK", 0, 4, "p5.48xlarge")])
    assert out.plan.stack.cluster.node_groups == () and out.plan.summary.instances == 0
    (u,) = out.plan.stack.cluster.unplanned
    assert (u.reason, u.purchase, u.maximum) == ("elastic", "capacity-block", 4)
    (most,) = out.plan.cost.maximum.line_items[:1]
    assert (most.detail["purchase"], most.detail["instances"]) == ("capacity-block", 4)
    (text,) = rules_of(out)["scaling-maximum"]
    assert "bought as a Capacity Block; launch template 'pcs' targets capacity reservation cr-0123456789abcdef0" in text
    out = planned(
        [
            subnet(),
            pcs_template(None, None),
            pcs_group("gpu", "INTERRUPTIBLE_CAPACITY_RESERVATION", 2, 2, "p5.48xlarge"),
        ]
    )
    assert out.plan.stack.cluster.node_groups == ()
    assert out.plan.cost.left_out == ("AWS PCS compute node group 'gpu' (2 x p5.48xlarge: no price)",)
    (text,) = rules_of(out)["compute-unsized"]
    assert text == (
        "AWS PCS compute node group 'gpu' runs 2-2 instances of p5.48xlarge (purchaseOption "
        "INTERRUPTIBLE_CAPACITY_RESERVATION): planner has no price for interruptible capacity reservations, so it "
        "is not priced"
    )


def test_pcs_group_in_a_local_zone_subnet_is_planned_there() -> None:
    """A subnet created in a Local Zone (EC2 CreateSubnet: "To create a subnet in a Local Zone, set this value to
    the Local Zone ID"); p5.48xlarge Capacity Blocks are sold in the Atlanta Local Zone us-east-1-atl-2a (the
    catalogue's capacity_block_local_zones, from the Capacity Blocks pricing page). The group is planned in the
    Local Zone, and the account must opt in to its zone group first."""
    specs = [subnet("us-east-1-atl-2a"), pcs_template(), pcs_group("gpu", "CAPACITY_BLOCK", 2, 2, "p5.48xlarge")]
    out = planned(specs, region="us-east-1")
    (g,) = out.plan.stack.cluster.node_groups
    assert (g.availability_zone, g.purchase) == ("us-east-1-atl-2a", "capacity-block")
    (opt_in,) = rules_of(out)["local-zone-opt-in"]
    assert opt_in.startswith("us-east-1-atl-2a is a Local Zone of us-east-1")


def test_a_pcs_minimum_above_its_maximum_is_a_warning_on_the_api_references_words() -> None:
    """The PCS API reference (botocore's pcs model, ScalingConfigurationRequest): minInstanceCount "The lower bound
    of the number of instances allowed in the compute fleet", maxInstanceCount "The upper bound [...]"; it does not
    say that creation fails, so a minimum above the maximum is a warning (planner/data/rule_sources.yaml)."""
    out = planned([subnet(), pcs_template(), pcs_group("gpu", "CAPACITY_BLOCK", 4, 2, "p5.48xlarge")])
    (hit,) = [f for f in out.plan.findings if f.rule == "scaling-size-refused"]
    assert hit.severity == "warning"
    assert "minInstanceCount 4 above scalingConfiguration.maxInstanceCount 2" in hit.message
    assert "lower and upper bounds" in hit.message and "refuses" not in hit.message
