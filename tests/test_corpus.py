"""Public training clusters, translated to Pulumi programs (tests/corpus), planned with `--program`.

Each program's header names its source repository, path and commit; its values are the
source's, even where wrong. These tests pin what the read-back sees (types, counts, EFA,
placement, purchase) and what it finds, and that the policy pack reads the same topology.
"""

from __future__ import annotations

import copy
import json
import re
import runpy
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from planner.core.document import codec

CORPUS = ROOT / "tests" / "corpus"
PROGRAMS = sorted(p.name for p in CORPUS.iterdir() if (p / "Pulumi.yaml").is_file())
# every stack of every program: `test`, and a near miss the same source gives with other values (its own stack)
CASES = [
    (name, f.name.removeprefix("Pulumi.").removesuffix(".yaml"))
    for name in PROGRAMS
    for f in sorted((CORPUS / name).glob("Pulumi.*.yaml"))
]


@cache
def planned(name: str, stack: str = "test") -> tuple[int, dict[str, Any]]:
    result = run_cli("plan", "--program", f"tests/corpus/{name}", "--stack", stack, "--format", "json")
    assert result.code in (0, 1), result.err
    (stack,) = json.loads(result.out)["stacks"]
    return result.code, stack


def groups(stack: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (g["name"], g["instance_type"], g["instances"], g["purchase"], g["efa"], g["availability_zone"])
        for g in stack["summary"]["node_groups"]
    ]


def findings(stack: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["rule"], f["severity"]) for f in stack["findings"])


def captured(program: Path, stack: str = "test") -> tuple[list[Any], dict[str, str]]:
    """The resources the program in `program` registers for `stack` under Pulumi's mocks
    (`planner.policy.testing.capture`), and the stack config it ran with: each program runs once
    a test process, each test gets its own copy."""
    return copy.deepcopy(_captured(program, stack))


@cache
def _captured(program: Path, stack: str) -> tuple[list[Any], dict[str, str]]:
    from planner.policy.testing import capture
    from planner.runtime import offline_run as programs

    project = programs.load(str(program))
    config = project.config(stack)
    specs = capture(
        lambda: runpy.run_path(project.main + "/__main__.py", run_name="__main__"),
        config=config,
        stack=stack,
        project=project.name,
    )
    return specs, config


def message(stack: dict[str, Any], rule: str) -> list[str]:
    return [f["message"] for f in stack["findings"] if f["rule"] == rule]


def test_every_corpus_program_names_its_source_and_commit() -> None:
    assert len(PROGRAMS) >= 11
    for name in PROGRAMS:
        header = (CORPUS / name / "__main__.py").read_text().split('"""')[1]
        assert "Source: " in header and re.search(r"commit\s+[0-9a-f]{40}\b", header), name


def test_batch_compute_environment_is_unsized_never_silent() -> None:
    """aws-samples/awsome-distributed-training 1.architectures/3.aws-batch/0.aws-batch-distributed-training.yaml:
    p4d.24xlarge between 0 and 100000 vCPUs: planned at 0 now, its maximum (100,000 // 96 vCPUs = 1,041 instances)
    named and priced as the second figure."""
    code, stack = planned("batch-p4d")
    assert code == 0 and groups(stack) == []  # its launch template does not require IMDSv2: a warning (policy)
    assert findings(stack) == [("imdsv2-required", "warning"), ("scaling-maximum", "info")]
    (text,) = message(stack, "scaling-maximum")
    assert text.startswith(
        "AWS Batch compute environment 'distributed-deep-learning-ce' launches p4d.24xlarge on demand "
        "(planned at 0 now): maxVcpus 100,000 allows at most 1,041 p4d.24xlarge ("
    )
    (f,) = [f for f in stack["findings"] if f["rule"] == "scaling-maximum"]
    assert f["file"] == "tests/corpus/batch-p4d/__main__.py" and f["line"] == 43
    assert f["resource"].endswith("aws:batch/computeEnvironment:ComputeEnvironment::distributed-deep-learning-ce")
    (item,) = stack["cost"]["maximum_estimate"]["line_items"]
    assert (item["instance_type"], item["instances"]) == ("p4d.24xlarge", 1041)
    assert f"${item['hourly_usd']:,.2f}/h at the maximum: 1,041 p4d.24xlarge" in text


def test_unmanaged_capacity_block_group_plans_at_desired_and_reports_the_maximum() -> None:
    """awsome-distributed-training 1.architectures/4.amazon-eks/amazon-eks-nodegroup.yaml: desired 3, max 4,
    32 EFA interfaces on a p5.48xlarge Capacity Block; no placement group (and none advised)."""
    code, stack = planned("eks-p5-capacity-block-unmanaged")
    assert code == 0  # its launch template sets httpTokens: optional (imdsv2-required, a warning)
    assert groups(stack) == [("node-group", "p5.48xlarge", 3, "capacity-block", True, "us-east-2a")]
    assert stack["summary"]["placement_group"] == "none"
    assert findings(stack) == [("imdsv2-required", "warning"), ("scaling-maximum", "info")]
    (text,) = message(stack, "scaling-maximum")
    assert "may scale to 4 p5.48xlarge" in text and "/h at the maximum" in text


