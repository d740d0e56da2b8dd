"""Each rule: a stack that triggers it and a near miss that does not (in-process, fast)."""

from __future__ import annotations

from pathlib import Path

import msgspec.structs
import pytest

from planner.core import rules
from planner.core.catalogue import instance_types as catalogue
from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import plan_stack

TRN2 = """
availability_zone: us-east-2b
node_groups:
  - name: trainers
    instance_type: trn2.48xlarge
    count: {count}
{extra}
"""


def trn2(count: int = 2, extra: str = "") -> str:
    return TRN2.format(count=count, extra=extra)


def group(itype: str, count: int | str, purchase: str = "on-demand", more: str = "", name: str = "g") -> str:
    size = f"count: {count}" if isinstance(count, int) else count
    return f"""
availability_zone: us-east-2b
node_groups:
  - name: {name}
    instance_type: {itype}
    {size}
    purchase: {purchase}
{more}
"""


CB = "    capacity_reservation_id: cr-0123456789abcdef0"
CB2 = "    capacity_reservation_id: [cr-0123456789abcdef0, cr-0123456789abcdef1]"  # two reservations
ARN = "    capacity_reservation_resource_group_arn: arn:aws:resource-groups:us-east-2:123456789012:group/ultra-blocks"
GB200 = (
    "availability_zone: {az}\nnode_groups:\n  - {{name: g, instance_type: p6e-gb200.36xlarge, ultraserver_type: u-p6e-gb200x36, "
    "ultraservers: 1, purchase: {purchase}}}\n"
)
TWO_MEMBERS = (  # a second node group of 2 trn2u.48xlarge (half an UltraServer)
    "  - {name: h, instance_type: trn2u.48xlarge, count: 2, purchase: capacity-block, "
    "capacity_reservation_id: cr-0123456789abcdef1}"
)
P2 = "lustre:\n  deployment_type: PERSISTENT_2\n  storage_capacity_gib: 2400\n  per_unit_storage_throughput: 250"


def tiering(mbps: int | None = 4000, dtype: str = "PERSISTENT_2", cache: str = "NO_CACHE", extra: str = "") -> str:
    """An Intelligent-Tiering file system (no storage capacity: its storage is elastic)."""
    out = f"lustre:\n  deployment_type: {dtype}\n  storage_type: INTELLIGENT_TIERING\n"
    out += f"  throughput_capacity_mbps: {mbps}\n" if mbps is not None else ""
    return out + (f"  read_cache_sizing_mode: {cache}\n" if cache else "") + extra


def in_zone(cluster: str, zone: str) -> str:
    """The same cluster in another Availability Zone (and so, with its region, another Region)."""
    return cluster.replace("us-east-2b", zone)


def lustre(dtype: str, gib: int, extra: str = "") -> str:
    return f"lustre:\n  deployment_type: {dtype}\n  storage_capacity_gib: {gib}\n" + extra


def workload(params: str, extra: str = "") -> str:
    return f"workload:\n  parameters: {params}\n  tokens: 1e12\n  mfu: 0.3\n" + extra


