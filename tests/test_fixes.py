"""Case-specific fixes (issue 15 item 4): each names the key to change in this stack and the
value to use, worked out from the stack's own values and the rule's data (which quotes the
AWS text it rests on, in tests/test_rules.py and the rule modules)."""

from __future__ import annotations

from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import plan_stack
from tests.conftest import said_fix
from tests.test_rules import CB, P2, group, trn2, workload  # the stacks the rule tests use
from tests.test_rules import lustre as lustre_fs


def _fixes(stack_file, cluster: str, rule_id: str, region: str = "us-east-2") -> list[str | None]:  # noqa: ANN001
    plan = plan_stack(load_stack(str(stack_file(cluster, region=region))))
    return [said_fix(plan, f) for f in plan.findings if f.rule == rule_id]


def lustre(body: str) -> str:
    return (
        "availability_zone: us-east-2b\nnode_groups:\n  - name: trainers\n    instance_type: trn2.48xlarge\n"
        "    count: 2\n    purchase: capacity-block\nlustre:\n"
        + "".join(f"  {line}\n" for line in body.strip().splitlines())
    )


def test_lustre_capacity_gives_the_nearest_valid_capacities(stack_file) -> None:
    # AWS: SCRATCH_2 takes 1.2 TiB or increments of 2.4 TiB (CreateFileSystem StorageCapacity)
    (fix,) = _fixes(stack_file, lustre("deployment_type: SCRATCH_2\nstorage_capacity_gib: 3000"), "lustre-capacity")
    assert (
        fix == "set lustre.storage_capacity_gib: 4800 (the nearest valid capacity above 3,000 GiB), or set "
        "lustre.storage_capacity_gib: 2400 (to stay under it)"
    )
    (fix,) = _fixes(stack_file, lustre("deployment_type: SCRATCH_2\nstorage_capacity_gib: 1000"), "lustre-capacity")
    assert (
        fix == "set lustre.storage_capacity_gib: 1200 (the nearest valid capacity above 1,000 GiB)"
    )  # nothing valid below


def test_lustre_throughput_gives_the_nearest_tier_and_the_tiers_that_take_the_capacity(stack_file) -> None:
    (fix,) = _fixes(
        stack_file,
        lustre("deployment_type: PERSISTENT_2\nstorage_capacity_gib: 2400\nper_unit_storage_throughput: 300"),
        "lustre-throughput",
    )
    assert fix == (
        "set lustre.per_unit_storage_throughput: 250 (the nearest offered for PERSISTENT_2; "
        "offered: 125, 250, 500, 1000 SSD)"
    )
    # PERSISTENT_1 at 3,600 GiB: only the 40 MB/s/TiB HDD tier (multiples of 1.8 TiB) takes it
    (fix,) = _fixes(
        stack_file, lustre("deployment_type: PERSISTENT_1\nstorage_capacity_gib: 3600"), "lustre-throughput"
    )
    assert fix == "set lustre.per_unit_storage_throughput: 40 (MB/s/TiB; the tiers that take 3,600 GiB: 40 HDD)"
    (fix,) = _fixes(
        stack_file, lustre("deployment_type: PERSISTENT_1\nstorage_capacity_gib: 2400"), "lustre-throughput"
    )
    assert fix == (
        "set lustre.per_unit_storage_throughput: 50 (MB/s/TiB; the tiers that take 2,400 GiB: 50, 100, 200 SSD)"
    )
    (fix,) = _fixes(
        stack_file,
        lustre("deployment_type: SCRATCH_2\nstorage_capacity_gib: 2400\nper_unit_storage_throughput: 200"),
        "lustre-throughput",
    )
    assert fix == "remove lustre.per_unit_storage_throughput (SCRATCH_2 runs at 200 MB/s/TiB)"


def test_lustre_efa_names_the_deployment_type_that_supports_it(stack_file) -> None:
    (fix,) = _fixes(
        stack_file, lustre("deployment_type: SCRATCH_2\nstorage_capacity_gib: 2400\nefa_enabled: true"), "lustre-efa"
    )
    # a complete change: PERSISTENT_2 needs a throughput tier (lustre-throughput otherwise)
    assert fix == (
        "set lustre.deployment_type: PERSISTENT_2; set lustre.per_unit_storage_throughput: 125 (the lowest tier "
        "that takes 2,400 GiB; MB/s/TiB offered: 125, 250, 500, 1000 SSD), or set lustre.efa_enabled: false"
    )