def test_managed_capacity_block_group_in_a_placement_group_is_flagged() -> None:
    """aws-ia/terraform-aws-eks-blueprints patterns/ml-capacity-block/eks.tf: the EKS module's EFA support adds a
    cluster placement group to a Capacity Block group. The m5.large add-on group (issue 35: every type AWS lists is
    planned) is planned and priced beside it, and, launched into no placement group, is not held to one AZ."""
    code, stack = planned("eks-p5e-capacity-block-managed")
    assert code == 0
    assert groups(stack) == [
        ("cbr", "p5e.48xlarge", 2, "capacity-block", True, "us-west-2a"),
        ("default", "m5.large", 2, "on-demand", False, "us-west-2a"),
    ]
    assert "node-group-multi-az" not in {rule for rule, _ in findings(stack)}
    (m5,) = [i for i in stack["cost"]["line_items"] if i.get("instance_type") == "m5.large"]
    assert m5["unit_price_usd"] == _price("m5.large", "us-west-2", "on-demand")
    assert stack["summary"]["placement_group"] == "cluster"
    assert ("placement-group", "info") in findings(stack)  # AWS: "there is no need to use" one
    assert "holds Capacity Block group(s) cbr" in message(stack, "placement-group")[0]
    assert ("efa-interface-layout", "error") not in findings(stack)  # card 0 efa, 31 efa-only: one per card


def test_mixed_instances_group_over_two_zones_is_one_error_not_a_split() -> None:
    """aws/aws-k8s-tester kubetest2/internal/deployers/eksapi/templates/unmanaged-nodegroup-efa.yaml: the type
    comes from the template through the mixed instances policy; the group's subnets span two AZs."""
    code, stack = planned("eks-mixed-instances-efa")
    assert code == 1
    assert groups(stack) == [("node-group", "p5.48xlarge", 2, "on-demand", True, "us-west-2a")]
    assert message(stack, "node-group-multi-az") == [
        "node group 'node-group' may launch in us-west-2a, us-west-2b: EFA traffic does not cross AZs, so its "
        "instances in different AZs cannot reach each other over EFA"
    ]


def test_instances_with_efa_network_interfaces_read_efa_from_the_interfaces() -> None:
    """whn09/DeepEP start_ec2.sh: two p5en.48xlarge, 16 EFA interfaces each, a placeholder reservation id and an
    existing subnet: region from the explicit provider, the AZ an explicit gap, the bad id named."""
    code, stack = planned("instances-p5en-efa-enis")
    assert code == 0
    assert stack["region"] == "us-west-2"
    assert groups(stack) == [("p5", "p5en.48xlarge", 2, "capacity-block", True, "")]
    gaps = message(stack, "readback-gap")
    assert sum("YOUR_CapacityReservationId" in g for g in gaps) == 2
    assert sum("cannot tell the Availability Zone" in g for g in gaps) == 1
    assert "placement-group" not in {rule for rule, _ in findings(stack)}  # no cluster placement group here


def test_neuron_groups_scaled_to_zero_are_reported_never_planned_at_their_maximum() -> None:
    """awslabs/data-on-eks ai-ml/trainium-inferentia/eks.tf: trn1/trn1n groups at desired 0 (max 4 and 2), inf2
    (now listed, from the generated table) at desired 0: no accelerated instance is planned, nothing is dropped
    without a word; the m5.xlarge core group runs 3 (issue 35: planned and priced like any type AWS lists)."""
    code, stack = planned("eks-trn1-neuron")
    assert code == 0 and groups(stack) == [("core-node-group", "m5.xlarge", 3, "on-demand", False, "")]
    assert stack["summary"]["instances"] == 3 and stack["summary"]["accelerators"] == 0  # imdsv2-required warns
    assert len(message(stack, "imdsv2-required")) == 2
    assert [m.split(" ($")[0] for m in sorted(message(stack, "scaling-maximum")) if "trn1" in m] == [
        "EKS node group 'trn1-32xl-ng1' has a desired size of 0 (planned at 0 instances) and may scale to 4 trn1.32xlarge",
        "EKS node group 'trn1n-32xl-ng' has a desired size of 0 (planned at 0 instances) and may scale to 2 trn1n.32xlarge",
    ]
    # inf2 is listed now (the generated table): its groups at 0 are said with their maximum, not "outside"
    assert "instance-type-unlisted" not in {rule for rule, _ in findings(stack)}
    inf2 = sorted(m for m in message(stack, "scaling-maximum") if "inf2." in m)
    assert [m.split(" (")[0] for m in inf2] == [
        "EKS node group 'inf2-24xl-ng' has a desired size of 0",
        "EKS node group 'inf2-48xl-ng' has a desired size of 0",
    ]
    # bought as Spot: no book has Spot prices, so the maximum says it has none (never a figure of another purchase)
    assert all(m.endswith("(no price for it)") for m in inf2)
    # now: the core group and its root volumes, priced; the accelerated groups run none
    cost = stack["cost"]
    assert cost["complete"] is True
    assert [(i["name"], i.get("instances")) for i in cost["line_items"]] == [
        ("core-node-group", 3),
        ("core-node-group root volumes", 3),
    ]
    most = cost["maximum_estimate"]
    assert most["complete"] is False
    assert [(i["name"], i["instances"]) for i in most["line_items"] if "instance_type" in i] == [
        ("core-node-group", 8),
        ("inf2-24xl-ng", 2),
        ("inf2-48xl-ng", 2),
        ("trn1-32xl-ng1", 4),
        ("trn1n-32xl-ng", 2),
    ]


