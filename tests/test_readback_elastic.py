"""Elastic and self-sizing compute read back as a range: Karpenter requirements resolved against the catalogue as
Karpenter reads them (https://karpenter.sh/docs/concepts/scheduling/), limits into counts
(https://karpenter.sh/docs/concepts/nodepools/), sizes AWS refuses, references known only at deploy."""

from __future__ import annotations

from typing import Any

import pytest

from planner.core.catalogue import instance_types as catalogue
from planner.policy.planning import plan_resources
from planner.policy.testing import UNKNOWN, Spec, stack_args
from planner.readback import karpenter
from planner.readback.resources import as_list, dig

POOL = "kubernetes:karpenter.sh/v1:NodePool"
ASG = "aws:autoscaling/group:Group"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
BATCH = "aws:batch/computeEnvironment:ComputeEnvironment"


# every test here reads a program's resources, with no stack config of its own
pytestmark = pytest.mark.usefixtures("no_stack_config")


def pool_of(*requirements: tuple[str, str, list[str]], limits: dict[str, Any] | None = None) -> karpenter.Pool:
    spec: dict[str, Any] = {
        "template": {"spec": {"requirements": [{"key": k, "operator": op, "values": v} for k, op, v in requirements]}}
    }
    if limits is not None:
        spec["limits"] = limits
    # matched as the read-back matches a pool: the curated types, and every type AWS lists that it names
    return karpenter.read(spec, karpenter.candidates(spec, catalogue.load(), dig, as_list), dig, as_list)


def names(pool: karpenter.Pool) -> list[str]:
    return sorted(t.name for t in pool.types)


def test_requirements_select_catalogue_types_by_their_labels() -> None:
    nvidia = pool_of(
        ("karpenter.k8s.aws/instance-gpu-count", "Gt", ["0"]),
        ("karpenter.k8s.aws/instance-family", "NotIn", ["p4d", "p4de"]),
    )
    assert "p5.48xlarge" in names(nvidia) and not [n for n in names(nvidia) if n.startswith("p4")]
    trainium = pool_of(
        ("karpenter.k8s.aws/instance-category", "In", ["trn"]), ("karpenter.k8s.aws/instance-generation", "Lt", ["2"])
    )
    assert names(trainium) and all(n.startswith("trn1") for n in names(trainium))
    # a label a type lacks: Exists excludes it, DoesNotExist keeps it (Kubernetes node-selector semantics)
    # (a pool naming no type, family or category is matched against every type AWS lists)
    neuron = pool_of(("karpenter.k8s.aws/instance-accelerator-count", "Exists", []))
    assert {"trn1.32xlarge", "trn2.48xlarge", "inf2.48xlarge"} <= set(names(neuron))
    assert not [n for n in names(neuron) if n.startswith(("p5", "g5", "m7i"))]
    no_gpu = names(pool_of(("karpenter.k8s.aws/instance-gpu-count", "DoesNotExist", [])))
    assert {"m7i.large", "trn2.48xlarge"} <= set(no_gpu) and not [n for n in no_gpu if n.startswith(("p5", "g5"))]


def test_cpu_only_pools_are_not_accelerated_and_families_come_from_every_type_aws_lists() -> None:
    """Issue 35: a pool naming a family or category is matched against every type AWS lists (the generated
    table), so a CPU pool has types (planned, priced at its limits) and a g6e family is no longer outside."""
    cpu = pool_of(("karpenter.k8s.aws/instance-category", "In", ["c", "m", "r"]))
    assert not cpu.accelerated and cpu.types and all(t.accelerator is None for t in cpu.types)
    assert {karpenter.labels(t)[karpenter.CATEGORY] for t in cpu.types} == {"c", "m", "r"}
    g = pool_of(("karpenter.k8s.aws/instance-family", "In", ["g6e", "p5"]))
    assert g.accelerated and "p5.48xlarge" in names(g) and "g6e.xlarge" in names(g)
    assert all(n.split(".")[0] in ("g6e", "p5") for n in names(g)) and g.outside == []
    # near miss: a family AWS does not list is still named as outside
    assert pool_of(("karpenter.k8s.aws/instance-family", "In", ["g99"])).outside == ["g99"]