def test_lustre_same_az_names_the_node_groups_zone(stack_file) -> None:
    (fix,) = _fixes(stack_file, trn2(2, P2 + "\n  availability_zone: us-east-2c"), "lustre-same-az")
    assert fix == "set lustre.availability_zone: us-east-2b (that of the node groups)"


def test_placement_group_fixes_name_the_value_and_the_groups(stack_file) -> None:
    (fix,) = _fixes(stack_file, trn2(2, "placement_group: none"), "placement-group")
    assert fix == "remove placement_group: none (a cluster placement group is the default for on-demand EFA groups)"
    (fix,) = _fixes(
        stack_file, group("p5en.48xlarge", 8, "capacity-block", CB + "\nplacement_group: cluster"), "placement-group"
    )
    assert (
        fix
        == "set placement_group: none (AWS: there is no need to use a cluster placement group with a Capacity Block)"
    )
    (fix,) = _fixes(
        stack_file,
        group("p5en.48xlarge", 8, "capacity-block", CB + "\n  - {name: od, instance_type: p5en.48xlarge, count: 1}"),
        "placement-group",
    )
    assert fix == (
        "plan the Capacity Block group(s) 'g' as a separate stack without a placement group, and keep 'od' here"
    )


def test_efa_fixes_name_the_group_and_the_value(stack_file) -> None:
    (fix,) = _fixes(stack_file, trn2(2, "    efa: false"), "efa-recommended")
    assert fix == "in node group 'trainers', remove efa: false (EFA is on by default for trn2.48xlarge)"
    (fix,) = _fixes(
        stack_file,
        trn2(1, "  - {name: more, instance_type: trn2.48xlarge, count: 1, availability_zone: us-east-2c}"),
        "efa-single-az",
    )
    assert fix == "in node group 'more', set availability_zone: us-east-2b (that of 'trainers')"


def test_public_ip_fix_names_the_group(stack_file) -> None:
    (fix,) = _fixes(stack_file, trn2(1, "    public_ip: true"), "public-ip-multi-card")
    assert fix == (
        "in node group 'trainers', set public_ip: false (reach the nodes through a bastion, SSM Session Manager "
        "or a NAT gateway), or set efa: false (if its trn2.48xlarge nodes need no EFA)"
    )


def test_ultraserver_fixes(stack_file) -> None:
    (fix,) = _fixes(
        stack_file, group("trn2u.48xlarge", "ultraservers: 2", "capacity-block", CB), "ultraserver-requires-lustre"
    )
    assert fix == (
        "declare an FSx for Lustre file system (PERSISTENT_2, with a throughput tier and a storage capacity) "
        "in us-east-2b, or in node group 'g', set ultraservers: 1 (one UltraServer)"
    )
    (fix,) = _fixes(stack_file, group("trn2u.48xlarge", 8, "capacity-block", CB), "ultraserver-requires-lustre")
    assert fix.endswith("or in node group 'g', set count: 4 (one UltraServer)")
    (fix,) = _fixes(stack_file, group("trn2u.48xlarge", "ultraservers: 1", "on-demand"), "ultraserver-purchase")
    assert fix == "in node group 'g', set purchase: capacity-block, or confirm on-demand UltraServer capacity with AWS"


def test_checkpoint_fix_gives_the_tier_or_the_capacity_that_writes_in_time(stack_file) -> None:
    # 70e9 x 14 bytes = 980 GB in 15 minutes: 1,089 MB/s
    (fix,) = _fixes(stack_file, trn2(2, lustre_fs("SCRATCH_2", 1200) + workload("70e9")), "lustre-checkpoint-time")
    # SCRATCH_2 runs at 200 MB/s/TiB: 5.57 TiB, the next valid capacity is 7,200 GiB (1,406 MB/s)
    assert fix == (
        "set lustre.storage_capacity_gib: 7200 (1,406 MB/s at 200 MB/s/TiB; 1,089 MB/s needed), "
        "or set workload.checkpoint_max_minutes: 70"
    )
    (fix,) = _fixes(
        stack_file,
        trn2(2, lustre_fs("PERSISTENT_2", 2400, "  per_unit_storage_throughput: 125\n") + workload("70e9")),
        "lustre-checkpoint-time",
    )
    # 2,400 GiB = 2.34 TiB: 250 MB/s/TiB gives 586 MB/s, 500 gives 1,172 MB/s
    assert fix == (
        "set lustre.per_unit_storage_throughput: 500 (1,172 MB/s at 2,400 GiB; 1,089 MB/s needed), "
        "or set workload.checkpoint_max_minutes: 56"
    )