def test_pcs_launch_template_without_a_type_and_its_node_group() -> None:
    """aws-samples/aws-hpc-recipes recipes/pcs/enable_efa/assets/pcs-lt-efa-p5.yaml: a template with no instance
    type, its placement group made outside Pulumi; the PCS node group that uses it sizes itself."""
    code, stack = planned("pcs-p5-efa-launch-template")
    assert code == 0 and groups(stack) == []
    (text,) = message(stack, "scaling-maximum")
    assert text.startswith(
        "AWS PCS compute node group 'p5-nodes' launches p5.48xlarge on demand (planned at 0 now): "
        "maxInstanceCount 4 allows at most 4 instances ($220.16/h at the maximum: 4 p5.48xlarge)"
    )


def _price(itype: str, region: str, purchase: str) -> float:
    from planner.core.cost.book import load_price_book
    from planner.core.cost.items import instance_key

    found = instance_key(itype, region, purchase).look_up(load_price_book(None))
    assert found is not None
    return float(found.usd)


def _node_groups(name: str, stack_name: str = "test") -> Any:
    """The node groups the pack reads from the program (every model field, the reservations too)."""
    from planner.policy.planning import plan_resources
    from planner.policy.testing import stack_args

    specs, config = captured(CORPUS / name, stack_name)
    outcome = plan_resources(stack_args(specs, region=config.get("aws:region")).resources, {})
    return outcome.plan.stack.cluster.node_groups


def test_pcs_capacity_block_group_is_counted_and_priced_as_the_block() -> None:
    """arminagha1234/trainium-course-cluster scripts/deploy-pcs.sh (--purchase-option CAPACITY_BLOCK, the live run
    of its README): purchaseOption CAPACITY_BLOCK, a launch template with market type capacity-block and the
    block's reservation, static scaling 1..1 trn2.3xlarge. One node group in the summary, bought as a Capacity
    Block into cr-0e168cd22e5919f69 and priced at the Capacity Block rate of sa-east-1 (before: 0 instances, and
    priced on demand, which has no sa-east-1 price); nothing beyond it at the maximum; the AMI's root volume
    left out and named, so the estimate is not complete."""
    code, stack = planned("pcs-trn2-capacity-block")
    assert code == 0
    assert groups(stack) == [("nki-cng", "trn2.3xlarge", 1, "capacity-block", False, "sa-east-1a")]
    assert stack["summary"]["instances"] == 1 and stack["summary"]["accelerators"] == 1
    assert findings(stack) == [("imdsv2-required", "warning")]  # no readback-gap: purchase and market type agree
    (g,) = _node_groups("pcs-trn2-capacity-block")
    assert g.capacity_reservation_ids == ("cr-0e168cd22e5919f69",) and g.max_count is None
    cost = stack["cost"]
    (item,) = [i for i in cost["line_items"] if "instance_type" in i]
    assert (item["purchase"], item["instances"]) == ("capacity-block", 1)
    assert item["unit_price_usd"] == _price("trn2.3xlarge", "sa-east-1", "capacity-block")
    assert cost.get("maximum_estimate") is None  # minInstanceCount = maxInstanceCount
    assert cost["complete"] is False
    assert cost["left_out"] == ["nki-cng root volumes (size unknown: the AMI's default mapping)"]


def test_pcs_on_demand_group_of_the_same_script_stays_on_demand() -> None:
    """Near miss: the same script's README "Option B" (--purchase-option ONDEMAND, trn1.32xlarge in us-west-2): no
    market type, no reservation, purchaseOption ONDEMAND: one node group bought on demand, at the On-Demand rate."""
    code, stack = planned("pcs-trn2-capacity-block", "ondemand")
    assert code == 0
    assert groups(stack) == [("nki-cng", "trn1.32xlarge", 1, "on-demand", False, "us-west-2a")]
    assert findings(stack) == [("imdsv2-required", "warning")]
    (g,) = _node_groups("pcs-trn2-capacity-block", "ondemand")
    assert g.capacity_reservation_ids == ()
    (item,) = [i for i in stack["cost"]["line_items"] if "instance_type" in i]
    assert item["unit_price_usd"] == _price("trn1.32xlarge", "us-west-2", "on-demand")


