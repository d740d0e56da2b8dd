"""Rules no stronger than the AWS sentence they rest on (each test quotes it)."""

from __future__ import annotations

from planner.core import rules
from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue.instance_types import load
from planner.core.model.cluster import LaunchInterface
from planner.core.rules.program_shapes import layout_advice, layout_problems
from tests.conftest import fix_words

CAT = load()


def _layout(cards: range, primary: str = "efa") -> tuple[LaunchInterface, ...]:
    return tuple(LaunchInterface(c, c, 0, primary if c == 0 else "efa-only") for c in cards)


def test_only_an_efa_only_primary_interface_is_an_error() -> None:
    """EC2 User Guide, efa-acc-inst-types: "You can't use an EFA-only network interface as the primary network
    interface." The per-card layout is what AWS recommends ("we recommend the following basic configuration")."""
    assert (
        rules.get("efa-interface-layout").source
        == "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html"
    )
    bad = layout_problems("trn2.48xlarge", _layout(range(16), primary="efa-only"), CAT)
    assert [m for m, _ in bad] == [
        "the primary interface (networkCardIndex 0, deviceIndex 0) is 'efa-only'; AWS: \"You "
        "can't use an EFA-only network interface as the primary network interface\""
    ]
    short = _layout(range(4))
    assert layout_problems("trn2.48xlarge", short, CAT) == []  # allowed
    (advice,) = layout_advice("trn2.48xlarge", short, CAT)  # but fewer than recommended: a warning
    assert advice[0].startswith("trn2.48xlarge takes 16 EFA interfaces (network cards 0-15) but has them on 4")


def test_p6_b300_takes_16_efa_interfaces_on_17_cards() -> None:
    """DescribeInstanceTypes: p6-b300.48xlarge has MaximumNetworkCards 17 and MaximumEfaInterfaces 16, card 0
    offering only the `interface` type: the recommended layout is an ENA primary and EFA on cards 1-16."""
    t = CAT.instance_types["p6-b300.48xlarge"]
    assert (t.network_cards, t.efa_max_interfaces, t.efa_cards) == (17, 16, tuple(range(1, 17)))
    layout = (LaunchInterface(0, 0, 0, "interface"),) + tuple(
        LaunchInterface(c, c, 0, "efa-only") for c in range(1, 17)
    )
    assert (
        layout_problems("p6-b300.48xlarge", layout, CAT) == [] and layout_advice("p6-b300.48xlarge", layout, CAT) == []
    )


def test_the_256_instance_limit_is_not_said_to_be_raisable() -> None:
    """EC2 User Guide: "you can have up to 256 instances across Capacity Blocks"; nothing about raising it."""
    r = rules.get("capacity-block-size")
    assert str(blocks.MAX_INSTANCES_PER_ACCOUNT) in r.description
    assert "raise" not in r.description.lower() and "raise" not in r.remediation.lower()


def test_the_local_zone_group_is_said_to_be_the_usual_name_not_the_accounts_answer(stack_file) -> None:
    """Route 53 API, LocalZoneGroup: "A local Zone Group is usually the Local Zone code without the ending
    character." The fix names that group as AWS's usual naming, and where the account's own answer is."""
    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack

    cluster = (
        "availability_zone: us-east-1-dfw-2a\nnode_groups:\n  - {name: g, instance_type: p6e-gb200.36xlarge, "
        "ultraserver_type: u-p6e-gb200x36, ultraservers: 1, purchase: capacity-block}\nplacement_group: none\n"
    )
    plan = plan_stack(load_stack(str(stack_file(cluster, "us-east-1"))))
    (f,) = [f for f in plan.findings if f.rule == "local-zone-opt-in"]
    assert f.fix is not None and "--group-name us-east-1-dfw-2 " in fix_words(f)
    assert "as AWS usually names Local Zone groups" in fix_words(f) and "GroupName'` prints the account's" in fix_words(
        f
    )


# --- spot-unsupported follows DescribeInstanceTypes' usage classes ----------------------------------------


