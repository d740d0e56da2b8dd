"""Pulumi programs run under mocks, their registered resources fed to the pack's policies.

This is the path a team uses to test its own hand-written program against the pack
(`planner.policy.testing.capture`): no Pulumi CLI, no credentials.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.policy import POLICIES
from planner.policy.testing import capture, check, stack_args

# every test here reads a program's resources, with no stack config of its own
pytestmark = pytest.mark.usefixtures("no_stack_config")


def hand_written_program(
    cards: int = 16, tokens: str = "required", egress_self: bool = True, capacity: int = 1200
) -> Any:
    """A Trn2 cluster written with plain pulumi-aws resources, as a team would without planner."""
    import pulumi_aws as aws

    def program() -> None:
        vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
        subnet = aws.ec2.Subnet("private", vpc_id=vpc.id, cidr_block="10.0.1.0/24", availability_zone="us-east-2b")
        egress = {"protocol": "-1", "from_port": 0, "to_port": 0}
        egress.update({"self": True} if egress_self else {"cidr_blocks": ["0.0.0.0/0"]})
        sg = aws.ec2.SecurityGroup(
            "efa",
            vpc_id=vpc.id,
            egress=[egress],
            ingress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}],
        )
        pg = aws.ec2.PlacementGroup("trainers", strategy="cluster")
        lt = aws.ec2.LaunchTemplate(
            "trainers",
            instance_type="trn2.48xlarge",
            image_id="ami-0123456789abcdef0",
            metadata_options={"http_tokens": tokens},
            network_interfaces=[
                {
                    "network_card_index": c,
                    "device_index": 0 if c == 0 else 1,
                    "interface_type": "efa" if c == 0 else "efa-only",
                    "security_groups": [sg.id],
                    "subnet_id": subnet.id,
                }
                for c in range(cards)
            ],
        )
        aws.autoscaling.Group(
            "trainers",
            desired_capacity=2,
            max_size=2,
            min_size=0,
            vpc_zone_identifiers=[subnet.id],
            placement_group=pg.name,
            launch_template={"id": lt.id, "version": "$Latest"},
        )
        aws.fsx.LustreFileSystem(
            "scratch", deployment_type="SCRATCH_2", storage_capacity=capacity, subnet_ids=subnet.id
        )

    return program


def run_pack(program: Any) -> dict[str, list[tuple[str, str | None]]]:
    """Every policy's violations for the resources `program` registers, by policy name."""
    out: dict[str, list[tuple[str, str | None]]] = {}
    for r in check(capture(program, config={"aws:region": "us-east-2"})):
        out.setdefault(r.policy, []).append((r.message, r.urn))
    return out


def test_valid_hand_written_program_passes_the_mandatory_policies() -> None:
    found = run_pack(hand_written_program())
    mandatory = {p.name for p in POLICIES if p.enforcement_level.value == "mandatory"}
    assert {k: v for k, v in found.items() if k in mandatory} == {}


def test_broken_hand_written_program_is_caught_on_each_resource() -> None:
    found = run_pack(hand_written_program(cards=8, tokens="optional", egress_self=False, capacity=1000))
    lt = "urn:pulumi:dev::cluster::aws:ec2/launchTemplate:LaunchTemplate::trainers"
    sg = "urn:pulumi:dev::cluster::aws:ec2/securityGroup:SecurityGroup::efa"
    assert "planner-efa-interfaces" not in found  # the layout is the topology's, reported once (below)
    assert [u for _, u in found["planner-imdsv2"]] == [lt]
    assert [u for _, u in found["planner-efa-security-group"]] == [sg]
    assert "outbound to itself" in found["planner-efa-security-group"][0][0]
    fs = "urn:pulumi:dev::cluster::aws:fsx/lustreFileSystem:LustreFileSystem::scratch"
    # the stack policy checks the layout against the type the group launches (the template may not name one):
    # 8 of 16 cards is a warning (planner-topology-warnings); the file system's capacity is its resource
    # policy's, not repeated by the topology: each problem once
    assert "planner-topology" not in found
    assert ("[efa-interface-layout", lt) in [(m.split("]")[0], u) for m, u in found["planner-topology-warnings"]]
    assert [(m.split("]")[0], u) for m, u in found["planner-lustre-values"]] == [("[lustre-capacity", fs)]


# --- what planner's components actually register (issue 5), fed back to the pack ----------

STACKS = Path(__file__).resolve().parent.parent / "stacks"


@pytest.fixture(scope="module")
def component_stacks() -> dict[str, tuple[dict[str, Any], str, list[Any]]]:
    """Each bundled stack's config, region and the resources `from_config` registers for it."""
    import yaml

    from planner import components

    out = {}
    for path in sorted(STACKS.glob("Pulumi.*.yaml")):
        name = path.name.split(".")[1]
        config = yaml.safe_load(path.read_text())["config"]
        region = config["aws:region"]
        specs = capture(
            lambda: components.from_config(name, config["planner:cluster"], region),  # noqa: B023 - run at once
            config={"aws:region": region},
            stack=name,
        )
        out[name] = (config["planner:cluster"], region, specs)
    return out


