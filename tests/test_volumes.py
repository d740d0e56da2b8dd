"""Every EBS volume a program's node groups and instances declare is priced (docs/cost.md, "The estimate").

Each program runs under Pulumi's mocks (`planner.policy.testing.capture`) and is planned from the
resources it registers, as `planner plan --program` and the policy pack plan it; one runs through the CLI.
The arithmetic is checked against the built-in book's rates, which are AWS's EBS pricing-page data
(published 2024-07-18) for us-east-1: gp2 0.10, gp3 0.08, io1 and io2 0.125, st1 0.045, sc1 0.015 USD per
GB-month; gp3 IOPS above 3,000 0.005 and throughput above 125 MiB/s 0.04 (40.96 per GiB/s) a month; io1
IOPS 0.065; io2 IOPS 0.065 up to 32,000, 0.0455 to 64,000 and 0.03185 above (tests/test_price_coverage.py).
Each run is 730 h, one month, so a line's quantity is what the instances provision.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from planner.core.cost import load_price_book
from planner.policy.planning import plan_resources
from planner.policy.testing import capture, stack_args

REGION = "us-east-1"
HOURS = 730
BOOK = load_price_book(None)
ROOT_GP3 = {"device_name": "/dev/xvda", "ebs": {"volume_size": 100, "volume_type": "gp3"}}


def rate(volume_type: str, charge: str = "storage") -> float:
    price = BOOK.ebs_price(REGION, volume_type, charge)
    assert price is not None and price.as_of == "2024-07-18"
    return price.usd


def planned(program: Callable[[], None], extra: dict[str, Any] | None = None) -> Any:
    """The estimate of what `program` declares, for a run of 730 h in us-east-1."""
    specs = capture(program, config={"aws:region": REGION})
    outcome = plan_resources(
        stack_args(specs, region=REGION).resources, {}, extra={"schedule": {"hours": HOURS}, **(extra or {})}
    )
    assert outcome.plan is not None, outcome.problems
    return outcome.plan.cost


def group_program(mappings: list[dict[str, Any]], count: int = 2, name: str = "trainers") -> Callable[[], None]:
    """A launch template with `mappings` and an Auto Scaling group of `count` p5.48xlarge launched from it."""

    def program() -> None:
        import pulumi_aws as aws

        subnet = aws.ec2.Subnet("private", vpc_id="vpc-0aaa", cidr_block="10.0.0.0/20", availability_zone="us-east-1a")
        lt = aws.ec2.LaunchTemplate(name, instance_type="p5.48xlarge", block_device_mappings=mappings)
        aws.autoscaling.Group(
            name,
            desired_capacity=count,
            min_size=count,
            max_size=count,
            vpc_zone_identifiers=[subnet.id],
            launch_template={"id": lt.id, "version": "$Latest"},
        )

    return program


def volume_lines(cost: Any) -> dict[str, tuple[str, float, float, float]]:
    """Each EBS line item by name: (unit, quantity, unit price, total)."""
    return {
        i.name: (i.unit, i.quantity, i.unit_price_usd, i.total_usd)
        for i in cost.line_items
        if "volume_type" in i.detail
    }


# A data volume beside a gp3 root: (its ebs settings, the lines it bills (suffix, unit, quantity for 2
# instances, volume type, charge)).
CASES = {
    "gp2": ({"volume_size": 1000, "volume_type": "gp2"}, [("", "GB-month", 2000, "gp2", "storage")]),
    "gp3 with IOPS and throughput above the baseline": (
        {"volume_size": 500, "volume_type": "gp3", "iops": 6000, "throughput": 500},
        [
            ("", "GB-month", 1000, "gp3", "storage"),
            (" IOPS", "IOPS-month", 2 * (6000 - 3000), "gp3", "iops"),
            (" throughput", "MiBps-month", 2 * (500 - 125), "gp3", "throughput"),
        ],
    ),
    "gp3 at the baseline": (
        {"volume_size": 500, "volume_type": "gp3", "iops": 3000, "throughput": 125},
        [("", "GB-month", 1000, "gp3", "storage")],
    ),
    "io1": (
        {"volume_size": 400, "volume_type": "io1", "iops": 10000},
        [("", "GB-month", 800, "io1", "storage"), (" IOPS", "IOPS-month", 20000, "io1", "iops")],
    ),
    "io2 in three tiers": (
        {"volume_size": 1000, "volume_type": "io2", "iops": 80000},
        [
            ("", "GB-month", 2000, "io2", "storage"),
            (" IOPS", "IOPS-month", 2 * 32000, "io2", "iops"),
            (" IOPS 32,001-64,000", "IOPS-month", 2 * 32000, "io2", "iops-tier-2"),
            (" IOPS above 64,000", "IOPS-month", 2 * 16000, "io2", "iops-tier-3"),
        ],
    ),
    "io2 in the first tier": (
        {"volume_size": 100, "volume_type": "io2", "iops": 20000},
        [("", "GB-month", 200, "io2", "storage"), (" IOPS", "IOPS-month", 40000, "io2", "iops")],
    ),
    "st1": ({"volume_size": 2000, "volume_type": "st1"}, [("", "GB-month", 4000, "st1", "storage")]),
    "sc1": ({"volume_size": 2000, "volume_type": "sc1"}, [("", "GB-month", 4000, "sc1", "storage")]),
}


@pytest.mark.parametrize("case", CASES)
def test_each_volume_type_a_launch_template_maps_is_priced(case: str) -> None:
    ebs, expected = CASES[case]
    cost = planned(group_program([ROOT_GP3, {"device_name": "/dev/sdf", "ebs": ebs}]))
    lines = volume_lines(cost)
    assert lines.pop("trainers root volumes") == ("GB-month", 200, 0.08, 16.0)  # every mapping, the root too
    want = {
        f"trainers volumes /dev/sdf{suffix}": (unit, quantity, rate(t, c), round(quantity * rate(t, c), 2))
        for suffix, unit, quantity, t, c in expected
    }
    assert lines == want
    assert cost.complete and cost.total_usd == round(2 * HOURS * 55.04 + 16.0 + sum(v[3] for v in want.values()), 2)


def test_the_io2_tiers_add_up_to_the_pricing_pages_arithmetic() -> None:
    """2 x io2 of 1,000 GiB and 80,000 IOPS for a month: 2,000 GB x 0.125 + 64,000 IOPS x 0.065 + 64,000 x 0.0455 +
    32,000 x 0.03185 = 250 + 4,160 + 2,912 + 1,019.20 = 8,341.20 USD."""
    cost = planned(group_program([ROOT_GP3, {"device_name": "/dev/sdf", "ebs": CASES["io2 in three tiers"][0]}]))
    data = [i for i in cost.line_items if i.name.startswith("trainers volumes /dev/sdf")]
    assert [i.total_usd for i in data] == [250.0, 4160.0, 2912.0, 1019.2] and sum(i.total_usd for i in data) == 8341.2
    tier2 = data[2].item().detail
    assert (tier2.charge, tier2.billed_per_instance, tier2.over, tier2.iops, tier2.device) == (
        "iops-tier-2",
        32000,
        32000,
        80000,
        "/dev/sdf",
    )


def test_a_gp2_root_volume_of_a_launch_template_is_priced() -> None:
    """The 100 GiB gp2 root volume a launch template maps was "left out ... size unknown" while only gp3 was
    priced: 2 x 100 GiB x 0.10 USD per GB-month."""
    cost = planned(group_program([{"device_name": "/dev/xvda", "ebs": {"volume_size": 100, "volume_type": "gp2"}}]))
    assert volume_lines(cost) == {"trainers root volumes": ("GB-month", 200, 0.1, 20.0)}
    assert cost.complete and cost.left_out == ()


def test_a_root_volume_from_the_amis_default_mapping_is_left_out_and_named() -> None:
    """A template that maps only a data volume: the root volume is the AMI's, whose size the program does not
    say. The data volume is priced, the root left out and named, and the estimate is not complete."""
    cost = planned(group_program([{"device_name": "/dev/sdf", "ebs": {"volume_size": 1000, "volume_type": "st1"}}]))
    assert volume_lines(cost) == {"trainers volumes /dev/sdf": ("GB-month", 2000, 0.045, 90.0)}
    assert cost.left_out == ("trainers root volumes (size unknown: the AMI's default mapping)",)
    assert not cost.complete and cost.total_usd is None and cost.known_total_usd == round(2 * HOURS * 55.04 + 90, 2)


@pytest.mark.parametrize(
    ("ebs", "why"),
    [
        ({"volume_size": 100}, "type unknown: the AMI's default mapping"),
        ({"volume_type": "gp3", "snapshot_id": "snap-0123456789abcdef0"}, "size unknown: the snapshot's size"),
        ({"volume_type": "gp3", "encrypted": "true"}, "size unknown: the AMI's default mapping"),
    ],
)
def test_a_root_mapping_without_its_size_or_type_is_left_out(ebs: dict[str, Any], why: str) -> None:
    cost = planned(group_program([{"device_name": "/dev/xvda", "ebs": ebs}]))
    assert volume_lines(cost) == {} and cost.left_out == (f"trainers root volumes ({why})",) and not cost.complete


def test_io1_without_its_iops_bills_its_storage_and_leaves_the_iops_out() -> None:
    cost = planned(
        group_program([ROOT_GP3, {"device_name": "/dev/sdf", "ebs": {"volume_size": 400, "volume_type": "io1"}}])
    )
    assert volume_lines(cost)["trainers volumes /dev/sdf"] == ("GB-month", 800, 0.125, 100.0)
    assert cost.left_out == ("trainers volumes /dev/sdf IOPS (io1 IOPS not declared)",)


def test_an_instances_root_and_ebs_block_devices_are_priced() -> None:
    """aws.ec2.Instance: `root_block_device` (gp3, 200 GiB, 4,000 IOPS) and `ebs_block_devices` (st1, 1 TiB)."""

    def program() -> None:
        import pulumi_aws as aws

        subnet = aws.ec2.Subnet("private", vpc_id="vpc-0aaa", cidr_block="10.0.0.0/20", availability_zone="us-east-1a")
        for i in range(2):
            aws.ec2.Instance(
                f"worker-{i}",
                instance_type="p5.48xlarge",
                ami="ami-0123456789abcdef0",
                subnet_id=subnet.id,
                root_block_device={"volume_size": 200, "volume_type": "gp3", "iops": 4000},
                ebs_block_devices=[{"device_name": "/dev/sdh", "volume_size": 1024, "volume_type": "st1"}],
            )

    cost = planned(program)
    assert volume_lines(cost) == {
        "worker root volumes": ("GB-month", 400, 0.08, 32.0),
        "worker root volumes IOPS": ("IOPS-month", 2000, 0.005, 10.0),
        "worker volumes /dev/sdh": ("GB-month", 2048, 0.045, 92.16),
    }
    assert cost.complete


def _eks_program(**group: Any) -> Callable[[], None]:
    def program() -> None:
        import pulumi_aws as aws

        subnet = aws.ec2.Subnet("private", vpc_id="vpc-0aaa", cidr_block="10.0.0.0/20", availability_zone="us-east-1a")
        aws.eks.NodeGroup(
            "gpus",
            cluster_name="training",
            node_role_arn="arn:aws:iam::123456789012:role/node",
            subnet_ids=[subnet.id],
            instance_types=["p5.48xlarge"],
            scaling_config={"desired_size": 2, "min_size": 2, "max_size": 2},
            **group,
        )

    return program


@pytest.mark.parametrize(
    ("group", "gib"),
    [({"disk_size": 200}, 200), ({}, 20)],
)
def test_an_eks_node_group_without_a_launch_template_prices_its_disk_size(group: dict[str, Any], gib: int) -> None:
    """EKS API, CreateNodegroup `diskSize`: "The default disk size is 20 GiB for Linux and Bottlerocket"; EKS
    creates it as gp2 (the API names no type), said as the line's note."""
    cost = planned(_eks_program(**group))
    assert volume_lines(cost) == {"gpus root volumes": ("GB-month", 2 * gib, 0.1, round(2 * gib * 0.1, 2))}
    (item,) = [i for i in cost.line_items if i.name == "gpus root volumes"]
    assert item.note is not None and "gp2" in item.note and "containers-roadmap/issues/1417" in item.note
    assert ("no diskSize: 20 GiB, the EKS API's default" in item.note) == (gib == 20)
    assert cost.complete