# rule id -> (severity expected, triggering cluster, near miss, region)
CASES: dict[str, list[tuple[str, str, str, str]]] = {
    # AWS, capacity-blocks-launch: "if your purchased instance capacity is eight instances and you launch four
    # instances, the available capacity is reduced by four": fewer members than booked is allowed (a warning)
    "ultraserver-whole-units": [
        (
            "warning",
            group("trn2u.48xlarge", 6, "capacity-block", CB + "\n" + P2),
            group("trn2u.48xlarge", 8, "capacity-block", CB + "\n" + P2),
            "us-east-2",
        ),
    ],
    # "To use P6e-GB200 UltraServer Capacity Blocks, you must be opted in to the Dallas Local Zone" (capacity-blocks-launch);
    # where each UltraServer type is sold: the Capacity Blocks pricing page (catalogue ultraserver_types)
    "ultraserver-zone": [
        (
            "warning",
            GB200.format(purchase="capacity-block", az="us-east-1a"),
            GB200.format(purchase="capacity-block", az="us-east-1-dfw-2a"),
            "us-east-1",
        ),
    ],
    # "To use Capacity Blocks in Local Zones, you must be opted in to the Local Zone." (capacity-blocks-launch)
    "local-zone-opt-in": [
        (
            "info",
            GB200.format(purchase="capacity-block", az="us-east-1-dfw-2a"),
            GB200.format(purchase="capacity-block", az="us-east-1a"),
            "us-east-1",
        ),
    ],
    "ultraserver-requires-lustre": [
        (
            "error",
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB),
            group("trn2u.48xlarge", "ultraservers: 1", "capacity-block", CB),
            "us-east-2",
        ),
        (
            "error",
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB),
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB + "\n" + P2),
            "us-east-2",
        ),
        # UltraServers are booked whole: 6 members occupy 2 UltraServers (clustered), 3 occupy 1 (not)
        (
            "error",
            group("trn2u.48xlarge", 6, "capacity-block", CB),
            group("trn2u.48xlarge", 3, "capacity-block", CB),
            "us-east-2",
        ),
        # per group, as the cost bills them: two groups of 2 members are 2 UltraServers, one group of 4 is 1
        (
            "error",
            group("trn2u.48xlarge", 2, "capacity-block", CB + "\n" + TWO_MEMBERS),
            group("trn2u.48xlarge", 4, "capacity-block", CB),
            "us-east-2",
        ),
    ],
    "ultraserver-purchase": [
        (
            "warning",
            group("trn2u.48xlarge", "ultraservers: 1", "on-demand"),
            group("trn2u.48xlarge", "ultraservers: 1", "capacity-block", CB),
            "us-east-2",
        ),
        (
            "warning",
            group("trn2u.48xlarge", "ultraservers: 1", "spot"),
            group("trn2u.48xlarge", "ultraservers: 1", "capacity-block", CB),
            "us-east-2",
        ),
    ],
    # EC2 User Guide: "Each Capacity Block can have up to 64 instances, and you can have up to 256 instances across
    # Capacity Blocks"; Work with Capacity Blocks: "Capacity Block sizes of 64 instances are not supported for all
    # instance types in all AWS Regions." (a warning on a block of exactly 64: AWS does not list where)
    "capacity-block-size": [
        (
            "error",
            group("p5en.48xlarge", 65, "capacity-block", CB),
            group("p5en.48xlarge", 63, "capacity-block", CB),
            "us-east-2",
        ),
        (
            "warning",
            group("p5en.48xlarge", 64, "capacity-block", CB),
            group("p5en.48xlarge", 63, "capacity-block", CB),
            "us-east-2",
        ),
        (
            "warning",
            "availability_zone: us-east-2b\nnode_groups:\n"
            + "".join(
                f"  - {{name: b{i}, instance_type: p5en.48xlarge, count: 52, purchase: capacity-block}}\n"
                for i in range(5)
            )
            + "placement_group: none",
            "availability_zone: us-east-2b\nnode_groups:\n"
            + "".join(
                f"  - {{name: b{i}, instance_type: p5en.48xlarge, count: 51, purchase: capacity-block}}\n"
                for i in range(5)
            )
            + "placement_group: none",
            "us-east-2",
        ),
    ],
    # EC2 User Guide: blocks are booked "in 1-day increments up to 14 days and in 7-day increments up to 182 days":
    # a constraint on the reservation, not the run, so a schedule between two steps is information
    "capacity-block-duration": [
        (
            "info",
            group("p5en.48xlarge", 8, "capacity-block", CB + "\nschedule: {hours: 100}"),
            group("p5en.48xlarge", 8, "capacity-block", CB + "\nschedule: {hours: 120}"),
            "us-east-2",
        ),
        (
            "info",
            group("p5en.48xlarge", 8, "capacity-block", CB + "\nschedule: {hours: 400}"),
            group("p5en.48xlarge", 8, "capacity-block", CB + "\nschedule: {hours: 504}"),
            "us-east-2",
        ),
        (
            "info",
            group("p5en.48xlarge", 8, "capacity-block", CB + "\nschedule: {hours: 5000}"),
            group("p5en.48xlarge", 8, "on-demand", "schedule: {hours: 5000}"),
            "us-east-2",
        ),
    ],
    "capacity-block-supported": [
        (
            "error",
            group("trn1n.32xlarge", 2, "capacity-block", CB).replace("us-east-2b", "us-east-1a"),
            group("trn1.32xlarge", 2, "capacity-block", CB).replace("us-east-2b", "us-east-1a"),
            "us-east-1",
        ),
    ],
    "capacity-block-reservation": [
        (
            "warning",
            group("p5en.48xlarge", 8, "capacity-block"),
            group("p5en.48xlarge", 8, "capacity-block", CB),
            "us-east-2",
        ),
        # an UltraServer block may name one id per UltraServer, or a resource group of blocks
        (
            "warning",
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", P2),
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB2 + "\n" + P2),
            "us-east-2",
        ),
        (
            "warning",
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", P2),
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", ARN + "\n" + P2),
            "us-east-2",
        ),
    ],
    "capacity-reservation-list": [
        (
            "error",
            group("p5en.48xlarge", 8, "capacity-block", CB2),
            group("p5en.48xlarge", 8, "capacity-block", CB),
            "us-east-2",
        ),
        (
            "error",
            group("trn2.48xlarge", 2, "on-demand", CB2),
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB2 + "\n" + P2),
            "us-east-2",
        ),
    ],
    # API_CapacityBlock: capacityReservationIdSet "The ID of the Capacity Reservation." (an array; how many an
    # UltraServer block has is not documented): a warning
    "capacity-block-reservation-count": [
        (
            "warning",
            group("trn2u.48xlarge", "ultraservers: 3", "capacity-block", CB2 + "\n" + P2),
            group("trn2u.48xlarge", "ultraservers: 3", "capacity-block", CB + "\n" + P2),
            "us-east-2",
        ),
        (
            "warning",
            group("trn2u.48xlarge", "ultraservers: 1", "capacity-block", CB2),
            group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB2 + "\n" + P2),
            "us-east-2",
        ),
    ],
    # the catalogue's `spot` follows DescribeInstanceTypes' SupportedUsageClasses: trn2u.48xlarge lists spot
    # (no error, `ultraserver-purchase` warns), p6e-gb200.36xlarge is listed without it
    "spot-unsupported": [
        (
            "error",
            GB200.format(az="us-east-1-dfw-2a", purchase="spot"),
            GB200.format(az="us-east-1-dfw-2a", purchase="capacity-block"),
            "us-east-1",
        ),
    ],
    # a warning: no AWS page says Spot instances cannot run in a capacity reservation (rule_sources.yaml)
    "spot-capacity-reservation": [
        ("warning", group("trn2.48xlarge", 1, "spot", CB), group("trn2.48xlarge", 1, "on-demand", CB), "us-east-2"),
    ],
    "efa-recommended": [
        ("warning", trn2(2, "    efa: false"), trn2(1, "    efa: false"), "us-east-2"),
    ],
    "efa-single-az": [
        (
            "error",
            trn2(1, "  - {name: more, instance_type: trn2.48xlarge, count: 1, availability_zone: us-east-2c}"),
            trn2(
                1, "  - {name: more, instance_type: trn2.48xlarge, count: 1, availability_zone: us-east-2c, efa: false}"
            ),
            "us-east-2",
        ),
    ],
    "placement-group": [
        ("warning", trn2(2, "placement_group: none"), trn2(1, "placement_group: none"), "us-east-2"),
        # capacity-blocks-using: "there is no need to use a cluster placement group with a Capacity Block": information
        (
            "info",
            group("p5en.48xlarge", 8, "capacity-block", CB + "\nplacement_group: cluster"),
            group("p5en.48xlarge", 8, "capacity-block", CB + "\nplacement_group: none"),
            "us-east-2",
        ),
        # undeclared: the default cluster placement group (an on-demand EFA group) would hold the block group too
        (
            "info",
            group(
                "p5en.48xlarge", 8, "capacity-block", CB + "\n  - {name: od, instance_type: p5en.48xlarge, count: 1}"
            ),
            group(
                "p5en.48xlarge",
                8,
                "capacity-block",
                CB + "\n  - {name: od, instance_type: p5en.48xlarge, count: 1}\nplacement_group: none",
            ),
            "us-east-2",
        ),
    ],
    "public-ip-multi-card": [
        ("error", trn2(1, "    public_ip: true"), trn2(1, "    public_ip: false"), "us-east-2"),
        ("error", trn2(1, "    public_ip: true"), trn2(1, "    public_ip: true\n    efa: false"), "us-east-2"),
    ],
    "subnet-single-az": [
        (
            "error",
            trn2(
                1,
                lustre("PERSISTENT_2", 2400, "  per_unit_storage_throughput: 250\n  availability_zone: us-east-2c\n")
                + "network: {vpc_id: vpc-0123456789abcdef0, subnet_id: subnet-0123456789abcdef0}",
            ),
            trn2(1, P2 + "\nnetwork: {vpc_id: vpc-0123456789abcdef0, subnet_id: subnet-0123456789abcdef0}"),
            "us-east-2",
        ),
    ],
    "instance-region": [
        (
            "warning",
            trn2(1).replace("us-east-2b", "us-east-1a"),
            group("p5en.48xlarge", 1).replace("us-east-2b", "us-east-1a"),
            "us-east-1",
        ),
    ],
    "ultracluster-scale": [
        ("warning", group("p5.48xlarge", 2501), group("p5.48xlarge", 2500), "us-east-2"),
    ],
    "lustre-capacity": [
        ("error", trn2(1, lustre("SCRATCH_2", 3600)), trn2(1, lustre("SCRATCH_2", 4800)), "us-east-2"),
        ("error", trn2(1, lustre("SCRATCH_1", 4800)), trn2(1, lustre("SCRATCH_1", 7200)), "us-east-2"),
        (
            "error",
            trn2(1, lustre("PERSISTENT_1", 1200, "  per_unit_storage_throughput: 12\n")),
            trn2(1, lustre("PERSISTENT_1", 6000, "  per_unit_storage_throughput: 12\n")),
            "us-east-2",
        ),
        (
            "error",
            trn2(1, lustre("PERSISTENT_2", 1000, "  per_unit_storage_throughput: 125\n")),
            trn2(1, lustre("PERSISTENT_2", 1200, "  per_unit_storage_throughput: 125\n")),
            "us-east-2",
        ),
    ],
    "lustre-throughput": [
        (
            "error",
            trn2(1, lustre("PERSISTENT_2", 2400, "  per_unit_storage_throughput: 300\n")),
            trn2(1, P2),
            "us-east-2",
        ),
        ("error", trn2(1, lustre("PERSISTENT_2", 2400)), trn2(1, P2), "us-east-2"),
        (
            "error",
            trn2(1, lustre("SCRATCH_2", 2400, "  per_unit_storage_throughput: 200\n")),
            trn2(1, lustre("SCRATCH_2", 2400)),
            "us-east-2",
        ),
        (
            "error",
            trn2(1, lustre("PERSISTENT_1", 2400, "  per_unit_storage_throughput: 125\n")),
            trn2(1, lustre("PERSISTENT_1", 2400, "  per_unit_storage_throughput: 100\n")),
            "us-east-2",
        ),
    ],
    "lustre-same-az": [
        (
            "warning",
            trn2(1, P2 + "\n  availability_zone: us-east-2c"),
            trn2(1, P2 + "\n  availability_zone: us-east-2b"),
            "us-east-2",
        ),
        (
            "error",
            trn2(1, P2 + "\n  efa_enabled: true\n  availability_zone: us-east-2c"),
            trn2(1, P2 + "\n  efa_enabled: true\n  availability_zone: us-east-2b"),
            "us-east-2",
        ),
    ],
    "lustre-efa": [
        (
            "error",
            trn2(1, lustre("SCRATCH_2", 2400, "  efa_enabled: true\n")),
            trn2(1, P2 + "\n  efa_enabled: true"),
            "us-east-2",
        ),
    ],
    # FSx API reference, fsx_lustre.yaml's sentences: PERSISTENT_2 only; 1,000, 2,000 or multiples of 4,000 MBps;
    # EFA only at multiples of 4,000 (tests/test_lustre_intelligent_tiering.py checks them against AWS's text)
    "lustre-intelligent-tiering": [
        ("error", trn2(1, tiering(dtype="PERSISTENT_1")), trn2(1, tiering()), "us-east-2"),
        ("error", trn2(1, tiering(3000)), trn2(1, tiering(2000)), "us-east-2"),
        ("error", trn2(1, tiering(None)), trn2(1, tiering(1000)), "us-east-2"),
        ("error", trn2(1, tiering(2004000)), trn2(1, tiering(2000000)), "us-east-2"),
        (
            "error",
            trn2(1, tiering(2000, extra="  efa_enabled: true\n")),
            trn2(1, tiering(8000, extra="  efa_enabled: true\n")),
            "us-east-2",
        ),
    ],
    # the Lustre User Guide's Deployment type availability table (fsx_lustre.yaml's region_availability, a copy of
    # 2025-09-30): Persistent 2 is not listed in Europe (Milan), Persistent 1 is; Canada West (Calgary) and Israel
    # (Tel Aviv) are marked * ("support Persistent-125 and Persistent-250 file systems with SSD storage class
    # without EFA")
    "lustre-region": [
        (
            "warning",
            in_zone(trn2(1, P2), "eu-south-1a"),
            in_zone(trn2(1, lustre("PERSISTENT_1", 2400, "  per_unit_storage_throughput: 200\n")), "eu-south-1a"),
            "eu-south-1",
        ),
        (
            "warning",
            in_zone(trn2(1, P2 + "\n  efa_enabled: true"), "ca-west-1a"),
            in_zone(trn2(1, P2), "ca-west-1a"),
            "ca-west-1",
        ),
        (
            "warning",
            in_zone(trn2(1, P2.replace(": 250", ": 500")), "il-central-1a"),
            in_zone(trn2(1, P2.replace(": 250", ": 125")), "il-central-1a"),
            "il-central-1",
        ),
    ],
    # DataReadCacheConfiguration "Required when StorageType is set to INTELLIGENT_TIERING"; SizeGiB "Required if
    # SizingMode is set to USER_PROVISIONED", 8 to 32,768 GiB per 1,000 MBps
    "lustre-read-cache": [
        (
            "error",
            trn2(1, tiering(cache="")),
            trn2(1, tiering(cache="PROPORTIONAL_TO_THROUGHPUT_CAPACITY")),
            "us-east-2",
        ),
        (
            "error",
            trn2(1, tiering(cache="USER_PROVISIONED")),
            trn2(1, tiering(cache="USER_PROVISIONED", extra="  read_cache_size_gib: 32\n")),
            "us-east-2",
        ),
        (
            "error",
            trn2(1, tiering(4000, "PERSISTENT_2", "USER_PROVISIONED", "  read_cache_size_gib: 31\n")),
            trn2(1, tiering(4000, "PERSISTENT_2", "USER_PROVISIONED", "  read_cache_size_gib: 131072\n")),
            "us-east-2",
        ),
        (
            "error",
            trn2(1, tiering(1000, "PERSISTENT_2", "USER_PROVISIONED", "  read_cache_size_gib: 32769\n")),
            trn2(1, tiering(1000, "PERSISTENT_2", "USER_PROVISIONED", "  read_cache_size_gib: 8\n")),
            "us-east-2",
        ),
        (
            "error",
            trn2(1, tiering(extra="  read_cache_size_gib: 64\n")),
            trn2(1, tiering(cache="USER_PROVISIONED", extra="  read_cache_size_gib: 64\n")),
            "us-east-2",
        ),
    ],
    "lustre-efa-clients": [
        (
            "warning",
            trn2(1, "    efa: false\n" + P2 + "\n  efa_enabled: true"),
            trn2(1, P2 + "\n  efa_enabled: false"),
            "us-east-2",
        ),
        # "EFA is supported on Nitro v4 (or higher) EC2 instances that support EFA, excluding the trn2
        # instance family." (FSx for Lustre User Guide, configure-efa-clients.html, read 2026-12-05)
        (
            "warning",
            trn2(1, P2 + "\n  efa_enabled: true"),
            trn2(1, P2 + "\n  efa_enabled: false"),
            "us-east-2",
        ),
        # the same sentence's "Nitro v4 (or higher)": P4d is Nitro v3, P5 Nitro v4 (EC2 Instance Types Guide,
        # "Instances built on the AWS Nitro System", nitro_versions.yaml's copy)
        (
            "warning",
            group("p4d.24xlarge", 2, more="    efa: true\n" + P2 + "\n  efa_enabled: true"),
            group("p5.48xlarge", 2, more="    efa: true\n" + P2 + "\n  efa_enabled: true"),
            "us-east-2",
        ),
    ],
    "lustre-scratch-long-run": [
        (
            "warning",
            trn2(1, lustre("SCRATCH_2", 2400) + "schedule: {hours: 169}"),
            trn2(1, lustre("SCRATCH_2", 2400) + "schedule: {hours: 168}"),
            "us-east-2",
        ),
        (
            "warning",
            trn2(1, lustre("SCRATCH_1", 2400) + "schedule: {hours: 1000}"),
            trn2(1, P2 + "\nschedule: {hours: 1000}"),
            "us-east-2",
        ),
    ],
    "lustre-checkpoint-time": [
        (
            "warning",
            trn2(2, lustre("SCRATCH_2", 1200) + workload("70e9")),
            trn2(2, lustre("SCRATCH_2", 1200) + workload("70e9", "  checkpoint_max_minutes: 70\n")),
            "us-east-2",
        ),
        (
            "warning",
            trn2(2, lustre("SCRATCH_2", 1200) + workload("70e9")),
            trn2(2, lustre("PERSISTENT_2", 9600, "  per_unit_storage_throughput: 1000\n") + workload("70e9")),
            "us-east-2",
        ),
    ],
    "workload-memory": [
        ("warning", trn2(2, workload("1e12")), trn2(2, workload("70e9")), "us-east-2"),
    ],
    # 6 x 8e9 x 1e12 FLOPs on 4 p5en (31.7 PF BF16 dense) at MFU 0.3: about 1,400 h
    "workload-exceeds-schedule": [
        (
            "warning",
            group("p5en.48xlarge", 4, more=workload("8e9") + "schedule: {hours: 1000}"),
            group("p5en.48xlarge", 4, more=workload("8e9") + "schedule: {hours: 1500}"),
            "us-east-2",
        ),
        (
            "error",
            group("p5en.48xlarge", 4, more=workload("8e9") + "schedule: {hours: 500}"),
            group("p5en.48xlarge", 8, more=workload("8e9") + "schedule: {hours: 1500}"),
            "us-east-2",
        ),
    ],
    # not-sold.yaml: p5e on demand nowhere; p6-b200 blocks not in ap-south-2 (its on-demand price is unknown, not unsold)
    "purchase-not-sold": [
        ("warning", group("p5e.48xlarge", 2), group("p5e.48xlarge", 2, "capacity-block", CB), "us-east-2"),
        (
            "warning",
            group("p6-b200.48xlarge", 2, "capacity-block", CB).replace("us-east-2b", "ap-south-2a"),
            group("p6-b200.48xlarge", 2).replace("us-east-2b", "ap-south-2a"),
            "ap-south-2",
        ),
    ],
}