def test_efa_interface_groups_are_judged_together_as_aws_applies_them() -> None:
    """aws-samples/aws-do-eks eks-gpu-p4de.yaml through eksctl's layout: every EFA interface carries the shared
    node group (all traffic in from itself, out to anywhere), the node group's own group (ingress from the control
    plane only) and the EFA group (all traffic in from and out to itself). AWS aggregates an interface's groups
    into one set of rules, so no efa-security-group error, although neither of the first two allows all traffic
    to itself in both directions on its own."""
    from planner.readback import security_groups
    from planner.readback.resources import Graph, from_policy

    code, stack = planned("eksctl-p4de-efa-security-groups")
    assert code == 0
    assert groups(stack) == [
        ("nodegroup", "p4de.24xlarge", 2, "on-demand", True, "us-east-1c"),
        ("sys", "c5.2xlarge", 1, "on-demand", False, "us-east-1a"),  # the system group, planned (issue 35)
    ]
    assert findings(stack) == [("scaling-maximum", "info")]
    specs, config = captured(CORPUS / "eksctl-p4de-efa-security-groups")
    from planner.policy.testing import stack_args

    graph = Graph(from_policy(r) for r in stack_args(specs, region=config.get("aws:region")).resources)
    alone = {
        sg.name: security_groups.self_referencing(graph, sg)
        for sg, _ in security_groups.efa_security_groups(graph).values()
    }
    assert alone == {"ClusterSharedNodeSecurityGroup": {"ingress"}, "SG": set(), "EFASG": {"ingress", "egress"}}


def test_efa_interface_groups_without_an_egress_rule_to_themselves_are_still_an_error(tmp_path: Path) -> None:
    """Near miss: the same program without eksctl's EFAEgressSelf rule. No group of the interfaces allows all
    traffic out to itself: each of the three is reported, by the CLI and by the pack alike."""
    from planner.policy.testing import check

    program = tmp_path / "eksctl-p4de-efa-security-groups"
    shutil.copytree(CORPUS / "eksctl-p4de-efa-security-groups", program)
    main = program / "__main__.py"
    text = main.read_text()
    start = text.index('aws.vpc.SecurityGroupEgressRule("EFAEgressSelf"')
    main.write_text(text[:start] + text[text.index("placement = ", start) :])
    result = run_cli("plan", "--program", str(program), "--stack", "test", "--format", "json")
    assert result.code == 1, result.err
    (stack,) = json.loads(result.out)["stacks"]
    errors = message(stack, "efa-security-group")
    assert len(errors) == 3 and all("does not allow all traffic outbound to itself" in m for m in errors)
    assert sorted(m.split("'")[1] for m in errors) == ["ClusterSharedNodeSecurityGroup", "EFASG", "SG"]
    specs, config = _captured(program, "test")
    pack = [r.message for r in check(specs, region=config.get("aws:region")) if "[efa-security-group]" in r.message]
    assert len(pack) == 3


def test_odcr_resource_group_is_a_deploy_time_reference_and_min_above_desired_is_refused() -> None:
    """aws-ia/terraform-aws-eks-blueprints patterns/targeted-odcr: the launch template targets the ARN of an
    aws.resourcegroups.Group of the program (known at deploy): a stated gap, never "not a resource group ARN";
    the block's second sizes (min 4, max 5, desired 2) are refused by EKS: an error naming the properties."""
    code, stack = planned("eks-p5-odcr-resource-group")
    assert code == 1
    assert groups(stack) == [
        ("default", "m5.large", 2, "on-demand", False, "us-west-2a"),  # the add-on group, planned (issue 35)
        ("odcr", "p5.48xlarge", 2, "on-demand", True, "us-west-2a"),
    ]
    assert findings(stack) == [
        ("readback-gap", "warning"),
        ("scaling-maximum", "info"),
        ("scaling-size-refused", "error"),
    ]
    (gap,) = message(stack, "readback-gap")
    assert gap == (
        "'odcr' targets the capacity reservation resource group 'odcr', whose ARN is known only at deploy: "
        "its region and the reservations it holds are not checked"
    )
    assert message(stack, "scaling-size-refused") == [
        "EKS node group 'odcr' has scalingConfig.minSize 4 above scalingConfig.desiredSize 2: AWS refuses to create it "
        "(scalingConfig.desiredSize must lie between scalingConfig.minSize and scalingConfig.maxSize)"
    ]
    (most,) = [i for i in stack["cost"]["maximum_estimate"]["line_items"] if i.get("instance_type") == "p5.48xlarge"]
    assert most["instances"] == 5 and "may scale to 5 p5.48xlarge" in message(stack, "scaling-maximum")[0]


def test_elastic_eksctl_group_is_planned_at_desired_and_priced_at_its_maximum() -> None:
    """awsome-distributed-training eks-p4de-odcr.yaml: minSize 0, desiredCapacity 2, maxSize 10, volumeSize 500:
    2 p4de.24xlarge now, 10 at the maximum, both with their gp3 root volumes; the placeholder reservation named."""
    code, stack = planned("eksctl-p4de-odcr-elastic")
    assert code == 0
    assert groups(stack) == [
        ("p4de-odcr", "p4de.24xlarge", 2, "on-demand", True, "us-east-1b"),
        ("sys", "c5.2xlarge", 1, "on-demand", False, "us-east-1a"),  # the system group, planned (issue 35)
    ]
    cost = stack["cost"]
    assert cost["complete"] is True and "left_out" not in cost
    most = cost["maximum_estimate"]
    assert most["complete"] is True
    assert [(i["name"], i["instances"]) for i in most["line_items"]] == [
        ("p4de-odcr", 10),
        ("p4de-odcr root volumes", 10),
        ("sys", 1),
        ("sys root volumes", 1),
    ]
    p4de = [i["hourly_usd"] for i in cost["line_items"] if i["name"].startswith("p4de-odcr")]
    sys_now = sum(i["hourly_usd"] for i in cost["line_items"] if i["name"].startswith("sys"))
    assert most["hourly_usd"] == pytest.approx(5 * sum(p4de) + sys_now)  # the p4de group x 5, the sys group as is
    (gap,) = message(stack, "readback-gap")
    assert "'PLACEHOLDER_CAPACITY_RESERVATION_ID', which is not a reservation id" in gap


