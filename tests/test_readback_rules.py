"""The rules of clusters read back from a program: each triggered, each quiet on a near miss, each
resting on the AWS text quoted in its case. They never fire on a stack file (tests/test_rules.py)."""

from __future__ import annotations

from typing import Any

import pytest

from planner.core import rules
from planner.core.model.findings import Fix
from planner.policy.planning import plan_resources
from planner.policy.testing import Spec, stack_args
from tests.conftest import said_fix

LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
SUBNET = "aws:ec2/subnet:Subnet"
PG = "aws:ec2/placementGroup:PlacementGroup"
INSTANCE = "aws:ec2/instance:Instance"
BATCH = "aws:batch/computeEnvironment:ComputeEnvironment"

READBACK_RULES = (
    "budget-unbounded-compute",
    "compute-unsized",
    "efa-interface-layout",
    "instance-type-unlisted",
    "node-group-multi-az",
    "readback-gap",
    "scaling-maximum",
    "scaling-size-refused",
)
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"


# every test here reads a program's resources, with no stack config of its own
pytestmark = pytest.mark.usefixtures("no_stack_config")


def subnets(*zones: str) -> list[Spec]:
    return [Spec(SUBNET, f"s-{z}", {"id": f"subnet-0{i:07x}", "availabilityZone": z}) for i, z in enumerate(zones)]


def cluster(
    cards: int = 16,
    zones: tuple[str, ...] = ("us-east-2b",),
    desired: int = 2,
    maximum: int = 2,
    pg: bool = True,
    itype: str = "trn2.48xlarge",
    subnet_ids: Any = None,
) -> list[Spec]:
    subs = subnets(*zones)
    lt = Spec(
        LT,
        "t",
        {
            "id": "lt-01",
            "instanceType": itype,
            "networkInterfaces": [
                {
                    "networkCardIndex": c,
                    "deviceIndex": 0 if c == 0 else 1,
                    "interfaceType": "efa" if c == 0 else "efa-only",
                }
                for c in range(cards)
            ],
        },
    )
    props = {
        "desiredCapacity": desired,
        "minSize": 0,
        "maxSize": maximum,
        "launchTemplate": {"id": "lt-01"},
        "vpcZoneIdentifiers": subnet_ids if subnet_ids is not None else [s.props["id"] for s in subs],
    }
    specs = [*subs, lt]
    if pg:
        specs.append(Spec(PG, "pg", {"name": "pg", "strategy": "cluster"}))
        props["placementGroup"] = "pg"
    return [*specs, Spec(ASG, "g", props)]


def batch(types: list[str]) -> list[Spec]:
    return [Spec(BATCH, "ce", {"computeResources": {"instanceTypes": types, "minVcpus": 0, "maxVcpus": 4096}})]