def _findings(stack_file, cluster: str, region: str, rule_id: str):  # noqa: ANN001, ANN202
    path: Path = stack_file(cluster, region=region)
    plan = plan_stack(load_stack(str(path)))
    return [f for f in plan.findings if f.rule == rule_id]


PARAMS = [pytest.param(rid, *case, id=f"{rid}-{i}") for rid, cases in CASES.items() for i, case in enumerate(cases)]


@pytest.mark.parametrize("rule_id,severity,trigger,near_miss,region", PARAMS)
def test_rule_triggers_and_near_miss_does_not(
    stack_file, rule_id: str, severity: str, trigger: str, near_miss: str, region: str
) -> None:
    hits = _findings(stack_file, trigger, region, rule_id)
    assert hits and {f.severity for f in hits} == {severity}, hits
    assert all(f.line and f.message for f in hits)
    assert _findings(stack_file, near_miss, region, rule_id) == []


def test_every_rule_has_cases() -> None:
    tested = set(CASES) | {"efa-unsupported", "lustre-s3-association"}  # both tested with patched data
    # a stack file says nothing of a metadata configuration or security groups (planner's components create
    # both): its case and near miss are a program's resources and the model, tests/test_lustre_efa_requirements.py
    tested |= {"lustre-efa-requirements"}
    # nor of the metadata configuration's mode and IOPS: tests/test_lustre_metadata_iops.py
    tested |= {"lustre-metadata-iops"}
    # rules of clusters read back from a program never fire on a stack file: tests/test_readback_rules.py
    readback = (
        "planner.core.rules.prices_and_budget",
        "planner.core.rules.program_shapes",
        "planner.core.rules.unsized",
        "planner.core.rules.resource_settings",
    )  # the last: tests/test_check_registry.py
    owned = {rid for rid, r in rules.registry().items() if r.check.__module__ not in readback}
    assert owned <= tested, f"rules without trigger/near-miss cases: {sorted(owned - tested)}"