def test_limits_become_the_most_instances_of_each_type() -> None:
    p = pool_of(
        ("node.kubernetes.io/instance-type", "In", ["p5.48xlarge", "trn1.32xlarge"]),
        limits={"cpu": "1000", "memory": "4Ti", "nvidia.com/gpu": 20},
    )
    # p5.48xlarge: 192 vCPUs, 2,048 GiB, 8 GPUs -> min(5, 2, 2); trn1.32xlarge: 128 vCPUs, 512 GiB, no GPU -> min(7, 8)
    assert p.maxima == {"p5.48xlarge": 2, "trn1.32xlarge": 7}
    only_gpus = pool_of(
        ("node.kubernetes.io/instance-type", "In", ["p5.48xlarge", "trn1.32xlarge"]), limits={"nvidia.com/gpu": 16}
    )
    assert only_gpus.maxima == {"p5.48xlarge": 2, "trn1.32xlarge": None}  # no limit binds the Trainium type
    assert (
        karpenter.quantity("500m") == 0.5 and karpenter.quantity("2Gi") == 2 * 2**30 and karpenter.quantity("x") is None
    )


def test_a_memory_limit_counts_memory_less_karpenters_vm_overhead() -> None:
    """Karpenter settings: VM_MEMORY_OVERHEAD_PERCENT, "The VM memory overhead as a percent that will be subtracted
    from the total memory for all instance types. (default = 0.075, which equals to 7.5%)"."""
    assert karpenter.VM_MEMORY_OVERHEAD_PERCENT == 0.075 and karpenter.SETTINGS_DOC.startswith("https://karpenter.sh/")
    trn1 = catalogue.load().instance_types["trn1.32xlarge"]
    # 512 GiB = 524,288 MiB; 7.5% is 39,321.6 MiB, subtracted as 39,322: 484,966 MiB per instance
    assert trn1.memory_gib == 512 and karpenter.memory_bytes(trn1) == 484_966 * 2**20
    p = pool_of(("node.kubernetes.io/instance-type", "In", ["trn1.32xlarge"]), limits={"memory": "1000Gi"})
    assert p.maxima == {"trn1.32xlarge": 2}  # 1,024,000 MiB // 484,966; the whole 512 GiB would admit 1


def planned(specs: list[Spec], extra: dict[str, Any] | None = None) -> Any:
    out = plan_resources(stack_args(specs).resources, {}, extra=extra)
    assert out.plan is not None, out.gaps
    return out.plan


def by_rule(plan: Any, rule: str) -> list[str]:
    return [f.message for f in plan.findings if f.rule == rule]


def test_a_pool_limited_to_a_type_it_does_not_bind_is_unbounded_and_an_error_under_a_budget() -> None:
    pool = Spec(
        POOL,
        "mixed",
        {
            "spec": {
                "template": {
                    "spec": {
                        "requirements": [
                            {
                                "key": "node.kubernetes.io/instance-type",
                                "operator": "In",
                                "values": ["p5.48xlarge", "trn1.32xlarge"],
                            }
                        ]
                    }
                },
                "limits": {"nvidia.com/gpu": 16},
            }
        },
    )
    plan = planned([pool])
    (text,) = by_rule(plan, "compute-unsized")
    assert (
        "may launch p5.48xlarge, trn1.32xlarge with no maximum (nvidia.com/gpu 16, which do not bound trn1.32xlarge)"
        in text
    )
    assert plan.cost.complete is False and plan.cost.left_out == ("Karpenter node pool 'mixed' (unbounded: no limit)",)
    # a budget that accepts an incomplete estimate still cannot hold an unbounded pool
    budgeted = planned(
        [pool], extra={"budget": {"total_usd": 1000, "allow_incomplete": True}, "schedule": {"hours": 10}}
    )
    (error,) = by_rule(budgeted, "budget-unbounded-compute")
    assert error.startswith("Karpenter node pool 'mixed' may launch p5.48xlarge, trn1.32xlarge with no maximum")
    # one that does not fails on the estimate it leaves out (budget-incomplete-cost), not twice
    strict = planned([pool], extra={"budget": {"total_usd": 1000}, "schedule": {"hours": 10}})
    assert by_rule(strict, "budget-unbounded-compute") == []
    (error,) = by_rule(strict, "budget-incomplete-cost")
    assert "Karpenter node pool 'mixed' (unbounded: no limit)" in error


