"""The CrossGuard pack's policies, called as the Pulumi engine calls them (no Pulumi CLI).

Resources are given as a hand-written pulumi-aws program leaves them in a stack (outputs,
camelCase, references by id and ARN) or as `pulumi preview` sends them (ids unknown,
references only in property dependencies); each test checks the violations reported and
the URN they point at.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from planner.policy import POLICIES, policies
from planner.policy.testing import UNKNOWN, Spec, check, resource_args, stack_args, violations
from planner.readback.resources import Graph, from_policy
from planner.readback.topology import rebuild

ROOT = Path(__file__).resolve().parent.parent
LT, ASG, INSTANCE = "aws:ec2/launchTemplate:LaunchTemplate", "aws:autoscaling/group:Group", "aws:ec2/instance:Instance"
SUBNET, SG, PG = "aws:ec2/subnet:Subnet", "aws:ec2/securityGroup:SecurityGroup", "aws:ec2/placementGroup:PlacementGroup"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
SG_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
ACCOUNT = "123456789012"


@pytest.fixture(autouse=True)
def no_stack_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pack reads the stack's planner:cluster config; other tests' Pulumi config must not leak in."""
    import pulumi.runtime

    monkeypatch.setattr(pulumi.runtime, "get_config", lambda key: None)


LIMIT_IS = "; the limit is planner-budget's `maxTotalUsd`"  # the pack's own limit, named by its config key


def arn(kind: str, rid: str) -> str:
    return f"arn:aws:ec2:us-east-2:{ACCOUNT}:{kind}/{rid}"


def efa_interfaces(
    cards: int, sg: str = "sg-0efa000000000001", first: str = "efa", rest: str = "efa-only"
) -> list[dict[str, Any]]:
    return [
        {
            "networkCardIndex": c,
            "deviceIndex": 0 if c == 0 else 1,
            "interfaceType": first if c == 0 else rest,
            "securityGroups": [sg],
            "deleteOnTermination": "true",
        }
        for c in range(cards)
    ]


def self_sg(sg_id: str = "sg-0efa000000000001", ingress_self: bool = True, egress_self: bool = True) -> Spec:
    egress = [
        {
            "protocol": "-1",
            "fromPort": 0,
            "toPort": 0,
            "self": egress_self,
            "cidrBlocks": [] if egress_self else ["0.0.0.0/0"],
        }
    ]
    return Spec(
        SG,
        "efa",
        {
            "arn": arn("security-group", sg_id),
            "name": "efa-4c1f2e3",
            "vpcId": "vpc-0a1b2c3d4e5f60718",
            "ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": ingress_self}],
            "egress": egress,
        },
    )


def hand_written(
    instance_type: str = "trn2.48xlarge",
    cards: int = 16,
    desired: int = 2,
    zones: tuple[str, ...] = ("us-east-2b",),
    lustre: dict[str, Any] | None = None,
    template: dict[str, Any] | None = None,
    placement: bool = True,
    sg: Spec | None = None,
) -> list[Spec]:
    """A cluster written by hand with plain pulumi-aws resources, as its stack holds it after `pulumi up`."""
    subnets = [
        Spec(
            SUBNET,
            f"private-{z}",
            {
                "arn": arn("subnet", f"subnet-0{i}a2b3c4d5e6f70809"),
                "availabilityZone": z,
                "cidrBlock": f"10.0.{i}.0/24",
                "vpcId": "vpc-0a1b2c3d4e5f60718",
            },
        )
        for i, z in enumerate(zones)
    ]
    group = sg or self_sg()
    pg = Spec(
        PG,
        "trainers",
        {"name": "trainers-7a1b2c3", "strategy": "cluster", "arn": arn("placement-group", "trainers-7a1b2c3")},
    )
    lt_props = {
        "arn": arn("launch-template", "lt-0123456789abcdef0"),
        "name": "trainers-1d2e3f4",
        "instanceType": instance_type,
        "imageId": "ami-0123456789abcdef0",
        "latestVersion": 1,
        "networkInterfaces": efa_interfaces(cards),
        "metadataOptions": {"httpTokens": "required", "httpEndpoint": "enabled"},
    }
    lt_props.update(template or {})
    lt = Spec(LT, "trainers", lt_props)
    asg_props: dict[str, Any] = {
        "arn": f"arn:aws:autoscaling:us-east-2:{ACCOUNT}:autoScalingGroup:1:autoScalingGroupName/trainers",
        "name": "trainers-5e6f7a8",
        "desiredCapacity": desired,
        "maxSize": desired,
        "minSize": 0,
        "launchTemplate": {"id": "lt-0123456789abcdef0", "version": "$Latest"},
        "vpcZoneIdentifiers": [f"subnet-0{i}a2b3c4d5e6f70809" for i in range(len(zones))],
    }
    if placement:
        asg_props["placementGroup"] = "trainers-7a1b2c3"
    asg = Spec(ASG, "trainers", asg_props)
    specs = subnets + [group, pg, lt, asg]
    if lustre is not None:
        specs.append(
            Spec(
                FSX,
                "scratch",
                {
                    "arn": f"arn:aws:fsx:us-east-2:{ACCOUNT}:file-system/fs-0123456789abcdef0",
                    "subnetIds": "subnet-00a2b3c4d5e6f70809",
                    **lustre,
                },
            )
        )
    return specs


def by_name(specs: list[Spec], type_: str) -> Spec:
    return next(s for s in specs if s.type == type_)


# --- the pack ------------------------------------------------------------------------------


def test_main_only_builds_the_pack() -> None:
    """policy/__main__.py constructs one PolicyPack with every policy, and nothing else."""
    with mock.patch("pulumi_policy.PolicyPack") as pack:
        runpy.run_path(str(ROOT / "policy" / "__main__.py"), run_name="__main__")
    pack.assert_called_once_with(name="planner", policies=POLICIES)