def test_karpenter_pools_are_read_by_family_with_their_limits() -> None:
    """awslabs/ai-on-eks addons.tf karpenter resources: the trn1 family pool (cpu 1000) may run at most 7
    trn1.32xlarge (128 vCPUs each) and is priced there. Since issue 35 every type AWS lists is planned: the
    g5/g6/g6e/inf2 pools and the m5 and graviton (c/m/r, arm64) pools are read by family, category and
    architecture against the generated table and priced at their maximum too; nothing is outside the catalogue."""
    code, stack = planned("karpenter-pools-by-family")
    assert code == 0 and groups(stack) == []
    pools = {m.split("'")[1]: m for m in message(stack, "scaling-maximum")}
    assert sorted(pools) == [
        "g5-gpu-karpenter",
        "g6-gpu-karpenter",
        "g6e-gpu-karpenter",
        "graviton-cpu-karpenter",
        "inferentia-inf2",
        "trainium-trn1",
        "x86-cpu-karpenter",
    ]
    trn1 = pools["trainium-trn1"]
    assert trn1.startswith("Karpenter node pool 'trainium-trn1' launches ")
    assert "spec.limits (cpu 1,000) allow at most " in trn1 and "7 trn1.32xlarge" in trn1
    assert "EC2NodeClass 'trainium-trn1': subnets in us-west-2a, us-west-2b" in trn1
    # g6e by family and size: 192 vCPUs each, so 5 g6e.48xlarge under cpu 1000 (DescribeInstanceTypes' vCPUs)
    assert "5 g6e.48xlarge" in pools["g6e-gpu-karpenter"]
    # kubernetes.io/arch In [arm64]: Graviton types only (the table's architectures), never an x86 c7i
    graviton = pools["graviton-cpu-karpenter"].split(" launches ")[1].split(" on demand")[0].split(", ")
    from planner.core.catalogue.instance_types import architectures

    assert graviton and all(architectures(t) == ("arm64",) for t in graviton)
    assert "c7i.8xlarge" not in graviton and "c7g.8xlarge" in graviton
    assert "instance-type-unlisted" not in {rule for rule, _ in findings(stack)}
    most = stack["cost"]["maximum_estimate"]
    assert most["complete"] is True and not most.get("left_out")
    priced = {i["name"] for i in most["line_items"] if i.get("instance_type")}
    assert {"g6e-gpu-karpenter", "x86-cpu-karpenter", "inferentia-inf2"} <= priced


def test_hyperpod_instance_groups_are_counted_never_priced_as_ec2_and_keep_their_lustre() -> None:
    """awsome-distributed-training 5.sagemaker-hyperpod README: 4 ml.trn1.32xlarge (InstanceCount, the ml. prefix
    mapped for the specs), the ml.c5.xlarge controller named; the FSx for Lustre of 3.FSxLustre.yaml kept and
    priced; no HyperPod price: the estimate is incomplete and says what it leaves out."""
    code, stack = planned("hyperpod-trn1-lustre")
    assert code == 0
    (hp,) = [m for m in message(stack, "compute-unsized") if "'compute-nodes'" in m]
    assert hp.startswith(
        "SageMaker HyperPod cluster 'ml-cluster' instance group 'compute-nodes' runs 4 x ml.trn1.32xlarge "
        "(trn1.32xlarge, 64 Trainium); EFA and placement are provided by HyperPod"
    )
    assert "never at the EC2 price" in hp
    # the controller is listed now (issue 35): counted and named like the compute nodes, with no HyperPod price
    (controller,) = [m for m in message(stack, "compute-unsized") if "'controller-machine'" in m]
    assert "runs 1 x ml.c5.xlarge (c5.xlarge)" in controller
    assert stack["summary"]["lustre"]["deployment_type"] == "PERSISTENT_2"
    cost = stack["cost"]
    assert cost["complete"] is False and cost["left_out"] == [
        "SageMaker HyperPod cluster 'ml-cluster' instance group 'compute-nodes' (4 x ml.trn1.32xlarge: no price)",
        "SageMaker HyperPod cluster 'ml-cluster' instance group 'controller-machine' (1 x ml.c5.xlarge: no price)",
    ]
    assert [i["name"] for i in cost["line_items"]] == ["lustre"]  # no EC2 line for the HyperPod nodes
    assert all("trn1" not in (i.get("instance_type") or "") for i in cost["line_items"])