def test_efa_unsupported_with_a_type_that_has_no_efa(stack_file) -> None:
    """No shipped type lacks EFA, so the rule runs against a catalogue where trn1 does."""
    cat = catalogue.load()
    no_efa = msgspec.structs.replace(cat.instance_types["trn1.32xlarge"], efa_supported=False, efa_generation=None)
    patched = msgspec.structs.replace(cat, instance_types={**cat.instance_types, "trn1.32xlarge": no_efa})
    r = rules.get("efa-unsupported")
    stack = load_stack(str(stack_file(group("trn1.32xlarge", 2, more="    efa: true"))))
    hits = r.run(rules.RuleContext(stack, patched))
    assert [(f.rule, f.severity, f.line) for f in hits] == [("efa-unsupported", "error", 10)]
    near = load_stack(str(stack_file(group("trn1.32xlarge", 2, more="    efa: false"))))
    assert r.run(rules.RuleContext(near, patched)) == []
    assert r.run(rules.RuleContext(stack, cat)) == []  # the real trn1 supports EFA


def test_findings_point_at_the_declared_key(stack_file) -> None:
    """A group declared with `ultraservers` is pointed at on that key, not on a missing `count`."""
    path = stack_file(group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB))
    (hit,) = [f for f in plan_stack(load_stack(str(path))).findings if f.rule == "ultraserver-requires-lustre"]
    assert path.read_text().splitlines()[hit.line - 1].strip() == "ultraservers: 2"