def test_pack_files_name_python_runtime_and_this_project() -> None:
    import yaml

    spec = yaml.safe_load((ROOT / "policy" / "PulumiPolicy.yaml").read_text())
    assert spec["runtime"]["name"] == "python"
    assert spec["runtime"]["options"]["virtualenv"] == "../.venv"
    reqs = [
        line.strip()
        for line in (ROOT / "policy" / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert reqs == ["-e ..[pulumi]"]  # the pack needs the [pulumi] extra (pulumi-policy)


def test_enforcement_levels_and_config_schemas() -> None:
    levels = {p.name: p.enforcement_level.value for p in POLICIES}
    assert levels == {
        "planner-topology": "mandatory",
        "planner-topology-warnings": "advisory",
        "planner-budget": "mandatory",
        "planner-efa-security-group": "mandatory",
        "planner-lustre-security-group": "mandatory",
        "planner-efa-interfaces": "mandatory",
        "planner-imdsv2": "advisory",  # a warning: planner's policy (Security Hub EC2.8), not an AWS requirement
        "planner-no-public-ip-multi-card": "mandatory",
        "planner-lustre-values": "mandatory",
    }
    schema = policies.budget.config_schema.properties
    assert {"maxTotalUsd", "maxMonthlyUsd", "hours", "allowIncompleteCost"} <= set(schema)
    assert (
        "requireCompletePricing" not in schema
    )  # retired: `validate_budget` refuses it (test_a_retired_budget_key_is_refused)
    # a rule id, or a rule on one resource with the reason (`{rule, resource, reason}`)
    rule_id, scoped = policies.topology.config_schema.properties["suppress"]["items"]["anyOf"]
    assert "ultraserver-whole-units" in rule_id["enum"]
    assert (
        scoped["required"] == ["rule", "resource", "reason"]
        and "ultraserver-whole-units" in scoped["properties"]["rule"]["enum"]
    )


def test_example_config_matches_the_schemas() -> None:
    import json

    import jsonschema

    config = json.loads((ROOT / "policy" / "policy-config.json").read_text())
    named = {p.name: p for p in POLICIES}
    for name, value in config.items():
        assert name in named
        if isinstance(value, dict):
            props = {k: v for k, v in value.items() if k != "enforcementLevel"}
            schema = named[name].config_schema
            jsonschema.validate(
                props,
                {"type": "object", "properties": schema.properties if schema else {}, "additionalProperties": False},
            )


# --- rebuilding the topology ---------------------------------------------------------------


def test_rebuild_reads_the_cluster_from_hand_written_resources() -> None:
    specs = hand_written(lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1200})
    graph = Graph(from_policy(r) for r in stack_args(specs).resources)
    out = rebuild(graph)
    assert out.region == "us-east-2"
    assert out.data == {
        "availability_zone": "us-east-2b",
        "node_groups": [
            {
                "name": "trainers",
                "instance_type": "trn2.48xlarge",
                "count": 2,
                "efa": True,
                "availability_zone": "us-east-2b",
            }
        ],
        "placement_group": "cluster",
        "lustre": {"deployment_type": "SCRATCH_2", "storage_capacity_gib": 1200, "availability_zone": "us-east-2b"},
    }
    assert out.gaps == []


def test_rebuild_reads_instances_market_options_and_reservation() -> None:
    """Instances launched from one capacity-block template form one group; a bastion is not a node group."""
    lt = Spec(
        LT,
        "p5en",
        {
            "name": "p5en-1",
            "arn": arn("launch-template", "lt-0aaa"),
            "instanceType": "p5en.48xlarge",
            "networkInterfaces": efa_interfaces(16),
            "instanceMarketOptions": {"marketType": "capacity-block"},
            "capacityReservationSpecification": {
                "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}
            },
            "metadataOptions": {"httpTokens": "required"},
        },
    )
    subnet = Spec(SUBNET, "a", {"arn": arn("subnet", "subnet-0aaa1111"), "availabilityZone": "us-east-1d"})
    nodes = [
        Spec(INSTANCE, f"p5en-{i}", {"launchTemplate": {"id": "lt-0aaa"}, "subnetId": "subnet-0aaa1111"})
        for i in range(8)
    ]
    bastion = Spec(
        INSTANCE,
        "bastion",
        {"instanceType": "t3.micro", "subnetId": "subnet-0aaa1111", "associatePublicIpAddress": True},
    )
    out = rebuild(
        Graph(from_policy(r) for r in stack_args([subnet, lt, *nodes, bastion], region="us-east-1").resources)
    )
    assert out.data["node_groups"] == [
        # the bastion is a type AWS lists: planned beside the training group (issue 35), in URN order
        {
            "name": "bastion",
            "instance_type": "t3.micro",
            "count": 1,
            "public_ip": True,
            "efa": False,
            "availability_zone": "us-east-1d",
        },
        {
            "name": "p5en",
            "instance_type": "p5en.48xlarge",
            "count": 8,
            "purchase": "capacity-block",
            "efa": True,
            "capacity_reservation_id": "cr-0123456789abcdef0",
            "availability_zone": "us-east-1d",
        },
    ]
    assert out.data["placement_group"] == "none"


def test_an_asg_over_two_zones_with_a_cluster_placement_group_is_one_finding_not_a_split() -> None:
    """AWS: "A cluster placement group is a logical grouping of instances within a single Availability Zone."
    (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html). The group is read as it is,
    with both AZs, and one error names the failure; no even split across AZs is made up."""
    args = stack_args(hand_written(desired=5, zones=("us-east-2a", "us-east-2b")))
    out = rebuild(Graph(from_policy(r) for r in args.resources))
    groups = [(g["name"], g["count"], g["availability_zone"]) for g in out.data["node_groups"]]
    assert groups == [("trainers", 5, "us-east-2a")]
    assert out.launches["trainers"].zones == ("us-east-2a", "us-east-2b")
    found = [m for m, _ in violations(policies.topology, args) if "[node-group-multi-az]" in m]
    assert len(found) == 1 and "us-east-2a, us-east-2b" in found[0] and "launches" in found[0]


def test_rebuild_at_preview_follows_property_dependencies() -> None:
    """At preview ids and ARNs are unknown: references resolve through the engine's property dependencies."""
    subnet = Spec(SUBNET, "private", {"arn": UNKNOWN, "availabilityZone": "us-east-2b", "vpcId": UNKNOWN})
    pg = Spec(PG, "trainers", {"name": "trainers-7a1b2c3", "strategy": "cluster", "arn": UNKNOWN})
    lt = Spec(
        LT,
        "trainers",
        {
            "arn": UNKNOWN,
            "name": "trainers-1d2e3f4",
            "instanceType": "trn2u.48xlarge",
            "networkInterfaces": efa_interfaces(16, sg=UNKNOWN),
            "metadataOptions": {"httpTokens": "required"},
        },
    )
    asg = Spec(
        ASG,
        "trainers",
        {
            "desiredCapacity": 6,
            "maxSize": 6,
            "launchTemplate": {"id": UNKNOWN, "version": "$Latest"},
            "vpcZoneIdentifiers": [UNKNOWN],
            "placementGroup": "trainers-7a1b2c3",
            "availabilityZones": UNKNOWN,
        },
        property_dependencies={"launchTemplate": [lt], "vpcZoneIdentifiers": [subnet]},
    )
    args = stack_args([subnet, pg, lt, asg])
    out = rebuild(Graph(from_policy(r) for r in args.resources))
    assert out.data["node_groups"] == [
        {
            "name": "trainers",
            "instance_type": "trn2u.48xlarge",
            "count": 6,
            "efa": True,
            "availability_zone": "us-east-2b",
        }
    ]
    # and the topology policy names the Auto Scaling group, whose size is not whole UltraServers (a warning:
    # fewer instances than booked is allowed, the idle members are paid for)
    found = violations(policies.topology_warnings, args)
    assert any("[ultraserver-whole-units]" in m and "6 trn2u.48xlarge" in m for m, _ in found)
    assert {u for m, u in found if "ultraserver-whole-units" in m} == {asg.urn}


def test_no_accelerated_nodes_means_nothing_to_check() -> None:
    web = Spec(INSTANCE, "web", {"instanceType": "t3.micro", "metadataOptions": {"httpTokens": "required"}})
    assert violations(policies.topology, stack_args([web])) == []
    assert violations(policies.topology_warnings, stack_args([web])) == []


def test_unknown_zone_is_reported_not_guessed() -> None:
    lt = Spec(LT, "trainers", {"name": "t", "instanceType": "trn2.48xlarge", "networkInterfaces": efa_interfaces(16)})
    asg = Spec(
        ASG,
        "trainers",
        {"desiredCapacity": 2, "launchTemplate": {"name": "t"}, "vpcZoneIdentifiers": ["subnet-0fromconfig"]},
    )
    args = stack_args([lt, asg])
    assert violations(policies.topology, args) == []
    warnings = [(m, u) for m, u in violations(policies.topology_warnings, args) if "Availability Zone" in m]
    # the cluster is still planned (types, counts, prices); the unknown AZ is stated once, never guessed
    assert [(m.split(";")[0], u) for m, u in warnings] == [
        (
            "[readback-gap] cannot tell the Availability Zone of any node group (their subnets are not resources of "
            "this stack)",
            asg.urn,
        )
    ]
    # with the zone given in the policy config the cluster is planned
    args = stack_args([lt, asg], config={"availabilityZone": "us-east-2b"})
    assert not any(
        "cannot tell the Availability Zone of any" in m for m, _ in violations(policies.topology_warnings, args)
    )


# --- planner-topology ------------------------------------------------------------------------


def test_valid_hand_written_cluster_passes_topology() -> None:
    specs = hand_written(lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1200})
    assert violations(policies.topology, stack_args(specs)) == []


