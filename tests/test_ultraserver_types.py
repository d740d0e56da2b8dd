"""UltraServer types as catalogue data, end to end: the CLI, the components' arguments, the read-back.

EC2 User Guide, capacity-blocks-launch: "Launching an instance into a Capacity Block reduces the
available capacity by the number of instances launched. For example, if your purchased instance
capacity is eight instances and you launch four instances, the available capacity is reduced by four."
"""

from __future__ import annotations

import json
from pathlib import Path

from planner.core.catalogue.instance_types import load
from planner.core.input.stack_files import parse_cluster
from tests.conftest import run_cli

GB200 = """config:
  aws:region: us-east-1
  planner:cluster:
    availability_zone: us-east-1-dfw-2a
    node_groups:
      - name: nvl72
        instance_type: p6e-gb200.36xlarge
        ultraserver_type: u-p6e-gb200x72
        ultraservers: 2
        purchase: capacity-block
        capacity_reservation_id: [cr-0123456789abcdef0, cr-0123456789abcdef1]
    placement_group: none
    lustre: {deployment_type: PERSISTENT_2, storage_capacity_gib: 2400, per_unit_storage_throughput: 250}
    schedule: {hours: 168}
"""


def test_two_gb200_nvl72_ultraservers_plan_as_36_instances_and_144_gpus(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.gb200.yaml"
    path.write_text(GB200, encoding="utf-8")
    res = run_cli("plan", str(path), "--format", "json")
    (stack,) = json.loads(res.out)["stacks"]
    s = stack["summary"]
    assert (s["instances"], s["ultraservers"], s["accelerators"]) == (36, 2, 144)
    assert s["node_groups"][0]["ultraserver_type"] == "u-p6e-gb200x72"
    (item,) = [i for i in stack["cost"]["line_items"] if i["name"] == "nvl72"]
    # the pricing page's 761.904 USD per UltraServer-hour is 42.328 per member instance-hour
    assert item["unit_price_usd"] == 42.328 and item["usd_per_ultraserver_hour"] == 761.904
    assert item["quantity"] == 36 * 168
    opt_in = [f for f in stack["findings"] if f["rule"] == "local-zone-opt-in"]
    assert [f["severity"] for f in opt_in] == ["info"] and "opt in" in opt_in[0]["message"]


def test_six_trn2u_plan_with_a_warning_and_the_idle_members_cost() -> None:
    res = run_cli("plan", "tests/invalid_stacks/Pulumi.ultraserver-whole-units.yaml", "--format", "json")
    assert res.code == 0, res.out
    (stack,) = json.loads(res.out)["stacks"]
    (f,) = [f for f in stack["findings"] if f["rule"] == "ultraserver-whole-units"]
    (item,) = [i for i in stack["cost"]["line_items"] if i["name"] == "ultra"]
    assert f["severity"] == "warning"
    assert (item["instances"], item["billed_instances"], item["idle_instances"], item["ultraservers"]) == (6, 8, 2, 2)
    idle = 2 * item["unit_price_usd"] * item["hours"]
    assert f"2 members idle, costing ${idle:,.2f} of the estimate" in f["message"]


def test_the_components_take_the_ultraserver_type() -> None:
    from planner.components.args import ClusterArgs, NodeGroupArgs

    args = ClusterArgs(
        availability_zone="us-east-1-dfw-2a",
        node_groups=[
            NodeGroupArgs(
                name="nvl36",
                instance_type="p6e-gb200.36xlarge",
                ultraserver_type="u-p6e-gb200x36",
                ultraservers=3,
                purchase="capacity-block",
            )
        ],
    )
    (g,) = parse_cluster(args.to_config(), "us-east-1").node_groups
    assert (g.count, g.ultraserver_type, load().unit_of(g)) == (27, "u-p6e-gb200x36", 9)
    assert NodeGroupArgs.from_model(g).ultraserver_type == "u-p6e-gb200x36"


def test_adding_an_ultraserver_type_is_a_data_entry() -> None:
    """No code names an UltraServer type: every one the catalogue declares is found by its member."""
    cat = load()
    for u in cat.declarable_ultraserver_types:
        assert u in cat.ultraservers_of(u.member_instance_type)
        assert u.accelerators == u.members * cat.instance_types[u.member_instance_type].accelerator_count
    src = "\n".join(p.read_text(encoding="utf-8") for p in Path("planner").rglob("*.py"))
    for u in cat.ultraserver_types:  # a literal of its own (a comparison, a key), not an example in a text
        assert f'"{u}"' not in src and f"'{u}'" not in src, (
            f"{u} is a literal in code; it belongs in planner/data/catalogue.yaml"
        )


def test_the_read_back_takes_the_ultraserver_type_from_the_components_tag(monkeypatch) -> None:
    """A p6e-gb200.36xlarge Auto Scaling group belongs to two UltraServer types: the components tag it with
    the one it books; an untagged group is planned as the smallest whose members divide it, and said so."""
    import pulumi.runtime

    from planner.policy.testing import Spec
    from tests.test_readback_shapes import ASG, LT, planned, subnet

    real = pulumi.runtime.get_config
    monkeypatch.setattr(pulumi.runtime, "get_config", lambda key: None if key == "planner:cluster" else real(key))

    def asg(tags: list[dict[str, str]]) -> list[Spec]:
        lt = Spec(LT, "nvl", {"id": "lt-0ccc", "instanceType": "p6e-gb200.36xlarge"})
        return [
            subnet("us-east-1-dfw-2a"),
            lt,
            Spec(
                ASG,
                "nvl",
                {
                    "desiredCapacity": 18,
                    "maxSize": 18,
                    "vpcZoneIdentifiers": ["subnet-0aaa1111"],
                    "launchTemplate": {"id": "lt-0ccc"},
                    "tags": tags,
                },
            ),
        ]

    tagged = planned(asg([{"key": "planner:ultraserver-type", "value": "u-p6e-gb200x72"}]), region="us-east-1")
    (g,) = tagged.plan.stack.cluster.node_groups
    assert (g.count, g.ultraserver_type) == (18, "u-p6e-gb200x72")
    untagged = planned(asg([]), region="us-east-1")
    (g,) = untagged.plan.stack.cluster.node_groups
    assert g.ultraserver_type == "u-p6e-gb200x36"
    assert any(
        "belongs to several UltraServer types; planned as u-p6e-gb200x36" in f.message for f in untagged.plan.findings
    )