def group(desired: int, minimum: int, maximum: int) -> list[Spec]:
    return [
        Spec(LT, "t", {"id": "lt-01", "instanceType": "trn1.32xlarge"}),
        Spec(
            ASG,
            "g",
            {
                "desiredCapacity": desired,
                "minSize": minimum,
                "maxSize": maximum,
                "launchTemplate": {"id": "lt-01"},
                "availabilityZones": ["us-east-2b"],
            },
        ),
    ]


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ((2, 4, 5), "Auto Scaling group 'g' has minSize 4 above desiredCapacity 2: AWS refuses to create it"),
        ((3, 0, 2), "Auto Scaling group 'g' has desiredCapacity 3 above maxSize 2: AWS refuses to create it"),
        ((1, 0, 0), "Auto Scaling group 'g' has desiredCapacity 1 above maxSize 0: AWS refuses to create it"),
        ((2, 3, 1), "Auto Scaling group 'g' has minSize 3 above maxSize 1: AWS refuses to create it"),
    ],
)
def test_sizes_aws_refuses_are_errors_naming_the_property(sizes: tuple[int, int, int], expected: str) -> None:
    (text,) = by_rule(planned(group(*sizes)), "scaling-size-refused")
    assert text.startswith(expected)


def test_batch_minimum_above_maximum_is_a_warning_on_the_api_references_words() -> None:
    """The Batch API reference (botocore's batch model, ComputeResource) says of desiredvCpus "Batch modifies this
    value between the minimum and maximum values", and nothing of creation failing: a warning, not an error."""
    ce = Spec(BATCH, "ce", {"computeResources": {"instanceTypes": ["p5"], "minVcpus": 768, "maxVcpus": 384}})
    plan = planned([ce])
    (hit,) = [f for f in plan.findings if f.rule == "scaling-size-refused"]
    assert hit.severity == "warning"
    assert hit.message.startswith(
        "AWS Batch compute environment 'ce' has computeResources.minVcpus 768 above computeResources.maxVcpus 384: "
    )
    assert "between the minimum and maximum values" in hit.message and "refuses" not in hit.message


def test_a_reservation_known_only_at_preview_is_a_stated_gap_not_an_error() -> None:
    """At `pulumi preview` another resource's id is unknown: the launch still targets a reservation (no
    Capacity Block advice as if it targeted none), and the read-back says what it cannot check."""
    specs = group(2, 0, 2)
    specs[0].props.update(
        instanceMarketOptions={"marketType": "capacity-block"},
        capacityReservationSpecification={"capacityReservationTarget": {"capacityReservationId": UNKNOWN}},
    )
    plan = planned(specs)
    (g,) = plan.stack.cluster.node_groups
    assert g.launch_target and g.purchase == "capacity-block"
    assert any("known only at deploy" in m for m in by_rule(plan, "readback-gap"))
    assert not [f for f in plan.findings if f.severity == "error"]