def test_topology_reports_error_findings_on_the_resource_at_fault() -> None:
    specs = hand_written(instance_type="trn2u.48xlarge", desired=6)
    found = violations(policies.topology, stack_args(specs))
    asg = by_name(specs, ASG)
    assert [(m.split(";")[0], u) for m, u in found] == [
        (
            "[ultraserver-requires-lustre] 2 UltraServers are clustered without FSx for Lustre (6 instances, in whole "
            "UltraServers as they are booked: node group 'trainers' 6 trn2u.48xlarge in 2 u-trn2x64 UltraServers of 4)",
            asg.urn,
        )
    ]
    warned = violations(policies.topology_warnings, stack_args(specs))
    assert any(
        m.startswith(
            "[ultraserver-whole-units] node group 'trainers' declares 6 trn2u.48xlarge, not a whole number "
            "of u-trn2x64 UltraServers (4 instances each)"
        )
        and u == asg.urn
        for m, u in warned
    )


def test_topology_suppress_config() -> None:
    specs = hand_written(instance_type="trn2u.48xlarge", desired=6)
    args = stack_args(specs, config={"suppress": ["ultraserver-whole-units"]})
    assert any("ultraserver-whole-units" in m for m, _ in violations(policies.topology_warnings, stack_args(specs)))
    assert not any("ultraserver-whole-units" in m for m, _ in violations(policies.topology_warnings, args))
    bad = violations(policies.topology, stack_args(specs, config={"suppress": ["ultraserver-whole-unit"]}))
    assert (
        "policy config `suppress` names unknown rule 'ultraserver-whole-unit'; `planner rules` lists the rule ids",
        None,
    ) in bad


def test_topology_honours_the_stacks_declared_suppressions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stack built from planner:cluster config keeps its suppressions in the pack."""
    import json

    import pulumi.runtime

    specs = hand_written(instance_type="trn2u.48xlarge", desired=6)
    declared = {
        "suppress": [{"rule": "ultraserver-whole-units", "reason": "migrating to whole UltraServers next sprint"}]
    }
    monkeypatch.setattr(
        pulumi.runtime, "get_config", lambda k: json.dumps(declared) if k == "planner:cluster" else None
    )
    assert not any("ultraserver-whole-units" in m for m, _ in violations(policies.topology_warnings, stack_args(specs)))


def test_topology_reports_input_the_planner_refuses() -> None:
    """A subnet in another region than the provider: the parser's problem, on the Auto Scaling group."""
    specs = hand_written(zones=("us-west-2a",))
    found = violations(policies.topology, stack_args(specs, region="us-east-2"))
    asg = by_name(specs, ASG)
    assert found and all(u == asg.urn for _, u in found)
    assert any("expected an Availability Zone of us-east-2" in m for m, _ in found)


# --- planner-efa-security-group ------------------------------------------------------------