def _lustre(name: str, stack_name: str = "test") -> Any:
    """The file system the pack reads from the program (every model field: metadata, EFA group, read cache)."""
    from planner.policy.planning import plan_resources
    from planner.policy.testing import stack_args

    specs, config = captured(CORPUS / name, stack_name)
    return plan_resources(stack_args(specs, region=config.get("aws:region")).resources, {}).plan.stack.cluster.lustre


def test_efa_enabled_intelligent_tiering_file_system_is_read_whole_and_passes_its_rules() -> None:
    """aws-samples/aws-hpc-recipes recipes/storage/fsx_lustre/assets/intelligent_tiering.yaml with its defaults
    (INTELLIGENT_TIERING, PERSISTENT_2, no StorageCapacity, EfaEnabled TRUE, ThroughputCapacity 4000, metadata
    USER_PROVISIONED at 6000 IOPS, read cache PROPORTIONAL_TO_THROUGHPUT_CAPACITY), read by the same repository's
    EFA P5 launch template in a PCS node group (ours): every key read back; no lustre-intelligent-tiering (4,000
    MBps, a multiple of 4,000 with EFA), no lustre-read-cache, no lustre-efa-requirements (a metadata
    configuration, and the template's EFA group allows all traffic with itself both ways), no lustre-efa-clients
    (the P5 group has EFA), no lustre-region (us-east-2); the tiering rates are unknown: said, never zero."""
    code, stack = planned("fsxl-intelligent-tiering-efa")
    assert code == 0
    assert groups(stack) == [("p5-nodes", "p5.48xlarge", 2, "on-demand", True, "us-east-2a")]
    assert stack["summary"]["lustre"] == {
        "deployment_type": "PERSISTENT_2",
        "storage_capacity_gib": None,  # Intelligent-Tiering storage is elastic
        "per_unit_storage_throughput": None,
        "availability_zone": "us-east-2a",
        "storage_type": "INTELLIGENT_TIERING",
        "throughput_capacity_mbps": 4000,
        "read_cache_sizing_mode": "PROPORTIONAL_TO_THROUGHPUT_CAPACITY",  # no size: it follows the throughput
    }
    assert stack["topology"]["lustre"]["efa_enabled"] is True
    fs = _lustre("fsxl-intelligent-tiering-efa")
    assert (fs.storage_type, fs.throughput_capacity_mbps, fs.efa_enabled) == ("INTELLIGENT_TIERING", 4000, True)
    assert (fs.read_cache_sizing_mode, fs.read_cache_size_gib) == ("PROPORTIONAL_TO_THROUGHPUT_CAPACITY", None)
    assert fs.metadata_configuration is True and fs.efa_security_group is True
    assert findings(stack) == [("price-unknown", "warning"), ("readback-gap", "warning")]
    (gap,) = message(stack, "readback-gap")  # the recipe's Lambda makes the placement group, by name
    assert gap.startswith("placement group 'efa-test' of 'p5-nodes' is not a resource of this stack")
    (unknown,) = [f for f in stack["findings"] if f["rule"] == "price-unknown"]
    assert unknown["message"].startswith(
        "no price for FSx for Lustre Intelligent-Tiering throughput capacity in us-east-2"
    )
    assert unknown["resource"].endswith("aws:fsx/lustreFileSystem:LustreFileSystem::FSxLFilesystem")
    cost = stack["cost"]
    assert cost["complete"] is False and cost["left_out"] == [
        "p5-nodes root volumes (size unknown: the AMI's default mapping)",
        "FSx for Lustre Intelligent-Tiering storage (billed per GB stored: usage)",
        "FSx for Lustre SSD read cache sized with the throughput capacity (its size is not declared)",
    ]
    assert [(i["name"], i["unit_price_usd"]) for i in cost["line_items"]] == [
        ("p5-nodes", _price("p5.48xlarge", "us-east-2", "on-demand")),
        ("lustre throughput", None),
    ]


def test_intelligent_tiering_template_passes_a_cache_size_with_no_cache() -> None:
    """Near miss: the same template with DataReadCacheSizingMode NO_CACHE. Its condition DataReadCacheIsUSER is
    true for NO_CACHE too, so SizeGiB gets DataReadCacheSizeInGB's default 123: read back as given, and
    lustre-read-cache says AWS takes a size only with USER_PROVISIONED, on the file system's line."""
    code, stack = planned("fsxl-intelligent-tiering-efa", "no-cache")
    assert code == 1
    fs = _lustre("fsxl-intelligent-tiering-efa", "no-cache")
    assert (fs.read_cache_sizing_mode, fs.read_cache_size_gib) == ("NO_CACHE", 123)
    assert findings(stack) == [
        ("lustre-read-cache", "error"),
        ("price-unknown", "warning"),
        ("readback-gap", "warning"),
    ]
    (f,) = [f for f in stack["findings"] if f["rule"] == "lustre-read-cache"]
    assert f["message"] == "read_cache_size_gib is given with NO_CACHE; AWS takes a size only with USER_PROVISIONED"
    lines = (CORPUS / "fsxl-intelligent-tiering-efa" / "__main__.py").read_text().splitlines()
    assert f["file"] == "tests/corpus/fsxl-intelligent-tiering-efa/__main__.py"
    assert lines[f["line"] - 1].startswith("fsx = aws.fsx.LustreFileSystem(")