def test_a_bottlerocket_eks_node_group_prices_its_data_volume_and_names_the_os_volume() -> None:
    cost = planned(_eks_program(disk_size=100, ami_type="BOTTLEROCKET_x86_64_NVIDIA"))
    assert volume_lines(cost) == {"gpus volumes /dev/xvdb": ("GB-month", 200, 0.1, 20.0)}
    assert cost.left_out == ("gpus root volumes (size unknown: the AMI's default mapping)",)


def _karpenter_program(node_class_spec: dict[str, Any]) -> Callable[[], None]:
    """A Karpenter NodePool of p5.48xlarge limited to 16 GPUs (2 instances), and its EC2NodeClass."""

    def program() -> None:
        import pulumi

        pulumi.CustomResource(
            "kubernetes:karpenter.sh/v1:NodePool",
            "gpu",
            {
                "metadata": {"name": "gpu"},
                "spec": {
                    "template": {
                        "spec": {
                            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                            "requirements": [
                                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]}
                            ],
                        }
                    },
                    "limits": {"nvidia.com/gpu": 16},
                },
            },
        )
        pulumi.CustomResource(
            "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass",
            "gpu",
            {"metadata": {"name": "gpu"}, "spec": node_class_spec},
        )

    return program


def test_a_karpenter_node_class_prices_every_mapping_at_the_pools_maximum() -> None:
    spec = {
        "amiFamily": "AL2023",
        "blockDeviceMappings": [
            {"deviceName": "/dev/xvda", "rootVolume": True, "ebs": {"volumeSize": "200Gi", "volumeType": "gp3"}},
            {"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "2Ti", "volumeType": "io2", "iops": 40000}},
        ],
    }
    most = planned(_karpenter_program(spec)).maximum
    assert volume_lines(most) == {
        "gpu root volumes": ("GB-month", 400, 0.08, 32.0),
        "gpu volumes /dev/xvdb": ("GB-month", 4096, 0.125, 512.0),
        "gpu volumes /dev/xvdb IOPS": ("IOPS-month", 64000, 0.065, 4160.0),
        "gpu volumes /dev/xvdb IOPS 32,001-64,000": ("IOPS-month", 16000, 0.0455, 728.0),
    }
    assert most.complete


@pytest.mark.parametrize(
    ("spec", "expected", "left_out"),
    [
        (  # Karpenter's documented defaults for the family (20Gi gp3 on /dev/xvda)
            {"amiFamily": "AL2023"},
            {"gpu root volumes": ("GB-month", 40, 0.08, 3.2)},
            (),
        ),
        (  # the family of an alias AMI selector term; Bottlerocket's two volumes
            {"amiSelectorTerms": [{"alias": "bottlerocket@latest"}]},
            {"gpu root volumes": ("GB-month", 8, 0.08, 0.64), "gpu volumes /dev/xvdb": ("GB-month", 40, 0.08, 3.2)},
            (),
        ),
        (  # Custom: no defaults, the AMI's own mappings
            {"amiFamily": "Custom", "amiSelectorTerms": [{"id": "ami-0123456789abcdef0"}]},
            {},
            ("gpu root volumes (size unknown: the AMI's default mapping)",),
        ),
    ],
)
def test_a_node_class_without_mappings_takes_its_families_defaults(
    spec: dict[str, Any], expected: dict[str, Any], left_out: tuple[str, ...]
) -> None:
    most = planned(_karpenter_program(spec)).maximum
    assert volume_lines(most) == expected and most.left_out == left_out
    notes = {i.note for i in most.line_items if "volume_type" in i.detail}
    assert all(n and "karpenter.sh/docs/concepts/nodeclasses" in n for n in notes)


def test_an_unpriced_region_leaves_the_volume_unknown_never_zero() -> None:
    """The EBS pricing-page copy lists no io2 rate for sa-east-1: its line has no price, the total none."""
    specs = capture(
        group_program(
            [ROOT_GP3, {"device_name": "/dev/sdf", "ebs": {"volume_size": 100, "volume_type": "io2", "iops": 1000}}]
        )
    )
    for s in specs:
        if s.type == "aws:ec2/subnet:Subnet":
            s.props["availabilityZone"] = "sa-east-1a"
    outcome = plan_resources(stack_args(specs, region="sa-east-1").resources, {}, extra={"schedule": {"hours": HOURS}})
    cost = outcome.plan.cost
    (storage,) = [i for i in cost.line_items if i.name == "trainers volumes /dev/sdf"]
    assert storage.price is None and storage.total_usd is None
    assert storage.item().note == "no price for EBS io2 storage in sa-east-1 in price book 'current'"
    assert not cost.complete and cost.total_usd is None


def test_planner_plan_program_prices_the_gp2_root_and_names_the_amis_default(tmp_path: Path) -> None:
    """Through `planner plan --program`: the JSON line items, `complete: false` and `left_out`, and the table."""
    d = tmp_path / "project"
    d.mkdir()
    (d / "Pulumi.yaml").write_text("name: volumes\nruntime: python\nmain: app.py\n")
    (d / "Pulumi.dev.yaml").write_text(
        "config:\n  aws:region: us-east-1\n  planner:cluster:\n    schedule: {hours: 730}\n"
    )
    (d / "app.py").write_text(
        """import pulumi_aws as aws

subnet = aws.ec2.Subnet("private", vpc_id="vpc-0aaa", cidr_block="10.0.0.0/20", availability_zone="us-east-1a")
for name, mappings in (
    ("sized", [{"device_name": "/dev/xvda", "ebs": {"volume_size": 100, "volume_type": "gp2"}}]),
    ("bare", []),
):
    lt = aws.ec2.LaunchTemplate(name, instance_type="p5.48xlarge", block_device_mappings=mappings)
    aws.autoscaling.Group(name, desired_capacity=2, min_size=2, max_size=2, vpc_zone_identifiers=[subnet.id],
                          launch_template={"id": lt.id, "version": "$Latest"})
"""
    )
    result = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert result.code in (0, 1), result.err
    (stack,) = json.loads(result.out)["stacks"]
    cost = stack["cost"]
    (root,) = [i for i in cost["line_items"] if i.get("volume_type")]
    assert (root["name"], root["volume_type"], root["gib_per_instance"], root["quantity"], root["total_usd"]) == (
        "sized root volumes",
        "gp2",
        100,
        200,
        20.0,
    )
    assert cost["complete"] is False and cost["total_usd"] is None
    assert cost["left_out"] == ["bare root volumes (size unknown: the AMI's default mapping)"]
    table = " ".join(run_cli("plan", "--program", str(d), "--stack", "dev").out.split())  # as wrapped, unwrapped
    assert "cost: at least $160,736.80 for 730 h; left out: bare root volumes (size unknown: the AMI's" in table
    assert "EBS gp2 100 GiB x 2 200 GB-month $0.1 $20.00" in table