def test_a_pool_under_one_limit_is_priced_at_its_dearest_mix_of_types() -> None:
    """cpu 300 over p5.48xlarge (192 vCPUs) and p4d.24xlarge (96 vCPUs): one type alone leaves vCPUs unused; the
    maximum is the dearest combination within the limit (checked against every combination)."""
    from itertools import product

    from planner.core.cost import load_price_book
    from planner.core.cost.items import instance_key

    pool = Spec(
        POOL,
        "gpu",
        {
            "spec": {
                "template": {
                    "spec": {
                        "requirements": [
                            {
                                "key": "node.kubernetes.io/instance-type",
                                "operator": "In",
                                "values": ["p5.48xlarge", "p4d.24xlarge"],
                            }
                        ]
                    }
                },
                "limits": {"cpu": 300},
            }
        },
    )
    plan = planned([pool])
    book = load_price_book(None)
    usd = {t: instance_key(t, "us-east-2", "on-demand").look_up(book).usd for t in ("p5.48xlarge", "p4d.24xlarge")}
    best = max(
        (a * usd["p5.48xlarge"] + b * usd["p4d.24xlarge"], a, b)
        for a, b in product(range(2), range(4))
        if 192 * a + 96 * b <= 300
    )
    got = {
        i.detail["instance_type"]: i.detail["instances"]
        for i in plan.cost.maximum.line_items
        if "instance_type" in i.detail
    }
    assert got == {t: n for t, n in (("p5.48xlarge", best[1]), ("p4d.24xlarge", best[2])) if n}
    assert len(got) == 2  # the mix beats either type alone here
    (text,) = by_rule(plan, "scaling-maximum")
    assert f"/h at the maximum: {' + '.join(f'{n} {t}' for t, n in sorted(got.items()))})" in text


def test_a_node_class_root_volume_is_priced_with_the_pool_at_its_maximum() -> None:
    """aws-samples/eks-workshop-v2 nodepool-trn1.yaml's EC2NodeClass: /dev/xvda gp3 500Gi; limits in Neuron devices."""
    pool = Spec(
        POOL,
        "trn1",
        {
            "spec": {
                "template": {
                    "spec": {
                        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "trn1"},
                        "requirements": [
                            {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["trn1"]}
                        ],
                    }
                },
                "limits": {"aws.amazon.com/neuron": 32},
            }
        },
    )
    node_class = Spec(
        "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass",
        "trn1",
        {
            "metadata": {"name": "trn1"},
            "spec": {
                "blockDeviceMappings": [
                    {"deviceName": "/dev/xvda", "ebs": {"volumeSize": "500Gi", "volumeType": "gp3"}}
                ]
            },
        },
    )
    plan = planned([pool, node_class], extra={"schedule": {"hours": 10}})
    most = plan.cost.maximum
    volumes = [i for i in most.line_items if i.detail.get("volume_type") == "gp3"]
    assert [(i.detail["gib_per_instance"], i.detail["instances"]) for i in volumes] == [(500, 2)]  # 32 // 16 chips
    assert most.complete and most.total_usd is not None


def test_a_pool_whose_requirements_are_unknown_at_preview_is_said_and_fails_a_budget() -> None:
    """At `pulumi preview` a requirement computed from another resource is unknown: the pack says it cannot tell
    the pool's types (never "nothing accelerated"), and the budget cannot be shown to hold."""
    from planner.policy import policies
    from planner.policy.testing import violations

    pool = Spec(
        POOL,
        "gpu",
        {
            "spec": {
                "template": {
                    "spec": {
                        "requirements": [
                            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [UNKNOWN]}
                        ]
                    }
                },
                "limits": {"cpu": 100},
            }
        },
    )
    args = stack_args([pool])
    warned = [m for m, _ in violations(policies.topology_warnings, args)]
    assert any("cannot tell which instance types Karpenter node pool 'gpu' may launch" in m for m in warned)
    budget = violations(policies.budget, stack_args([pool], config={"maxTotalUsd": 1000}))
    assert [m.split(":")[0] for m, _ in budget] == ["cannot price the cluster"]


def _pool(name: str, *requirements: tuple[str, str, list[str]], cpu: int = 1000) -> Spec:
    reqs = [{"key": k, "operator": op, "values": v} for k, op, v in requirements]
    return Spec(POOL, name, {"spec": {"template": {"spec": {"requirements": reqs}}, "limits": {"cpu": cpu}}})