def test_no_corpus_program_calls_a_cost_complete_while_compute_is_left_out() -> None:
    """Done when (issue 25): every compute resource is priced now and at its maximum, or named as left out."""
    for name, stack_name in CASES:
        _, stack = planned(name, stack_name)
        cost = stack["cost"]
        unpriced_compute = [
            f
            for f in stack["findings"]
            if f["rule"] in ("compute-unsized", "instance-type-unlisted")
            and "0 instance(s)" not in f["message"]
            and " may launch " not in f["message"]
        ]
        if unpriced_compute:
            assert cost["complete"] is False and cost["left_out"], name
        elastic = [f for f in stack["findings"] if f["rule"] == "scaling-maximum"]
        if elastic:
            assert cost.get("maximum_estimate"), name
        # issue 34: `complete` is true only when nothing is left out, now and at the maximum
        for estimate in (cost, cost.get("maximum_estimate") or cost):
            if estimate.get("left_out"):
                assert estimate["complete"] is False, (name, stack_name)
            if estimate["complete"]:
                assert all(i["unit_price_usd"] is not None for i in estimate["line_items"]), (name, stack_name)


@pytest.mark.parametrize(("name", "stack_name"), CASES)
def test_the_pack_and_the_cli_read_the_same_topology(name: str, stack_name: str) -> None:
    """The same program through `planner.policy.testing.capture` and the pack's planning: same node groups,
    same summary, same findings (rule and message) as `planner plan --program`."""
    from planner.policy.planning import plan_resources
    from planner.policy.testing import stack_args

    specs, config = captured(CORPUS / name, stack_name)
    outcome = plan_resources(stack_args(specs, region=config.get("aws:region")).resources, {})
    assert outcome.plan is not None and outcome.problems == []
    _, stack = planned(name, stack_name)
    assert codec.dump(outcome.plan.summary) == stack["summary"]
    # the checks of single resources (IMDSv2, security groups) are the pack's resource policies, not its planning
    of_resources = {"imdsv2-required", "interface-security-groups", "efa-security-group"}
    # a zone the resources do not name: the pack has a setting for it, `plan --program` none (its message names none)
    from planner.policy.planning import ZONE_SETTING

    pack_only = f" (or set {ZONE_SETTING})"
    assert sorted((f.rule, f.message.replace(pack_only, "")) for f in outcome.plan.findings) == sorted(
        (f["rule"], f["message"]) for f in stack["findings"] if f["rule"] not in of_resources
    )


RULE_ID = re.compile(r"^\[([a-z0-9-]+)\] ")


@pytest.mark.parametrize(("name", "stack_name"), CASES)
def test_the_whole_pack_reports_what_the_cli_finds_each_once(name: str, stack_name: str) -> None:
    """Done when (issue 25): every policy of the pack on the program, against `planner plan --program`: the same
    rules, as often, and no violation twice (one policy owns each rule). The resource checks (IMDSv2, security
    groups) too: the pack's resource policies and `plan --program` report them under the same rule ids."""
    from collections import Counter

    from planner.policy.testing import check

    specs, config = captured(CORPUS / name, stack_name)
    reported = check(specs, region=config.get("aws:region"))
    assert len({(r.message, r.urn) for r in reported}) == len(reported), "a violation reported twice"
    by_rule = Counter(m.group(1) for r in reported for m in [RULE_ID.match(r.message)] if m)
    _, stack = planned(name, stack_name)
    assert by_rule == Counter(f["rule"] for f in stack["findings"])


def _pack(name: str, policy_config: dict[str, Any]) -> list[Any]:
    from planner.policy import policies
    from planner.policy.testing import check

    specs, config = captured(CORPUS / name)
    return [r for r in check(specs, [policies.budget], policy_config, region=config.get("aws:region"))]


def test_budget_holds_pools_that_launch_on_demand_to_their_maximum() -> None:
    """The PCS node group (aws-hpc-recipes pcs-lt-efa-p5.yaml) runs 0 instances now and up to 4 p5.48xlarge:
    "$0 now" is no pass; the budget is held to the cost at its maximum (4 x p5.48xlarge for 730 h)."""
    found = _pack("pcs-p5-efa-launch-template", {"planner-budget": {"maxTotalUsd": 1000}})
    (v,) = found
    assert v.enforcement == "mandatory" and v.message.startswith(
        "[budget-exceeded] estimated total at the maximum the program allows is at least $160,716.80 (some cost left "
        "out), above the total budget $1,000.00"
    )
    assert "; the limit is planner-budget's `maxTotalUsd`" in v.message  # the pack's own key
    assert v.message.endswith(
        "at the maximum: at least $160,716.80 for 730 h; left out: p5-nodes root volumes "
        "(size unknown: the AMI's default mapping)"
    )
    # above the priced part, the root volumes' size unknown: the budget cannot be checked, unless allowed
    (v,) = _pack("pcs-p5-efa-launch-template", {"planner-budget": {"maxTotalUsd": 200000}})
    assert v.message.startswith(
        "[budget-incomplete-cost] the total budget $200,000.00 cannot be checked: the estimate leaves "
        "out p5-nodes root volumes (size unknown: the AMI's default mapping)"
    )
    allowed = {"planner-budget": {"maxTotalUsd": 200000, "allowIncompleteCost": True}}
    assert _pack("pcs-p5-efa-launch-template", allowed) == []