def test_spot_follows_describe_instance_types_usage_classes(stack_file) -> None:
    """EC2 API reference, InstanceTypeInfo.SupportedUsageClasses (botocore 1.44.8's EC2 model): "Indicates whether
    the instance type is offered for spot, On-Demand, or Capacity Blocks." (https://docs.aws.amazon.com/AWSEC2/
    latest/APIReference/API_InstanceTypeInfo.html). moto 5.2.6 serves trn2u.48xlarge with `spot` among them: a
    Spot trn2u.48xlarge group is no `spot-unsupported` error (near miss), only `ultraserver-purchase`'s warning;
    a type the catalogue lists without Spot (p6e-gb200.36xlarge) still is (the case)."""
    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack

    assert CAT.instance_types["trn2u.48xlarge"].spot and not CAT.instance_types["p6e-gb200.36xlarge"].spot
    trn2u = "availability_zone: us-east-2b\nnode_groups:\n  - {name: u, instance_type: trn2u.48xlarge, ultraservers: 1, purchase: spot}\n"
    found = plan_stack(load_stack(str(stack_file(trn2u, "us-east-2")))).findings
    assert [f.rule for f in found if f.rule == "spot-unsupported"] == []
    (warned,) = [f for f in found if f.rule == "ultraserver-purchase"]
    assert warned.severity == "warning" and "does not document Spot capacity for whole UltraServers" in warned.message
    gb200 = (
        "availability_zone: us-east-1-dfw-2a\nnode_groups:\n  - {name: g, instance_type: p6e-gb200.36xlarge, "
        "ultraserver_type: u-p6e-gb200x36, ultraservers: 1, purchase: spot}\n"
    )
    found = plan_stack(load_stack(str(stack_file(gb200, "us-east-1")))).findings
    assert [(f.rule, f.severity) for f in found if f.rule in ("spot-unsupported", "ultraserver-purchase")] == [
        ("spot-unsupported", "error")
    ]


PURCHASE_AND_PRICE = {"price-unknown", "ultraserver-purchase", "purchase-not-sold", "spot-unsupported"}


def test_trn2u_on_demand_is_no_more_not_sold_than_spot(stack_file) -> None:  # noqa: ANN001
    """EC2 User Guide, Capacity Blocks for ML (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
    ec2-capacity-blocks.html): "You can also use Capacity Blocks to reserve capacity for Amazon EC2 UltraServers."
    No page read says AWS does not sell UltraServer members on demand, and DescribeInstanceTypes lists the
    on-demand and spot usage classes for trn2u.48xlarge alike: on demand, as Spot, such a group draws the same
    `ultraserver-purchase` warning and an unknown price, never "AWS does not sell" (the case); a Capacity Block
    group is priced and draws neither (the near miss)."""
    from planner.core.cost.offers import not_sold
    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack

    assert not_sold("trn2u.48xlarge", "us-east-2", "on-demand") is None

    def plan(purchase: str):  # type: ignore[no-untyped-def]
        cluster = (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: u, instance_type: trn2u.48xlarge, ultraservers: 1, "
            f"purchase: {purchase}}}\nplacement_group: none\nschedule: {{hours: 168}}\n"
        )
        return plan_stack(load_stack(str(stack_file(cluster, "us-east-2", purchase))))

    for purchase in ("on-demand", "spot"):
        p = plan(purchase)
        rules_hit = sorted((f.rule, f.severity) for f in p.findings if f.rule in PURCHASE_AND_PRICE)
        assert rules_hit == [("price-unknown", "warning"), ("ultraserver-purchase", "warning")], (purchase, rules_hit)
        (line,) = [i for i in p.cost.line_items if i.name == "u"]
        assert line.price is None and not line.detail.get("not_sold") and "does not sell" not in (line.note or "")
    (od,) = [i for i in plan("on-demand").cost.line_items if i.name == "u"]
    assert "DescribeInstanceTypes lists the on-demand usage class" in (od.note or "")
    blocks = plan("capacity-block")
    assert {f.rule for f in blocks.findings} & PURCHASE_AND_PRICE == set()


def test_describe_instance_types_lists_spot_for_trn2u(monkeypatch, tmp_path) -> None:  # noqa: ANN001
    """The AWS data the catalogue follows (moto 5.2.6, locked): trn2u.48xlarge SupportedUsageClasses include `spot`."""
    import boto3
    from moto import mock_aws
    from test_preflight_helpers import isolate

    isolate(monkeypatch, tmp_path)
    with mock_aws():
        info = boto3.client("ec2", region_name="us-east-2").describe_instance_types(InstanceTypes=["trn2u.48xlarge"])
    assert "spot" in info["InstanceTypes"][0]["SupportedUsageClasses"]


# --- capacity-block-reservation-count: AWS documents no count -----------------------------------------------