def pool(limits: dict[str, Any] | None) -> list[Spec]:
    spec: dict[str, Any] = {
        "template": {
            "spec": {"requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["p5"]}]}
        }
    }
    if limits is not None:
        spec["limits"] = limits
    return [Spec(NODE_POOL, "gpu", {"spec": spec})]


BUDGET = {"budget": {"total_usd": 100000, "allow_incomplete": True}, "schedule": {"hours": 100}}
# without allow_incomplete, a budget on an estimate that leaves compute out fails as budget-incomplete-cost instead


def fired(specs: list[Spec], rule: str, extra: dict[str, Any] | None = None) -> list[str]:
    outcome = plan_resources(stack_args(specs).resources, {}, extra=extra)
    assert outcome.plan is not None, outcome.gaps
    return [f.message for f in outcome.plan.findings if f.rule == rule]


CASES = {
    # API_ComputeResource: "maxvCpus: The maximum number of vCPUs that a compute environment can support." and
    # "desiredvCpus: ... Batch modifies this value between the minimum and maximum values based on job queue demand."
    "compute-unsized": (cluster() + pool(None), cluster() + pool({"nvidia.com/gpu": 64})),
    # Karpenter NodePools: "If a limit has been exceeded, nodes provisioning is prevented"; without one, none is
    "budget-unbounded-compute": (cluster() + pool(None), cluster() + pool({"cpu": 1000}), BUDGET),
    # API_NodegroupScalingConfig / Auto Scaling: desired capacity must lie between the minimum and maximum size
    "scaling-size-refused": (cluster(desired=4, maximum=2), cluster(desired=2, maximum=4)),
    # "One EFA interface per network card" / "You can't use an EFA-only network interface as the primary network
    # interface." (Maximize network bandwidth on Amazon EC2 instances with multiple network cards)
    "efa-interface-layout": (cluster(cards=8), cluster(cards=16)),
    # accelerated types AWS's API data does not list (P6e-GB300, named in AWS's PCS guide): named with their count
    "instance-type-unlisted": (
        cluster() + [Spec(INSTANCE, "g-0", {"instanceType": "p6e-gb300.36xlarge", "subnetId": "subnet-00000000"})],
        cluster() + [Spec(INSTANCE, "b-0", {"instanceType": "t3.micro", "subnetId": "subnet-00000000"})],
    ),
    # "A cluster placement group is a logical grouping of instances within a single Availability Zone."
    "node-group-multi-az": (cluster(zones=("us-east-2a", "us-east-2b")), cluster(zones=("us-east-2a",))),
    # an Availability Zone belongs to one Region; the read-back states what it cannot tell
    "readback-gap": (cluster(subnet_ids=["subnet-0elsewhere"]), cluster()),
    # "the maximum capacity ... the group can scale out to" (Auto Scaling group capacity limits)
    "scaling-maximum": (cluster(desired=2, maximum=4), cluster(desired=2, maximum=2)),
}


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires_and_keeps_quiet_on_the_near_miss(rule_id: str) -> None:
    trigger, near_miss, *extra = CASES[rule_id]
    r = rules.get(rule_id)
    assert r is not None and r.source.startswith("https://") and r.remediation
    assert fired(trigger, rule_id, *extra)
    assert fired(near_miss, rule_id, *extra) == []


def test_every_readback_rule_has_cases() -> None:
    owned = {
        rid
        for rid, r in rules.registry().items()
        if r.check.__module__ in ("planner.core.rules.program_shapes", "planner.core.rules.unsized")
    }
    assert owned == set(READBACK_RULES) == set(CASES)


def fixes(specs: list[Spec], rule: str) -> list[str | None]:
    outcome = plan_resources(stack_args(specs).resources, {})
    assert outcome.plan is not None, outcome.gaps
    return [said_fix(outcome.plan, f) for f in outcome.plan.findings if f.rule == rule]


def test_readback_fixes_name_the_program_property_and_value() -> None:
    """Issue 15 item 4 for programs: the fix names the resource's own property (not a stack-file key)."""
    (fix,) = fixes(CASES["efa-interface-layout"][0], "efa-interface-layout")
    assert fix == (
        "add 8 network interface(s) with interface_type 'efa-only' (or 'efa'), one on each network_card_index 8-15 "
        'to `network_interfaces` of aws.ec2.LaunchTemplate "t"'
    )
    (fix,) = fixes(CASES["node-group-multi-az"][0], "node-group-multi-az")
    assert fix == (
        'launch aws.autoscaling.Group "g" into subnets of "us-east-2a" only (`vpc_zone_identifiers`) '
        "(drop those in us-east-2b)"
    )
    (fix,) = fixes(CASES["scaling-maximum"][0], "scaling-maximum")
    assert fix.startswith("budget for 4 instances") and fix.endswith("to 2 (if it is not meant to grow)")
    (fix,) = fixes(CASES["readback-gap"][0], "readback-gap")
    assert fix == (
        'set `vpc_zone_identifiers` of aws.autoscaling.Group "g" to a subnet created in this program with its '
        "availability zone set, or set the policy pack's `availabilityZone` config"
    )
    (fix,) = fixes(CASES["compute-unsized"][0], "compute-unsized")
    assert fix == (
        'set `spec.limits` of karpenter.sh/v1 NodePool "gpu" to the most you mean to pay for (cpu, or nvidia.com/gpu)'
    )
    (fix,) = fixes(CASES["scaling-size-refused"][0], "scaling-size-refused")
    assert fix == (
        'set `max_size` of aws.autoscaling.Group "g" to 4, or set `desired_capacity` of aws.autoscaling.Group "g" to 2'
    )
    (fix,) = fixes(CASES["instance-type-unlisted"][0], "instance-type-unlisted")
    assert fix.startswith("check p6e-gb300.36xlarge on AWS's instance type and pricing pages")


ENI = "aws:ec2/networkInterface:NetworkInterface"


def test_interface_fixes_name_the_list_element_the_program_declared() -> None:
    """A fix names the element of `networkInterfaces` to change by its position in the list, not only by its
    network card: here the efa-only primary is declared last (position 8) and card 3 twice (positions 2, 3)."""
    specs = cluster(cards=8, itype="p5.48xlarge")
    order = [1, 2, 3, 3, 4, 5, 6, 7, 0]
    lt = next(s for s in specs if s.type == LT)
    lt.props["networkInterfaces"] = [
        {"networkCardIndex": c, "deviceIndex": 0 if c == 0 else 1, "interfaceType": "efa-only"} for c in order
    ]
    assert sorted(f or "" for f in fixes(specs, "efa-interface-layout")) == [
        "add 24 network interface(s) with interface_type 'efa-only' (or 'efa'), one on each network_card_index "
        '8-31 to `network_interfaces` of aws.ec2.LaunchTemplate "t"',
        'remove `network_interfaces[3]` from aws.ec2.LaunchTemplate "t" (keep one EFA interface on '
        "network_card_index 3: network_interfaces[2])",
        'set `network_interfaces[8].interface_type` of aws.ec2.LaunchTemplate "t" to "efa" (network_card_index 0, '
        'device_index 0), or set `network_interfaces[8].interface_type` of aws.ec2.LaunchTemplate "t" to '
        '"interface" (an ENA interface)',
    ]
    beyond = cluster(cards=18)  # trn2.48xlarge has cards 0-15: positions 16 and 17 are on cards it lacks
    outcome_beyond = plan_resources(stack_args(beyond).resources, {})
    (problem,) = [f for f in outcome_beyond.plan.findings if f.severity == "error"]
    assert said_fix(outcome_beyond.plan, problem) == (
        # the last first: applied in order, each position still names its element
        'remove `network_interfaces[17]` from aws.ec2.LaunchTemplate "t"; remove `network_interfaces[16]` from '
        'aws.ec2.LaunchTemplate "t" (network_card_index 16-17; trn2.48xlarge has cards 0-15)'
    )


def test_an_instances_interface_fix_names_the_network_interface_attached_there() -> None:
    """An instance's interfaces are network interface resources attached at a position of its
    `networkInterfaces`; the type is set on that resource, so the fix names the one attached there."""
    sub = Spec(SUBNET, "s", {"id": "subnet-0aaa1111", "availabilityZone": "us-east-2b"})
    kinds = {0: "efa-only", 1: "efa"}
    enis = [
        Spec(ENI, f"eni-{c}", {"id": f"eni-0{c:03x}", "interfaceType": kinds[c], "subnetId": "subnet-0aaa1111"})
        for c in (1, 0)
    ]
    inst = Spec(
        INSTANCE,
        "gpu-0",
        {
            "instanceType": "p5en.48xlarge",
            "networkInterfaces": [  # card 1 first, the primary (card 0) second
                {"networkCardIndex": c, "deviceIndex": 0 if c == 0 else 1, "networkInterfaceId": f"eni-0{c:03x}"}
                for c in (1, 0)
            ],
        },
    )
    outcome = plan_resources(stack_args([sub, *enis, inst]).resources, {})
    assert outcome.plan is not None, outcome.gaps
    (f,) = [f for f in outcome.plan.findings if f.rule == "efa-interface-layout" and f.severity == "error"]
    assert said_fix(outcome.plan, f) == (
        "set `network_interfaces[1]` of aws.ec2.Instance \"gpu-0\" to a network interface of interface_type 'efa' "
        '(network_card_index 0, device_index 0), or set `network_interfaces[1]` of aws.ec2.Instance "gpu-0" to an '
        "ENA network interface"
    )
    assert f.resource is not None and f.resource.endswith("::gpu-0")  # the instance that declares the list


def test_pack_gives_the_case_fix_for_programs_and_the_remediation_for_stack_keys() -> None:
    from planner.policy.planning import describe, document, findings_as_violations

    outcome = plan_resources(stack_args(cluster(cards=8, pg=False)).resources, {})
    assert outcome.plan is not None
    doc = document(outcome.plan)  # the pack's messages are built from the one document
    (stack,) = doc.stacks
    by_rule = {f.rule: f for f in stack.findings}

    def said(f):  # noqa: ANN001, ANN202
        return describe(f, doc.rule(f.rule))

    # a read-back rule's fix names launch template properties: the pack gives it as is
    layout = by_rule["efa-interface-layout"]
    assert said(layout).endswith("Fix: " + layout.fix.text + ".")
    # a stack rule's fix names planner:cluster keys, which a plain program does not have: restated against the
    # resource it concerns (its class and name, the property that holds the value)
    other = next(f for f in stack.findings if f.fix and rules.get(f.rule).category != "readback")
    from planner.readback.program_terms import declared_as

    assert other.resource and declared_as(other.resource) in said(other)
    assert "node group '" not in said(other).split("Fix: ")[1] and ": " not in said(other).split("Fix: ")[1]
    assert all(v.message.startswith("[") for v in findings_as_violations(outcome, ("error", "warning", "info")))


def test_a_budget_not_allowing_an_incomplete_estimate_fails_on_an_unbounded_pool() -> None:
    strict = {"budget": {"total_usd": 100000}, "schedule": {"hours": 100}}
    assert fired(cluster() + pool(None), "budget-unbounded-compute", strict) == []
    (message,) = fired(cluster() + pool(None), "budget-incomplete-cost", strict)
    assert message.startswith("the total budget $100,000.00 cannot be checked: the estimate leaves out ")


def test_the_zone_gap_names_the_packs_setting_only_in_the_pack() -> None:
    """`planner plan --program` reads the same resources with no pack config: its message must not
    send the user to the pack's `availabilityZone` (the pack's own, above, does)."""
    from planner.readback.resources import Graph, from_policy
    from planner.readback.topology import rebuild

    graph = Graph(from_policy(r) for r in stack_args(CASES["readback-gap"][0]).resources)
    (gap,) = [g for g in rebuild(graph).gaps if "Availability Zone" in g.message]
    assert "policy pack" not in gap.message
    assert isinstance(gap.fix, Fix) and not gap.fix.reason and not gap.fix.alternatives
    (edit,) = gap.fix.edits  # the subnets of the group, in the program: an edit of the resource, no pack config
    assert edit.resource.endswith("aws:autoscaling/group:Group::g") and edit.path == ("vpcZoneIdentifiers",)


def test_a_readback_fix_that_sets_a_value_the_model_holds_is_an_edit_of_the_model() -> None:
    """Sizes AWS refuses, on a group that is planned: its `max_size` and `desired_capacity` are the node group's
    `max_count` and `count`, so the fix is edits at those model paths (said from provenance, as a rule's)."""
    outcome = plan_resources(stack_args(CASES["scaling-size-refused"][0]).resources, {})
    assert outcome.plan is not None
    (f,) = [f for f in outcome.plan.findings if f.rule == "scaling-size-refused"]
    assert f.fix is not None
    assert [(e.path, e.value, e.resource) for e in f.fix.edits] == [(("node_groups", 0, "max_count"), 4, "")]
    assert [(e.path, e.value, e.resource) for e in f.fix.alternatives] == [(("node_groups", 0, "count"), 2, "")]


def test_every_readback_fix_is_data() -> None:
    """Each read-back finding's fix is a `Fix`: edits of the model, edits of one of the program's resources (its
    property as the engine names it: camelCase, never a Python name), or a reason alone."""
    for rule, (trigger, *_) in CASES.items():
        outcome = plan_resources(stack_args(trigger).resources, {})
        assert outcome.plan is not None
        urns = {r.urn for r in stack_args(trigger).resources}
        for f in outcome.plan.findings:
            if f.fix is None:
                continue
            assert isinstance(f.fix, Fix), (rule, f.fix)
            for e in f.fix.edits + f.fix.alternatives:
                assert not e.resource or (e.resource in urns and all("_" not in str(p) for p in e.path)), (rule, e)