def test_efa_security_group_with_self_rules_passes() -> None:
    assert violations(policies.efa_security_group, stack_args(hand_written())) == []


def test_efa_security_group_without_self_egress() -> None:
    sg = self_sg(egress_self=False)
    found = violations(policies.efa_security_group, stack_args(hand_written(sg=sg)))
    assert len(found) == 1
    message, where = found[0]
    assert where == sg.urn
    assert "security group 'efa' is used by EFA interfaces (launch template trainers)" in message
    assert "does not allow all traffic outbound to itself" in message


def test_an_interfaces_groups_are_judged_together_as_aws_applies_them() -> None:
    """eksctl's layout: every EFA interface carries a shared group (no self rules) and the EFA group (all
    traffic with itself). AWS: "When you associate multiple security groups with an instance, the rules from
    each security group are effectively aggregated to create one set of rules" (EC2 User Guide, security group
    rules): no finding. The same shared group alone on the interfaces is still reported."""
    efa = self_sg()
    shared = Spec(
        SG,
        "shared",
        {
            "arn": arn("security-group", "sg-0sha000000000001"),
            "name": "shared-1",
            "vpcId": "vpc-0a1b2c3d4e5f60718",
            "ingress": [{"protocol": "tcp", "fromPort": 22, "toPort": 22, "cidrBlocks": ["10.0.0.0/16"]}],
            "egress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "cidrBlocks": ["0.0.0.0/0"]}],
        },
    )
    both = [dict(n, securityGroups=["sg-0sha000000000001", "sg-0efa000000000001"]) for n in efa_interfaces(16)]
    specs = [r for r in hand_written(sg=efa) if r.type != LT] + [shared]
    lt = next(r for r in hand_written(sg=efa) if r.type == LT)
    together = Spec(LT, lt.name, dict(lt.props, networkInterfaces=both))
    assert violations(policies.efa_security_group, stack_args([*specs, together])) == []
    alone = [dict(n, securityGroups=["sg-0sha000000000001"]) for n in efa_interfaces(16)]
    found = violations(
        policies.efa_security_group, stack_args([*specs, Spec(LT, lt.name, dict(lt.props, networkInterfaces=alone))])
    )
    assert [u for _, u in found] == [shared.urn]


def test_efa_security_group_rules_as_separate_resources_at_preview() -> None:
    """Rules as aws.ec2.SecurityGroupRule resources, ids unknown: linked through property dependencies."""
    sg = Spec(SG, "efa", {"arn": UNKNOWN, "name": "efa-1", "ingress": UNKNOWN, "egress": UNKNOWN})
    ingress = Spec(
        SG_RULE,
        "efa-in",
        {"type": "ingress", "protocol": "-1", "fromPort": 0, "toPort": 0, "self": True, "securityGroupId": UNKNOWN},
        property_dependencies={"securityGroupId": [sg]},
    )
    egress = Spec(
        SG_RULE,
        "efa-out",
        {
            "type": "egress",
            "protocol": "-1",
            "fromPort": 0,
            "toPort": 0,
            "securityGroupId": UNKNOWN,
            "sourceSecurityGroupId": UNKNOWN,
        },
        property_dependencies={"securityGroupId": [sg], "sourceSecurityGroupId": [sg]},
    )
    lt = Spec(
        LT,
        "trainers",
        {"name": "t", "instanceType": "trn2.48xlarge", "networkInterfaces": efa_interfaces(16, sg=UNKNOWN)},
        property_dependencies={"networkInterfaces": [sg]},
    )
    assert violations(policies.efa_security_group, stack_args([sg, ingress, egress, lt])) == []
    found = violations(policies.efa_security_group, stack_args([sg, ingress, lt]))
    assert [(u, "outbound to itself" in m) for m, u in found] == [(sg.urn, True)]


# --- resource policies -----------------------------------------------------------------------


def test_efa_layout_is_reported_once_by_the_topology() -> None:
    """One policy owns each rule: the EFA layout is the topology's (it knows the type the template is launched as);
    `planner-efa-interfaces` keeps what only the resource shows (security groups set at the top level). Fewer EFA
    interfaces than cards is allowed (AWS recommends one per card): advisory; an efa-only primary: mandatory."""
    short = hand_written(cards=4)
    assert violations(policies.efa_interfaces, resource_args(by_name(short, LT))) == []
    (found,) = [
        m
        for m, _ in violations(policies.topology_warnings, stack_args(short))
        if m.startswith("[efa-interface-layout]")
    ]
    assert "missing card(s) 4-15" in found
    assert not [m for m, _ in violations(policies.topology, stack_args(short)) if "efa-interface-layout" in m]
    primary = hand_written(template={"networkInterfaces": efa_interfaces(16, first="efa-only")})
    assert violations(policies.efa_interfaces, resource_args(by_name(primary, LT))) == []
    assert [m.split("]")[0] for m, _ in violations(policies.topology, stack_args(primary))] == ["[efa-interface-layout"]


def test_efa_interfaces_groups_per_interface() -> None:
    lt = by_name(hand_written(), LT)
    bad = Spec(
        LT,
        "bad",
        dict(lt.props, networkInterfaces=efa_interfaces(16, first="efa-only"), vpcSecurityGroupIds=["sg-0abc"]),
    )
    messages = [m for m, _ in violations(policies.efa_interfaces, resource_args(bad))]
    assert [m.split(";")[0] for m in messages] == [
        "[interface-security-groups] security groups are set at the top level of a launch template that declares network interfaces"
    ]


def test_lustre_values_are_reported_once_by_their_resource_policy() -> None:
    specs = hand_written(lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1000})
    everything = check(specs)
    assert [r.policy for r in everything if "[lustre-capacity]" in r.message] == ["planner-lustre-values"]