def test_reservation_count_is_a_warning_as_aws_documents_no_count(stack_file) -> None:
    """EC2 API reference, CapacityBlock (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityBlock.html):
    capacityReservationIdSet, "The ID of the Capacity Reservation." (Type: Array of strings). AWS lists a block's
    reservations without saying how many an UltraServer block has: two ids for three UltraServers is a warning that
    says what planner builds (the case); three ids, one per UltraServer, draws nothing (the near miss)."""
    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack

    r = rules.get("capacity-block-reservation-count")
    assert r.severity == "warning" and r.source.endswith("API_CapacityBlock.html")
    assert "AWS does not document how many reservations" in r.description
    ids = "[cr-0123456789abcdef0, cr-0123456789abcdef1]"
    cluster = (
        "availability_zone: us-east-2b\nnode_groups:\n  - {name: u, instance_type: trn2u.48xlarge, ultraservers: 3, "
        f"purchase: capacity-block, capacity_reservation_id: {ids}}}\nplacement_group: none\n"
        "lustre: {deployment_type: PERSISTENT_2, storage_capacity_gib: 2400, per_unit_storage_throughput: 250}\n"
    )

    def hits(text: str) -> list:  # type: ignore[type-arg]
        found = plan_stack(load_stack(str(stack_file(text, "us-east-2")))).findings
        return [f for f in found if f.rule == r.id]

    (f,) = hits(cluster)
    assert f.severity == "warning"
    assert "AWS does not document how many reservations an UltraServer Capacity Block has" in f.message
    assert hits(cluster.replace(ids, ids[:-1] + ", cr-0123456789abcdef2]")) == []


# --- capacity-block-size: 64 instances is not offered everywhere ---------------------------------------------


def test_a_64_instance_block_is_a_warning_as_aws_does_not_offer_it_everywhere(stack_file) -> None:
    """EC2 User Guide, Work with Capacity Blocks (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
    capacity-blocks-using.html), a note under Prerequisites: "Capacity Block sizes of 64 instances are not supported
    for all instance types in all AWS Regions." The API reference (DescribeCapacityBlockOfferings, InstanceCount, as
    botocore 1.44.8 ships it): "The number of instances for which to reserve capacity. Each Capacity Block can have
    up to 64 instances, and you can have up to 256 instances across Capacity Blocks." (PurchaseCapacityBlock takes an
    offering id, no count.) AWS lists no type or Region where 64 is offered: a block of 64 is a warning naming the
    offerings call that answers it (the case); 63 draws nothing (the near miss); 65 stays an error."""
    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack

    assert blocks.FULL_BLOCK_SOURCE == "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html"
    r = rules.get("capacity-block-size")
    assert "not supported for all instance types in all AWS Regions" in r.description

    def hits(count: int) -> list:  # type: ignore[type-arg]
        cluster = (
            "availability_zone: us-east-2b\nnode_groups:\n  - {name: big, instance_type: p5en.48xlarge, "
            f"count: {count}, purchase: capacity-block, capacity_reservation_id: cr-0123456789abcdef0}}\n"
            "placement_group: none\nschedule: {hours: 100}\n"
        )
        return [f for f in plan_stack(load_stack(str(stack_file(cluster, "us-east-2")))).findings if f.rule == r.id]

    (f,) = hits(64)
    assert f.severity == "warning"
    assert f.message == (
        "node group 'big' asks for a Capacity Block of 64 p5en.48xlarge; AWS: \"Capacity Block sizes of 64 instances "
        'are not supported for all instance types in all AWS Regions" '
        "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html), and does not list which"
    )
    assert f.fix is not None and (
        "aws ec2 describe-capacity-block-offerings --region us-east-2 --instance-type p5en.48xlarge "
        "--instance-count 64 --capacity-duration-hours 120" in fix_words(f)
    )
    assert hits(63) == []
    assert [g.severity for g in hits(65)] == ["error"]


# --- imdsv2-required: planner's policy, after Security Hub EC2.8 ----------------------------------------------