def test_workload_fixes(stack_file) -> None:
    # 1e12 x 16 bytes = 14,901 GiB; a trn2.48xlarge has 16 x 96 = 1,536 GiB: 10 instances hold it, 9 do not
    (fix,) = _fixes(stack_file, trn2(2, workload("1e12")), "workload-memory")
    assert fix == (
        "in node group 'trainers', set count: 10 (8 more trn2.48xlarge for 14,901 GiB, 1,536 GiB each, "
        "before activations), or train fewer parameters"
    )
    (fix,) = _fixes(
        stack_file,
        group("p5en.48xlarge", 4, more=workload("8e9") + "schedule: {hours: 1000}"),
        "workload-exceeds-schedule",
    )
    assert fix == "set schedule.hours: 1405 (the hours the workload needs), or train on fewer tokens"


def test_lustre_efa_clients_and_scratch_long_run_fixes(stack_file) -> None:
    (fix,) = _fixes(
        stack_file,
        group("p5en.48xlarge", 1, "on-demand", "    efa: false\n" + P2 + "\n  efa_enabled: true", name="trainers"),
        "lustre-efa-clients",
    )
    assert fix == "in node group 'trainers', remove efa: false, or set lustre.efa_enabled: false"
    # the trn2 family is no EFA client of FSx for Lustre: turning EFA on would not help
    (fix,) = _fixes(stack_file, trn2(1, "    efa: false\n" + P2 + "\n  efa_enabled: true"), "lustre-efa-clients")
    assert fix.startswith("set lustre.efa_enabled: false")
    (fix,) = _fixes(
        stack_file, trn2(1, lustre_fs("SCRATCH_2", 2400) + "schedule: {hours: 169}"), "lustre-scratch-long-run"
    )
    assert fix == (
        "set lustre.deployment_type: PERSISTENT_2; set lustre.per_unit_storage_throughput: 125 (the lowest tier "
        "that takes 2,400 GiB; MB/s/TiB offered: 125, 250, 500, 1000 SSD), or export checkpoints to S3 regularly"
    )


def test_subnet_and_scale_fixes(stack_file) -> None:
    cluster = trn2(
        1,
        lustre_fs("PERSISTENT_2", 2400, "  per_unit_storage_throughput: 250\n  availability_zone: us-east-2c\n")
        + "network: {vpc_id: vpc-0123456789abcdef0, subnet_id: subnet-0123456789abcdef0}",
    )
    (fix,) = _fixes(stack_file, cluster, "subnet-single-az")
    assert fix.startswith(
        "put every node group and the file system in the Availability Zone of subnet subnet-0123456789abcdef0"
    )
    # AWS documents P5 UltraClusters of up to 20,000 H100 (2,500 p5.48xlarge x 8)
    (fix,) = _fixes(stack_file, group("p5.48xlarge", 2501), "ultracluster-scale")
    assert fix == (
        "in node group 'g', set count: 2500 (at most 20,000 H100 per cluster: 8 fewer), "
        "or confirm with AWS that 20,008 H100 fit one UltraCluster"
    )


def test_capacity_block_account_limit_fix(stack_file) -> None:
    cluster = (
        "availability_zone: us-east-2b\nnode_groups:\n"
        + "".join(
            f"  - {{name: b{i}, instance_type: p5en.48xlarge, count: 64, purchase: capacity-block}}\n" for i in range(5)
        )
        + "placement_group: none"
    )
    # EC2 User Guide: "you can have up to 256 instances across Capacity Blocks" (nothing about raising it)
    # each group in proportion: 5 x 51 = 255 instances
    fixes = [f for f in _fixes(stack_file, cluster, "capacity-block-size") if f and f.endswith("can hold more")]
    assert fixes == [
        "in node group 'b0', set count: 51; in node group 'b1', set count: 51; in node group 'b2', set count: 51; "
        "in node group 'b3', set count: 51; in node group 'b4', set count: 51 (at most 256 instances across "
        "Capacity Blocks: 64 fewer), or ask AWS whether your account can hold more"
    ]