def _topology(cluster: Any) -> tuple[Any, ...]:
    groups = tuple(
        (
            g.instance_type,
            g.count,
            g.purchase,
            g.efa,
            g.availability_zone,
            g.public_ip,
            g.capacity_reservation_ids,
            g.capacity_reservation_resource_group_arn,
        )
        for g in cluster.node_groups
    )
    fs = cluster.lustre
    lustre = (
        None
        if fs is None
        else (
            fs.deployment_type,
            fs.storage_capacity_gib,
            fs.per_unit_storage_throughput,
            fs.availability_zone,
            fs.efa_enabled,
            fs.s3_import_path,
        )
    )
    return cluster.availability_zone, groups, cluster.placement, lustre


def test_components_round_trip_through_the_rebuild(component_stacks: dict) -> None:
    """Config -> components -> registered resources -> rebuilt cluster: the same topology."""
    from planner.core.input.stack_files import parse_cluster
    from planner.readback.resources import Graph, from_policy
    from planner.readback.topology import rebuild

    assert set(component_stacks) == {"p5en-train", "trn2-dev", "ultraserver-prod"}
    for name, (declared, region, specs) in component_stacks.items():
        rebuilt = rebuild(Graph(from_policy(r) for r in stack_args(specs, region=region).resources))
        assert rebuilt.gaps == [], name
        assert _topology(parse_cluster(rebuilt.data, region)) == _topology(parse_cluster(declared, region)), name
        # the root volumes the components create (gp3, 500 GiB by default) are read back from the templates
        assert [
            [(v.volume_type, v.size_gib, v.root) for v in rebuilt.launches[g["name"]].volumes or ()]
            for g in rebuilt.data["node_groups"]
        ] == [[("gp3", 500, True)]] * len(rebuilt.data["node_groups"]), name


def test_component_made_stacks_pass_and_agree_with_planner_plan(
    component_stacks: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No mandatory violation; every finding the pack reports is one `planner plan` reports for the config.
    The same when the engine passes the stack's `planner:cluster` config (its schedule, workload and budget
    are then planned by every stack policy, ultraserver-prod's budget by planner-budget)."""
    import json

    import pulumi.runtime

    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack

    for passed in (False, True):
        for name, (declared, region, specs) in component_stacks.items():
            text = json.dumps(declared) if passed else None
            monkeypatch.setattr(pulumi.runtime, "get_config", lambda k, t=text: t if k == "planner:cluster" else None)
            reported = check(specs, region=region)
            assert [r for r in reported if r.enforcement == "mandatory"] == [], (name, passed)
            pack_rules = {r.message[1:].split("]")[0] for r in reported if r.message.startswith("[")}
            cli_rules = {f.rule for f in plan_stack(load_stack(str(STACKS / f"Pulumi.{name}.yaml"))).findings}
            assert pack_rules <= cli_rules, (name, passed)


def test_component_made_stack_broken_after_the_fact(component_stacks: dict) -> None:
    """Resources as the components made them, then edited by hand: the pack names what changed."""
    import copy

    _declared, region, specs = component_stacks["ultraserver-prod"]
    specs = copy.deepcopy(specs)
    asg = next(s for s in specs if s.type == "aws:autoscaling/group:Group")
    asg.props["desiredCapacity"] = asg.props["maxSize"] = asg.props["minSize"] = 14  # min above desired: refused
    specs = [s for s in specs if not s.name.endswith("-efa-out-self")]  # drop the EFA group's self egress rule
    found = {
        (r.policy, r.message[1:].split("]")[0], r.urn)
        for r in check(specs, region=region)
        if r.enforcement == "mandatory"
    }
    sg = next(s for s in specs if s.type == "aws:ec2/securityGroup:SecurityGroup" and s.name.endswith("-efa"))
    assert found == {("planner-efa-security-group", "efa-security-group", sg.urn)}
    # suppressed in the policy's config (as any rule), it is not reported
    assert not [
        r
        for r in check(
            specs, region=region, config={"planner-efa-security-group": {"suppress": ["efa-security-group"]}}
        )
        if r.policy == "planner-efa-security-group"
    ]
    # 14 trn2u.48xlarge are 3.5 UltraServers: allowed, the idle members are paid for (a warning)
    warned = {(r.message[1:].split("]")[0], r.urn) for r in check(specs, region=region) if r.enforcement == "advisory"}
    assert ("ultraserver-whole-units", asg.urn) in warned


def test_component_made_stack_with_moto_outputs() -> None:
    """The same with moto-backed mocks: ids and ARNs as AWS returns them, references by those."""
    import yaml
    from moto import mock_aws

    from planner import components
    from planner.core.input.stack_files import parse_cluster
    from planner.readback.resources import Graph, from_policy
    from planner.readback.topology import rebuild
    from planner.testing import MotoMocks

    config = yaml.safe_load((STACKS / "Pulumi.ultraserver-prod.yaml").read_text())["config"]
    region = config["aws:region"]
    with mock_aws():
        specs = capture(
            lambda: components.from_config("prod", config["planner:cluster"], region),
            config={"aws:region": region},
            stack="prod",
            mocks=MotoMocks(region),
        )
    lt = next(s for s in specs if s.type == "aws:ec2/launchTemplate:LaunchTemplate")
    assert lt.props["arn"].startswith(f"arn:aws:ec2:{region}:") and "/lt-" in lt.props["arn"]
    rebuilt = rebuild(Graph(from_policy(r) for r in stack_args(specs, region=region).resources))
    assert _topology(parse_cluster(rebuilt.data, region)) == _topology(parse_cluster(config["planner:cluster"], region))
    assert [r for r in check(specs, region=region) if r.enforcement == "mandatory"] == []