def test_imdsv2() -> None:
    lt = by_name(hand_written(), LT)
    assert violations(policies.imdsv2, resource_args(lt)) == []
    optional = Spec(LT, "v1", dict(lt.props, metadataOptions={"httpTokens": "optional"}))
    unset = Spec(INSTANCE, "node", {"instanceType": "trn2.48xlarge"})
    assert violations(policies.imdsv2, resource_args(optional))[0][0].startswith(
        "[imdsv2-required] metadataOptions.httpTokens is 'optional': IAM role credentials can be retrieved without a session token"
    )
    assert violations(policies.imdsv2, resource_args(unset))[0][0].startswith(
        "[imdsv2-required] metadataOptions.httpTokens is not set, so the account's IMDS default for the Region decides"
    )
    # the message is built from the one document: the finding's message, then the rule's own remediation
    from planner.core import rules

    ((message, _),) = violations(policies.imdsv2, resource_args(optional))
    assert message.endswith(
        f"({rules.get('imdsv2-required').source}); AWS does not require IMDSv2. "
        f"Fix: {rules.get('imdsv2-required').remediation}"
    )
    # a value computed from another resource at preview is left to the update
    later = Spec(LT, "later", dict(lt.props, metadataOptions={"httpTokens": UNKNOWN}))
    assert violations(policies.imdsv2, resource_args(later)) == []


# --- component-made clusters (modelled on what issue 5 says the components create) ---------

COMPONENT = "planner:index:UltraServerCluster"


def component_made(instances: int = 16, public_ip: bool = False, lustre_capacity: int = 4800) -> list[Spec]:
    """An UltraServer cluster as planner components register it: children of one component resource."""
    top = Spec(COMPONENT, "prod", {})
    net = Spec("planner:index:EfaNetwork", "prod-net", {}, parent=top)
    subnet = Spec(
        SUBNET,
        "prod-net-subnet",
        {"arn": arn("subnet", "subnet-0bbb2222"), "availabilityZone": "us-east-2b"},
        parent=net,
    )
    sg = Spec(
        SG,
        "prod-net-efa",
        {
            "arn": arn("security-group", "sg-0bbb2222"),
            "name": "prod-net-efa",
            "ingress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],
            "egress": [{"protocol": "-1", "fromPort": 0, "toPort": 0, "self": True}],
        },
        parent=net,
    )
    interfaces = efa_interfaces(16, sg="sg-0bbb2222")
    if public_ip:
        interfaces[0]["associatePublicIpAddress"] = "true"
    lt = Spec(
        LT,
        "prod-trainers",
        {
            "arn": arn("launch-template", "lt-0bbb2222"),
            "name": "prod-trainers",
            "instanceType": "trn2u.48xlarge",
            "networkInterfaces": interfaces,
            "metadataOptions": {"httpTokens": "required"},
            "instanceMarketOptions": {"marketType": "capacity-block"},
            "capacityReservationSpecification": {
                "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}
            },
        },
        parent=top,
    )
    nodes = [
        Spec(
            INSTANCE,
            f"prod-trainers-{i}",
            {
                "launchTemplate": {"id": "lt-0bbb2222", "version": "$Latest"},
                "subnetId": "subnet-0bbb2222",
                "availabilityZone": "us-east-2b",
            },
            parent=top,
        )
        for i in range(instances)
    ]
    fs = Spec(
        FSX,
        "prod-lustre",
        {
            "arn": f"arn:aws:fsx:us-east-2:{ACCOUNT}:file-system/fs-0bbb2222",
            "deploymentType": "PERSISTENT_2",
            "storageCapacity": lustre_capacity,
            "perUnitStorageThroughput": 250,
            "subnetIds": "subnet-0bbb2222",
            "efaEnabled": False,
        },
        parent=top,
    )
    return [top, net, subnet, sg, lt, *nodes, fs]


def test_component_made_cluster_is_rebuilt_and_passes() -> None:
    specs = component_made()
    args = stack_args(specs)
    out = rebuild(Graph(from_policy(r) for r in args.resources))
    assert out.data["node_groups"] == [
        {
            "name": "prod-trainers",
            "instance_type": "trn2u.48xlarge",
            "count": 16,
            "purchase": "capacity-block",
            "efa": True,
            "capacity_reservation_id": "cr-0123456789abcdef0",
            "availability_zone": "us-east-2b",
        }
    ]
    assert out.data["lustre"] == {
        "deployment_type": "PERSISTENT_2",
        "storage_capacity_gib": 4800,
        "per_unit_storage_throughput": 250,
        "efa_enabled": False,
        "availability_zone": "us-east-2b",
    }
    for policy in (policies.topology, policies.efa_security_group):
        assert violations(policy, args) == []
    for spec in specs:
        for policy in (policies.efa_interfaces, policies.imdsv2):
            assert violations(policy, resource_args(spec)) == []


def test_component_made_cluster_of_broken_ultraservers() -> None:
    specs = component_made(instances=14)
    assert violations(policies.topology, stack_args(specs)) == []  # fewer instances than booked: allowed
    found = violations(policies.topology_warnings, stack_args(specs))
    first_node = next(s for s in specs if s.type == INSTANCE)
    assert [(m.split("]")[0], u) for m, u in found if "ultraserver-whole-units" in m] == [
        ("[ultraserver-whole-units", first_node.urn)
    ]
    assert "child of" not in first_node.urn and first_node.urn.endswith(
        f"{COMPONENT}$aws:ec2/instance:Instance::prod-trainers-0"
    )


# --- planner-budget --------------------------------------------------------------------------

PRICE_BOOK = """\
instances:
  - {instance_type: trn2.48xlarge, region: us-east-2, purchase: on-demand, usd_per_hour: 40.0,
     source: "test book", as_of: 2026-11-01}
lustre:
  - {region: us-east-2, deployment_type: SCRATCH_2, usd_per_gb_month: 0.146, source: "test book", as_of: 2026-11-01}
"""


@pytest.fixture
def price_book(tmp_path: Path) -> str:
    path = tmp_path / "prices.yaml"
    path.write_text(PRICE_BOOK)
    return str(path)


ROOT_VOLUME = {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": 500, "volumeType": "gp3"}}]}


def test_budget_within_limits(price_book: str) -> None:
    """A complete estimate (the template gives its root volume) under the pack's limit passes."""
    specs = hand_written(lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1200}, template=ROOT_VOLUME)
    # 2 x 40 $/h x 100 h = 8,000 $, plus 1,200 GB x 0.146 $/GB-month x 100/730 = 24.00 $, plus 1,000 GiB of gp3
    config = {"maxTotalUsd": 9000, "hours": 100, "priceBook": price_book}
    assert violations(policies.budget, stack_args(specs, config=config)) == []