def test_a_pool_naming_no_type_is_matched_against_every_type_aws_lists() -> None:
    """A pool of `instance-gpu-name In [a10g]` names no type, family or category: Karpenter may launch every
    type AWS lists with that GPU (the g5 family), which was matched against the training types only and so
    dropped unsaid. Near miss: a pool naming the g5 family plans the same types."""
    by_gpu = planned([_pool("a10g", ("karpenter.k8s.aws/instance-gpu-name", "In", ["a10g"]))])
    (said,) = by_rule(by_gpu, "scaling-maximum")
    assert said.startswith("Karpenter node pool 'a10g' launches g5.12xlarge, g5.16xlarge")
    by_family = planned([_pool("g5", ("karpenter.k8s.aws/instance-family", "In", ["g5"]))])
    assert by_rule(by_family, "scaling-maximum") == [said.replace("'a10g'", "'g5'", 1)]


def test_a_general_purpose_pool_is_said_and_left_out_never_planned_as_gpus() -> None:
    """A pool that names no type, family or category and allows types without accelerators (a default pool: amd64,
    a cpu limit) launches what its pods request. It was matched against the training types only and planned as
    trn2, p5 and p6 instances at its maximum; it is said, and left out of the estimate. Near miss: a pool that
    requires a GPU (`instance-gpu-count Gt 0`) is planned, over every GPU type AWS lists."""
    training = _pool("p5", ("karpenter.k8s.aws/instance-family", "In", ["p5"]))
    plan = planned([training, _pool("general", ("kubernetes.io/arch", "In", ["amd64"]))])
    (said,) = by_rule(plan, "readback-gap")
    assert said.startswith("Karpenter node pool 'general' names no instance type, family or category")
    assert "Karpenter launches what its pods request" in said
    (maximum,) = by_rule(plan, "scaling-maximum")
    assert maximum.startswith("Karpenter node pool 'p5' launches")
    assert plan.cost.left_out == ("Karpenter node pool 'general' (its types follow its pods)",)
    gpus = planned([_pool("gpus", ("karpenter.k8s.aws/instance-gpu-count", "Gt", ["0"]))])
    (maximum,) = by_rule(gpus, "scaling-maximum")
    assert "g4dn.xlarge" in maximum and "p5.48xlarge" in maximum and not by_rule(gpus, "readback-gap")


def test_accelerator_labels_follow_the_aws_providers_sources() -> None:
    """karpenter-provider-aws `computeRequirements` (LABELS_DOC): GPU labels from GpuInfo, accelerator labels from
    NeuronInfo or InferenceAcceleratorInfo, lower kebab case; an FPGA (f2) or media accelerator (vt1) gets none, so
    `instance-accelerator-count Exists` selects neither."""
    cat = catalogue.load()

    def accel_labels(name: str) -> dict[str, str]:
        return {k.split("/")[-1]: v for k, v in karpenter.labels(cat.spec(name)).items() if "gpu" in k or "accel" in k}

    assert accel_labels("f2.6xlarge") == {} and accel_labels("vt1.3xlarge") == {}
    assert accel_labels("dl2q.24xlarge")["instance-accelerator-name"] == "qualcomm-ai100"
    assert accel_labels("trn2.48xlarge") == {
        "instance-accelerator-count": "16",
        "instance-accelerator-name": "trainium2",
        "instance-accelerator-manufacturer": "aws",
    }
    assert accel_labels("g6e.xlarge") == {
        "instance-gpu-count": "1",
        "instance-gpu-name": "l40s",
        "instance-gpu-manufacturer": "nvidia",
    }
    exists = names(pool_of(("karpenter.k8s.aws/instance-accelerator-count", "Exists", [])))
    assert not [n for n in exists if n.startswith(("f2.", "vt1."))] and "dl2q.24xlarge" in exists