def test_clustered_ultraservers_are_counted_whole_per_group(stack_file) -> None:
    """The message counts the UltraServers the groups occupy (booked whole, per group, as the estimate bills
    them: `ultraservers` in the cost's line item), with the instances beside them, not instances over members."""
    cluster = group("trn2u.48xlarge", 6, "capacity-block", CB) + TWO_MEMBERS.replace("count: 2", "count: 1")
    plan = plan_stack(load_stack(str(stack_file(cluster, "us-east-2"))))
    (hit,) = [f for f in plan.findings if f.rule == "ultraserver-requires-lustre"]
    assert hit.message.startswith(
        "3 UltraServers are clustered without FSx for Lustre (7 instances, in whole UltraServers as they are "
        "booked: node group 'g' 6 trn2u.48xlarge in 2 u-trn2x64 UltraServers of 4; node group 'h' 1 "
        "trn2u.48xlarge in 1 u-trn2x64 UltraServer of 4); "
    )
    assert "1.5" not in hit.message and "1.75" not in hit.message
    billed = {i.name: i.detail["ultraservers"] for i in plan.cost.line_items if "ultraservers" in i.detail}
    assert billed == {"g": 2, "h": 1}  # the same whole units the estimate bills
    assert (
        hit.fix is not None and not hit.fix.alternatives
    )  # two groups: no single group's size makes it one UltraServer
    assert hit.fix.reason == (
        "declare an FSx for Lustre file system (PERSISTENT_2, with a throughput tier and a storage capacity) in us-east-2b"
    )


def test_checkpoint_arithmetic_is_stated(stack_file) -> None:
    (hit,) = _findings(
        stack_file, trn2(2, lustre("SCRATCH_2", 1200) + workload("70e9")), "us-east-2", "lustre-checkpoint-time"
    )
    # 70e9 x 14 bytes = 980 GB; 1200/1024 TiB x 200 MB/s/TiB = 234.375 MB/s; 980e9 / 234.375e6 / 60 = 69.7 min
    assert "980 GB" in hit.message and "69.7 minutes" in hit.message and "234 MB/s" in hit.message


def test_bundled_stacks_have_no_error_findings() -> None:
    from planner.core.input.stack_files import load_stacks
    from planner.core.planning.pipeline import plan_stacks

    root = Path(__file__).resolve().parent.parent
    plans = plan_stacks(load_stacks([str(root / "stacks")]))
    assert len(plans) >= 3
    assert [f for p in plans for f in p.findings if f.severity == "error"] == []