def test_an_incomplete_estimate_fails_the_packs_limits_unless_allowed(price_book: str) -> None:
    """The root volumes' size is unknown: the total is a lower bound, so a limit above it cannot be shown to
    hold (`budget-incomplete-cost`, as `planner plan` says), unless `allowIncompleteCost` checks the priced part;
    a priced part already over the limit is `budget-exceeded` either way."""
    specs = hand_written(lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1200})
    config = {"maxTotalUsd": 8024.01, "hours": 100, "priceBook": price_book}
    ((message, urn),) = violations(policies.budget, stack_args(specs, config=config))
    assert (message, urn) == (
        "[budget-incomplete-cost] the total budget $8,024.01 cannot be checked: the estimate leaves out "
        "trainers root volumes (size unknown: the AMI's default mapping) (cost at least $8,024.00)"
        f"{LIMIT_IS}. Fix: price what is "
        "missing (a price book that has its price), or set `allowIncompleteCost` in the planner-budget policy config "
        "to true (to check the budget against the priced part only). "
        "Estimate: at least $8,024.00 for 100 h; left out: trainers root volumes (size unknown: the AMI's default mapping)",
        None,
    )
    allowed = dict(config, allowIncompleteCost=True)
    assert violations(policies.budget, stack_args(specs, config=allowed)) == []
    over = violations(policies.budget, stack_args(specs, config=dict(allowed, maxTotalUsd=8000)))
    assert [m.split(" Fix:")[0] for m, _ in over] == [
        "[budget-exceeded] estimated total is at least $8,024.00 (some cost left out), above the total budget "
        "$8,000.00 by at least $24.00; the limit is planner-budget's `maxTotalUsd`."
    ]


def test_a_retired_budget_key_is_refused() -> None:
    """`requireCompletePricing` (before 0.1.0) is not silently ignored: the budget fails, naming its successor;
    any other key the policy does not take fails it too (a misspelt limit would be no limit), and so does
    `allowIncompleteCost` without the pack's limits (the stack's budget has its own key)."""
    old = violations(
        policies.budget, stack_args(hand_written(), config={"maxTotalUsd": 1e9, "requireCompletePricing": True})
    )
    assert old == [
        (
            "policy config `requireCompletePricing` is no longer read: an incomplete estimate now fails the budget "
            "(budget-incomplete-cost) unless `allowIncompleteCost: true`, which checks the limits against the priced "
            "part; remove the key",
            None,
        )
    ]
    alone = violations(policies.budget, stack_args(hand_written(), config={"allowIncompleteCost": True}))
    assert alone == [
        (
            "policy config `allowIncompleteCost` applies to this policy's `maxTotalUsd` / `maxMonthlyUsd`, and "
            "neither is set; a stack's own budget is checked against the priced part with "
            "`budget.allow_incomplete: true` in its planner:cluster config",
            None,
        )
    ]
    typo = violations(policies.budget, stack_args(hand_written(), config={"maxTotalUSD": 1}))
    assert typo == [
        (
            "policy config `maxTotalUSD` is not a planner-budget key; it takes "
            + ", ".join(sorted(policies.budget.config_schema.properties)),
            None,
        )
    ]


def test_budget_exceeded_total_and_monthly(price_book: str) -> None:
    specs = hand_written(lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1200})
    config = {"maxTotalUsd": 8000, "maxMonthlyUsd": 50000, "hours": 100, "priceBook": price_book}
    found = violations(policies.budget, stack_args(specs, config=config))
    # monthly: (80 + 1,200 x 0.146 / 730) $/h x 730 h = 58,575.20 $
    assert [u for _, u in found] == [None, None]
    messages = sorted(m for m, _ in found)
    # the template declares no root volume: left out, so each figure is a lower bound; the limits are the
    # pack's, so its messages name the pack's config keys, not a stack file's
    assert messages[0].startswith(
        "[budget-exceeded] estimated monthly cost (730 h) is at least $58,575.20 (some cost left "
        "out), above the monthly budget $50,000.00 by at least $8,575.20; the limit is planner-budget's `maxMonthlyUsd`."
    )
    assert messages[1].startswith(
        "[budget-exceeded] estimated total is at least $8,024.00 (some cost left out), above "
        "the total budget $8,000.00 by at least $24.00; the limit is planner-budget's `maxTotalUsd`."
    )
    assert "budget.total_usd" not in messages[1] and "budget.monthly_usd" not in messages[0]
    assert all(
        m.endswith(
            "Estimate: at least $8,024.00 for 100 h; left out: trainers root volumes (size unknown: the AMI's default mapping)"
        )
        for m in messages
    )