def test_sarif_and_annotations_land_on_the_programs_code_with_the_urn() -> None:
    result = run_cli(
        "plan", "--program", "tests/corpus/eks-mixed-instances-efa", "--stack", "test", "--format", "sarif"
    )
    assert result.code == 1, result.err
    results = json.loads(result.out)["runs"][0]["results"]
    (multi,) = [r for r in results if r["ruleId"] == "node-group-multi-az"]
    loc = multi["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == "tests/corpus/eks-mixed-instances-efa/__main__.py"
    lines = (CORPUS / "eks-mixed-instances-efa" / "__main__.py").read_text().splitlines()
    assert lines[loc["physicalLocation"]["region"]["startLine"] - 1].startswith("aws.autoscaling.Group(")
    # the resource it came from, by URN: the program has no planner:cluster key path
    assert loc["logicalLocations"] == [
        {
            "fullyQualifiedName": "urn:pulumi:test::eks-mixed-instances-efa::aws:autoscaling/group:Group::node-group",
            "kind": "resource",
        }
    ]
    github = run_cli(
        "plan", "--program", "tests/corpus/eks-mixed-instances-efa", "--stack", "test", "--format", "github"
    )
    assert any(
        line.startswith("::error file=tests/corpus/eks-mixed-instances-efa/__main__.py,line=")
        for line in github.out.splitlines()
    )


def test_fsx_csi_claim_is_the_clusters_lustre_read_checked_priced_and_located() -> None:
    """awsome-distributed-training slinky-slurm: the StorageClass fsx-sc (fsx.csi.aws.com, PERSISTENT_2, "250")
    and the claim fsx-claim of 1200Gi are the file system the driver creates: the cluster's lustre (1,200 GiB,
    250 MB/s/TiB), priced beside the HyperPod groups (counted, never priced); its subnet is given by AZ id, so its
    AZ is a gap said on the StorageClass's line, in the class's own terms (`parameters.subnetId`)."""
    code, stack = planned("hyperpod-eks-fsx-csi")
    assert code == 0
    assert stack["summary"]["lustre"] == {
        "deployment_type": "PERSISTENT_2",
        "storage_capacity_gib": 1200,
        "per_unit_storage_throughput": 250,
        "availability_zone": "",
    }
    assert stack["topology"]["lustre"]["efa_enabled"] is False
    assert findings(stack) == [
        ("compute-unsized", "warning"),
        ("compute-unsized", "warning"),
        ("readback-gap", "warning"),
    ]
    (gap,) = [f for f in stack["findings"] if f["rule"] == "readback-gap"]
    assert gap["message"].startswith("cannot tell the Availability Zone of file system 'fsx-claim'")
    assert gap["resource"].endswith("kubernetes:storage.k8s.io/v1:StorageClass::fsx-sc")
    lines = (CORPUS / "hyperpod-eks-fsx-csi" / "__main__.py").read_text().splitlines()
    assert lines[gap["line"] - 1].startswith("storage_class = pulumi.CustomResource(")
    assert gap["fix"]["text"].startswith('set `parameters.subnetId` of kubernetes.storage.v1.StorageClass "fsx-sc"')
    cost = stack["cost"]
    (lustre,) = [i for i in cost["line_items"] if i["name"] == "lustre"]
    assert (lustre["storage_capacity_gib"], lustre["per_unit_storage_throughput"]) == (1200, 250)
    assert lustre["unit_price_usd"] is not None and lustre["hourly_usd"] > 0
    assert cost["complete"] is False and all("HyperPod" in x for x in cost["left_out"])
    fs = _lustre("hyperpod-eks-fsx-csi")
    assert (fs.storage_capacity_gib, fs.per_unit_storage_throughput, fs.metadata_configuration) == (1200, 250, False)


def test_fsx_csi_class_the_driver_refuses_is_an_error_and_left_out() -> None:
    """Near miss: perUnitStorageThroughput "250MBps", which the driver's strconv.ParseInt refuses (InvalidArgument):
    no file system is created, so none is planned or priced; the error is on the StorageClass, said as its
    parameter, and the estimate names what it leaves out."""
    code, stack = planned("hyperpod-eks-fsx-csi", "malformed")
    assert code == 1
    assert stack["summary"].get("lustre") is None
    (f,) = [f for f in stack["findings"] if f["rule"] == "readback-gap"]
    assert f["severity"] == "error"
    assert f["message"].startswith(
        "StorageClass 'fsx-sc': perUnitStorageThroughput '250MBps' is not a number the driver parses"
    )
    assert f["fix"]["text"].startswith(
        'set `parameters.perUnitStorageThroughput` of kubernetes.storage.v1.StorageClass "fsx-sc"'
    )
    assert "FSx for Lustre file system of PersistentVolumeClaim 'fsx-claim' (not read)" in stack["cost"]["left_out"]
    assert not [i for i in stack["cost"]["line_items"] if i["name"] == "lustre"]