def test_imdsv2_is_planners_policy_after_security_hub_ec2_8() -> None:
    """AWS Security Hub user guide, Security Hub controls for Amazon EC2
    (https://docs.aws.amazon.com/securityhub/latest/userguide/ec2-controls.html#ec2-8): "[EC2.8] EC2 instances should
    use Instance Metadata Service Version 2 (IMDSv2)". EC2 itself does not require it: LaunchTemplateInstanceMetadata
    OptionsRequest.HttpTokens (botocore 1.44.8's EC2 model): "Default: If the value of ImdsSupport for the Amazon
    Machine Image (AMI) for your instance is v2.0, the default is required." And the account-level default
    (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyInstanceMetadataDefaults.html): "Modifies the
    default instance metadata service (IMDS) settings at the account level in the specified AWS Region." So the rule
    is a warning that says it is planner's policy and which standard it follows; an unset httpTokens names the
    account's default and the AMI, which decide (the case: 'optional' and unset; the near miss: 'required')."""
    from planner.core.rules.resource_settings import SECURITY_HUB_EC2_8
    from planner.readback.resource_inputs import imdsv2_required
    from planner.readback.resources import LAUNCH_TEMPLATE

    r = rules.get("imdsv2-required")
    assert (r.severity, r.source) == ("warning", SECURITY_HUB_EC2_8)
    assert SECURITY_HUB_EC2_8 == "https://docs.aws.amazon.com/securityhub/latest/userguide/ec2-controls.html#ec2-8"
    assert r.description.startswith("planner's policy, following AWS Security Hub control EC2.8")
    assert "AWS does not require IMDSv2" in r.description
    assert "modify-instance-metadata-defaults --http-tokens required" in r.remediation
    (optional,) = imdsv2_required(LAUNCH_TEMPLATE, {"metadataOptions": {"httpTokens": "optional"}})
    assert optional.startswith("metadataOptions.httpTokens is 'optional'")
    # What's New, 2024-03-25 (https://aws.amazon.com/about-aws/whats-new/2024/03/set-imdsv2-default-new-instance-launches):
    # "Now, when enabled, any new instances launched from your account will be IMDSv2-only by default." and "You can
    # still manually override these settings and enable IMDSv1 using Instance Metadata option launch properties."
    # So an explicit 'optional' allows IMDSv1 whatever the account's default, and the message says so
    assert "whatever the account's IMDS default for the Region (a launch's own setting overrides it)" in optional
    assert optional.endswith(
        "planner's policy follows AWS Security Hub control EC2.8, \"EC2 instances should use Instance Metadata "
        f'Service Version 2 (IMDSv2)" ({SECURITY_HUB_EC2_8}); AWS does not require IMDSv2'
    )
    (unset,) = imdsv2_required(LAUNCH_TEMPLATE, {"instanceType": "p5.48xlarge"})
    assert "the account's IMDS default for the Region decides" in unset and "AMI's ImdsSupport" in unset
    assert imdsv2_required(LAUNCH_TEMPLATE, {"metadataOptions": {"httpTokens": "required"}}) == []


def test_the_pack_enforces_the_imdsv2_policy_as_advice() -> None:
    """A warning rule is advisory in the pack, as `planner-topology-warnings` is: an organisation that requires IMDSv2
    raises `planner-imdsv2` to mandatory in its policy config."""
    from planner.policy import policies

    assert policies.imdsv2.enforcement_level.value == "advisory"


# --- GB200 memory in the unit AWS gives ---------------------------------------------------------------------


def test_gb200_memory_is_counted_in_the_decimal_gb_aws_gives(stack_file) -> None:  # noqa: ANN001
    """AWS gives the GPU memory of a P6e-GB200 UltraServer of 72 GPUs as 13.4 TB of HBM3e (AWS News Blog,
    2025-07-09, the catalogue's source `aws-blog-p6e-gb200`; the shared facts of 2026-12-04 record it so): 186.1 GB
    each, in decimal units, which is 173.3 GiB, not 186 GiB. EC2's own unit is the MiB (botocore 1.44.8's EC2 model,
    GpuDeviceMemoryInfo.SizeInMiB: "The size of the memory available to the GPU accelerator, in MiB."), but its
    DescribeInstanceTypes data (botocore's, moto's) has no p6e-gb200.36xlarge. The memory fit counts 173.3 GiB: 870 B
    parameters (12,964 GiB of training state) do not fit one u-p6e-gb200x72 (12,479 GiB), though they would have at
    186 GiB a GPU (the case); 800 B parameters (11,921 GiB) fit (the near miss)."""
    from planner.core.catalogue.instance_types import GIB
    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack

    gb200 = CAT.instance_types["p6e-gb200.36xlarge"].accelerator
    assert (gb200.memory_gb, gb200.memory_gib) == (186.1, 173.32)
    assert round(186.1e9 / GIB, 2) == 173.32

    def hits(parameters: str) -> list:  # type: ignore[type-arg]
        cluster = (
            "availability_zone: us-east-1-dfw-2a\nnode_groups:\n  - {name: g, instance_type: p6e-gb200.36xlarge, "
            "ultraserver_type: u-p6e-gb200x72, ultraservers: 1, purchase: capacity-block}\nplacement_group: none\n"
            f"workload: {{parameters: {parameters}, tokens: 1e12, mfu: 0.4}}\n"
        )
        found = plan_stack(load_stack(str(stack_file(cluster, "us-east-1", parameters)))).findings
        return [f for f in found if f.rule == "workload-memory"]

    (f,) = hits("870e9")
    assert "= 12,964 GiB of training state" in f.message and "the cluster has 12,479 GiB" in f.message
    assert 870e9 * 16 / GIB < 72 * 186  # at 186 GiB a GPU it would have fit
    assert hits("800e9") == []