def test_budget_hours_default_to_the_declared_schedule_then_a_month(
    price_book: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import pulumi.runtime

    specs = hand_written()
    args = stack_args(specs, config={"maxTotalUsd": 50000, "priceBook": price_book})
    # no hours anywhere: one billing month under the pack's limit, 2 x 40 x 730 = 58,400 $
    assert "estimated total is at least $58,400.00" in violations(policies.budget, args)[0][0]
    declared: dict[str, Any] = {"schedule": {"hours": 168}, "budget": {"total_usd": 10000}}
    monkeypatch.setattr(
        pulumi.runtime, "get_config", lambda k: json.dumps(declared) if k == "planner:cluster" else None
    )
    # the stack's schedule: 2 x 40 x 168 = 13,440 $ against the policy's 50,000, the root volumes left out
    allowed = stack_args(specs, config={"maxTotalUsd": 50000, "priceBook": price_book, "allowIncompleteCost": True})
    assert violations(policies.budget, allowed) == []
    assert [m.split("]")[0] for m, _ in violations(policies.budget, args)] == ["[budget-incomplete-cost"]
    # and without policy limits, the stack's own budget
    found = violations(policies.budget, stack_args(specs, config={"priceBook": price_book}))
    assert (
        "estimated total is at least $13,440.00 (some cost left out), above the total budget $10,000.00" in found[0][0]
    )
    # the stack's own budget without hours: its total cannot be checked (as `planner plan` says), no month assumed
    declared = {"budget": {"total_usd": 10**6}}
    ((message, _),) = violations(policies.budget, stack_args(specs, config={"priceBook": price_book}))
    assert message.startswith(
        "[budget-incomplete-cost] the total budget $1,000,000.00 cannot be checked: the estimate leaves out trainers "
        "root volumes (size unknown: the AMI's default mapping), the hours (schedule.hours or a workload)"
    )
    declared = {"budget": {"total_usd": 10**6, "allow_incomplete": True}}  # the stack's own key, honoured
    assert violations(policies.budget, stack_args(specs, config={"priceBook": price_book})) == []


def test_budget_unknown_prices(price_book: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """p5e on-demand is not sold (no price) in us-east-2: a lower bound can still exceed; under the limit the
    budget cannot be checked unless an incomplete estimate is allowed. `purchase-not-sold` itself is the
    warnings' (advisory), never the budget's too: each finding in one policy."""
    import json

    import pulumi.runtime

    specs = hand_written(
        instance_type="p5e.48xlarge", cards=32, lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1200}
    )
    config = {"maxTotalUsd": 1000, "hours": 100, "priceBook": price_book}
    found = violations(policies.budget, stack_args(specs, config=config))
    assert [m.split(" (cost")[0] for m, _ in found] == [
        "[budget-incomplete-cost] the total budget $1,000.00 cannot be checked: the estimate leaves out "
        "trainers (p5e.48xlarge), trainers root volumes (size unknown: the AMI's default mapping)"
    ]
    assert violations(policies.budget, stack_args(specs, config=dict(config, allowIncompleteCost=True))) == []
    below = dict(config, maxTotalUsd=10, allowIncompleteCost=True)
    assert (
        "is at least $24.00 (some cost left out)" in violations(policies.budget, stack_args(specs, config=below))[0][0]
    )
    for declared in (None, {"schedule": {"hours": 100}, "budget": {"total_usd": 1000}}):
        monkeypatch.setattr(
            pulumi.runtime,
            "get_config",
            lambda k, d=declared: json.dumps(d) if d and k == "planner:cluster" else None,
        )
        reporting: dict[str, set[str]] = {}
        for r in check(specs, config={"planner-budget": config} if declared is None else None):
            if r.message.startswith("["):
                reporting.setdefault(r.message[1:].split("]")[0], set()).add(r.policy)
        # the purchase option AWS does not sell is set by the auto scaling group: the warnings' finding
        assert reporting["purchase-not-sold"] == {"planner-topology-warnings"}
        assert reporting["budget-incomplete-cost"] == {"planner-budget"}
        assert all(len(policies_) == 1 for policies_ in reporting.values()), reporting


def test_budget_config_problems() -> None:
    found = violations(
        policies.budget, stack_args(hand_written(), config={"maxTotalUsd": 1, "priceBook": "/nonexistent.yaml"})
    )
    books = "current, capacity-blocks-2024"
    assert found == [(f"policy config `priceBook`: no such file; expected a YAML price book or one of: {books}", None)]
    assert violations(policies.budget, stack_args(hand_written(), config={})) == []


def test_check_applies_a_policy_pack_config_file() -> None:
    """`check` takes the --policy-pack-config shape: levels, properties, disabled policies."""
    from planner.policy.testing import check

    lt = by_name(hand_written(), LT)
    v1 = Spec(LT, "v1", dict(lt.props, metadataOptions={"httpTokens": "optional"}))
    imds = [policies.imdsv2]
    assert [(r.policy, r.enforcement, r.urn) for r in check([v1], imds)] == [("planner-imdsv2", "advisory", v1.urn)]
    assert [r.enforcement for r in check([v1], imds, config={"planner-imdsv2": "mandatory"})] == ["mandatory"]
    assert check([v1], imds, config={"planner-imdsv2": {"enforcementLevel": "disabled"}}) == []


def test_rebuild_reads_eks_managed_node_groups() -> None:
    specs = hand_written()
    lt = by_name(specs, LT)
    ng = Spec(
        "aws:eks/nodeGroup:NodeGroup",
        "trainers-eks",
        {
            "clusterName": "training",
            "capacityType": "CAPACITY_BLOCK",
            "subnetIds": ["subnet-00a2b3c4d5e6f70809"],
            "scalingConfig": {"desiredSize": 4, "maxSize": 4, "minSize": 0},
            "launchTemplate": {"id": "lt-0123456789abcdef0", "version": "1"},
        },
    )
    specs = [s for s in specs if s.type != ASG] + [ng]
    out = rebuild(Graph(from_policy(r) for r in stack_args(specs).resources))
    assert out.data["node_groups"] == [
        {
            "name": "trainers-eks",
            "instance_type": "trn2.48xlarge",
            "count": 4,
            "efa": True,
            "purchase": "capacity-block",
            "availability_zone": "us-east-2b",
        }
    ]
    assert out.urn_of(("config", "planner:cluster", "node_groups", 0, "purchase")) == ng.urn
    assert out.urn_of(("config", "planner:cluster", "node_groups", 0, "instance_type")) == lt.urn


def test_core_does_not_import_the_pack() -> None:
    """The pack imports the core; the core (and the CLI's startup) never imports pulumi or pulumi_policy."""
    import subprocess
    import sys

    code = (
        "import sys, planner.cli, planner.core.planning.pipeline, planner.core.rules; planner.core.rules.registry(); "
        "print(sorted(m for m in ('pulumi', 'pulumi_policy', 'planner.policy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- the rules through the pack (each finding on the resource at fault) --------------------


def _rules_found(policy: Any, specs: list[Spec], **config: Any) -> dict[str, set[str | None]]:
    out: dict[str, set[str | None]] = {}
    for message, urn in violations(policy, stack_args(specs, config=config or None)):
        out.setdefault(message[1:].split("]")[0], set()).add(urn)
    return out


def test_resource_policies_run_the_rules_they_reuse() -> None:
    from planner.core import rules
    from planner.policy import resource_checks

    assert set(resource_checks.LUSTRE_RULES + resource_checks.PUBLIC_IP_RULES) <= set(rules.registry())
    # the resource policies are mandatory, so every rule they report must be an error rule
    # (defaults: mandatory for errors, advisory for warnings)
    assert {rules.get(r).severity for r in resource_checks.LUSTRE_RULES + resource_checks.PUBLIC_IP_RULES} == {"error"}


def test_efa_across_zones_is_an_error_on_the_auto_scaling_group() -> None:
    specs = hand_written(desired=4, zones=("us-east-2a", "us-east-2b"))
    found = _rules_found(policies.topology, specs)
    assert found["node-group-multi-az"] == {by_name(specs, ASG).urn}


def test_missing_placement_group_is_advisory_on_the_auto_scaling_group() -> None:
    specs = hand_written(placement=False)
    assert "placement-group" not in _rules_found(policies.topology, specs)
    assert _rules_found(policies.topology_warnings, specs)["placement-group"] == {by_name(specs, ASG).urn}
    assert "placement-group" not in _rules_found(policies.topology_warnings, specs, suppress=["placement-group"])


def test_lustre_findings_point_at_the_file_system() -> None:
    specs = hand_written(lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1000})
    fs = by_name(specs, FSX)
    # one policy owns the rule: the resource policy, on the file system; the topology leaves it out
    assert "lustre-capacity" not in _rules_found(policies.topology, specs)
    found = violations(policies.lustre_values, resource_args(fs))
    assert [m.split("]")[0] for m, _ in found] == ["[lustre-capacity"]
    assert "1,000 GiB is not a valid capacity for SCRATCH_2" in found[0][0]
    persistent = Spec(
        FSX,
        "p2",
        {
            "deploymentType": "PERSISTENT_2",
            "storageCapacity": 2400,
            "perUnitStorageThroughput": 300,
            "efaEnabled": True,
        },
    )
    assert [m.split("]")[0] for m, _ in violations(policies.lustre_values, resource_args(persistent))] == [
        "[lustre-throughput"
    ]
    scratch_efa = Spec(FSX, "s1", {"deploymentType": "SCRATCH_1", "storageCapacity": 3600, "efaEnabled": True})
    assert [m.split("]")[0] for m, _ in violations(policies.lustre_values, resource_args(scratch_efa))] == [
        "[lustre-efa"
    ]
    fine = Spec(FSX, "ok", {"deploymentType": "PERSISTENT_2", "storageCapacity": 4800, "perUnitStorageThroughput": 250})
    assert violations(policies.lustre_values, resource_args(fine)) == []


def test_lustre_in_another_zone() -> None:
    specs = hand_written(
        zones=("us-east-2b", "us-east-2c"), desired=2, lustre={"deploymentType": "SCRATCH_2", "storageCapacity": 1200}
    )
    asg = by_name(specs, ASG)
    asg.props["vpcZoneIdentifiers"] = ["subnet-01a2b3c4d5e6f70809"]  # compute in us-east-2c, FSx in us-east-2b
    # a warning (slower, cross-AZ charges), so advisory: planner-topology-warnings, not the mandatory topology
    assert _rules_found(policies.topology_warnings, specs)["lustre-same-az"] == {by_name(specs, FSX).urn}
    assert "lustre-same-az" not in _rules_found(policies.topology, specs)


def test_public_ip_on_a_multi_card_type() -> None:
    interfaces = efa_interfaces(16)
    interfaces[0]["associatePublicIpAddress"] = "true"
    specs = hand_written(template={"networkInterfaces": interfaces})
    lt = by_name(specs, LT)
    assert "public-ip-multi-card" not in _rules_found(policies.topology, specs)  # the resource policy's, reported once
    found = violations(policies.public_ip, resource_args(lt))
    assert [m.split("]")[0] for m, _ in found] == ["[public-ip-multi-card"]
    single = Spec(INSTANCE, "bastion", {"instanceType": "t3.micro", "associatePublicIpAddress": True})
    assert violations(policies.public_ip, resource_args(single)) == []


def test_budget_cannot_be_shown_when_the_cluster_cannot_be_read() -> None:
    lt = Spec(LT, "trainers", {"name": "t", "instanceType": "trn2.48xlarge", "networkInterfaces": efa_interfaces(16)})
    asg = Spec(
        ASG,
        "trainers",
        {"desiredCapacity": 2, "launchTemplate": {"name": "t"}, "vpcZoneIdentifiers": ["subnet-0fromconfig"]},
    )
    found = violations(policies.budget, stack_args([lt, asg], config={"maxTotalUsd": 1000}, region=None))
    assert [(m.split(":")[0], u) for m, u in found] == [("cannot price the cluster", None)]
    web = Spec(INSTANCE, "web", {"instanceType": "t3.micro"})
    assert violations(policies.budget, stack_args([web], config={"maxTotalUsd": 1000})) == []


def test_every_policy_names_a_config_key_it_does_not_take() -> None:
    """The engine passes any key through (its schema has no `additionalProperties`): a misspelt AZ or
    `suppress` would change nothing without a word. Each policy says so in its own terms; a resource
    policy beside what it found (not once for every resource of the stack); `enforcementLevel` is the engine's."""
    for policy in (policies.topology, policies.topology_warnings):
        found = violations(policy, stack_args(hand_written(), config={"availabilityzone": "us-east-2a"}))
        assert (
            f"policy config `availabilityzone` is not a {policy.name} key; it takes availabilityZone, region, suppress",
            None,
        ) in found
    assert violations(policies.topology, stack_args(hand_written(), config={"enforcementLevel": "mandatory"})) == []
    sg = violations(policies.efa_security_group, stack_args(hand_written(), config={"supress": ["efa-security-group"]}))
    assert ("policy config `supress` is not a planner-efa-security-group key; it takes suppress", None) in sg
    lt = by_name(hand_written(), LT)
    optional = Spec(LT, "v1", dict(lt.props, metadataOptions={"httpTokens": "optional"}))
    found = violations(policies.imdsv2, resource_args(optional, config={"supress": ["imdsv2-required"]}))
    assert found[0] == ("policy config `supress` is not a planner-imdsv2 key; it takes suppress", optional.urn)
    assert found[1][0].startswith("[imdsv2-required]")
    assert (
        violations(policies.imdsv2, resource_args(lt, config={"supress": ["imdsv2-required"]})) == []
    )  # nothing found
