"""Synthetic documents for the renderers' snapshot tests (tests/test_snapshots.py).

Built by hand, like ruff's emitter fixtures: no stack file, price book, catalogue or rule
registry is read, so a price update, a new rule or a catalogue change leaves the snapshots
(tests/snapshots/) alone; only a change to a renderer or to the document shows up there.
Every figure here is made up for the test (the price book is named `synthetic`); they are
round numbers that add up, so a reader can check a snapshot by eye.
"""

from __future__ import annotations

from msgspec.structs import replace

from planner.core.document import (
    BaselineFixed,
    CostReport,
    GroupTopology,
    InputProblem,
    LustreTopology,
    Report,
    ReportedEdit,
    ReportedFinding,
    ReportedFix,
    RuleInfo,
    StackReport,
    Summary,
    Suppression,
    Topology,
    UltraServerUnit,
    UnusedSuppressionReport,
    codec,
)
from planner.core.document.cost_section import PriceAge
from planner.core.document.run_time_section import ParallelLayout, RunTimePrediction, RunTimeReport, StepBreakdown

EC2_PRICING = "https://aws.amazon.com/ec2/pricing/on-demand/"
FSX_PRICING = "https://aws.amazon.com/fsx/lustre/pricing/"
EBS_PRICING = "https://aws.amazon.com/ebs/pricing/"

RULES = (
    RuleInfo(
        "efa-recommended",
        "warning",
        "EFA off on an instance type that supports it.",
        "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html",
        "Set `efa: true` on the node group.",
        "network",
    ),
    RuleInfo(
        "lustre-capacity",
        "error",
        "FSx for Lustre storage capacity not a valid size for its deployment type.",
        "https://docs.aws.amazon.com/fsx/latest/LustreGuide/managing-storage-capacity.html",
        "Use a multiple of 1,200 GiB (or 2,400 GiB for SCRATCH_2).",
        "storage",
    ),
    RuleInfo(
        "price-unknown",
        "warning",
        "No price for a line item in the price book.",
        EC2_PRICING,
        "Add the price to a price book (`--price-book`).",
        "cost",
    ),
    RuleInfo(
        "spot-unsupported",
        "error",
        "Spot purchase for an instance type not offered as Spot.",
        "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-spot-instances.html",
        "Use `purchase: capacity-block` or on-demand.",
        "purchase",
    ),
    RuleInfo(
        "ultraserver-whole-units",
        "warning",
        "A count that is not a whole number of UltraServers.",
        "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-ultraservers.html",
        "Set `count` to a multiple of the UltraServer's members.",
        "capacity",
    ),
)


def _item(
    name: str,
    resource: str,
    unit: str,
    quantity: float,
    price: float | None,
    hours: float,
    source: str | None,
    **detail: object,
) -> dict[str, object]:
    total = None if price is None else round(quantity * price, 2)
    return {
        "resource": resource,
        "name": name,
        "unit": unit,
        "quantity": quantity,
        "unit_price_usd": price,
        "total_usd": total,
        "hourly_usd": None if price is None else round(quantity * price / hours, 4),
        "hours": hours,
        "run_hours": hours,
        "source": source,
        "as_of": None if source is None else "2026-01-01",
        "assumption": None,
        "price_book": "synthetic",
        "note": None,
        **detail,
    }


def _cost(items: list[dict[str, object]], hours: float, notes: tuple[str, ...] = ()) -> CostReport:
    known = round(sum(i["total_usd"] for i in items if i["total_usd"] is not None), 2)  # type: ignore[misc]
    complete = all(i["total_usd"] is not None for i in items)
    hourly = round(sum(i["hourly_usd"] for i in items if i["hourly_usd"] is not None), 4)  # type: ignore[misc]
    return codec.load(
        CostReport,
        {
            "currency": "USD",
            "price_book": "synthetic",
            "hours_basis": "schedule.hours",
            "run_hours": hours,
            "workload_hours": None,
            "hours": hours,
            "hourly_usd": hourly if complete else None,
            **({} if complete or not hourly else {"known_hourly_usd": hourly}),  # as the estimate gives it
            "monthly_usd": round(hourly * 730, 2) if complete else None,
            "total_usd": known if complete else None,
            "known_total_usd": known,
            "complete": complete,
            "line_items": items,
            "notes": list(notes),
        },
    )


def _summary(
    groups: list[dict[str, object]],
    lustre: dict[str, object] | None,
    placement: str,
    memory_per_accelerator: int,
    pflops_per_accelerator: float,
) -> Summary:
    acc = sum(int(g["accelerators"]) for g in groups)  # type: ignore[call-overload]
    return codec.load(
        Summary,
        {
            "instances": sum(int(g["instances"]) for g in groups),
            "ultraservers": sum(int(g["ultraservers"]) for g in groups),  # type: ignore[call-overload]
            "accelerators": acc,
            "neuron_cores": 0,
            "vcpus": 192 * sum(int(g["instances"]) for g in groups),  # type: ignore[call-overload]
            "accelerator_memory_gib": acc * memory_per_accelerator,
            "efa_bandwidth_gbps": 3200 * sum(int(g["instances"]) for g in groups),  # type: ignore[call-overload]
            "peak_pflops": {
                "bf16_dense": acc * pflops_per_accelerator,
                "fp8_dense": acc * pflops_per_accelerator * 2,
                "fp8_sparse": None,
            },
            "placement_group": placement,
            "lustre": lustre,
            "node_groups": groups,
        },
    )


def gpu_stack() -> StackReport:
    """A GPU stack with errors, warnings, a repeat across node groups, a moot price, suppressions."""
    file = "stacks/Pulumi.gpu-train.yaml"
    groups = [
        {
            "name": "trainers",
            "instance_type": "p5.48xlarge",
            "purchase": "spot",
            "instances": 4,
            "ultraservers": 0,
            "ultraserver_type": None,
            "accelerators": 32,
            "accelerator": "H100",
            "availability_zone": "us-east-1a",
            "efa": False,
        },
        {
            "name": "evals",
            "instance_type": "p5.48xlarge",
            "purchase": "on-demand",
            "instances": 2,
            "ultraservers": 0,
            "ultraserver_type": None,
            "accelerators": 16,
            "accelerator": "H100",
            "availability_zone": "us-east-1a",
            "efa": False,
        },
    ]
    lustre = {
        "deployment_type": "PERSISTENT_2",
        "storage_capacity_gib": 1000,
        "per_unit_storage_throughput": 250,
        "availability_zone": "us-east-1a",
    }
    ec2 = "aws:ec2/instance:Instance"
    items = [
        _item(
            "trainers",
            ec2,
            "instance-hour",
            400,
            None,
            100,
            None,
            instance_type="p5.48xlarge",
            purchase="spot",
            region="us-east-1",
            instances=4,
        ),
        _item(
            "evals",
            ec2,
            "instance-hour",
            200,
            50.0,
            100,
            EC2_PRICING,
            instance_type="p5.48xlarge",
            purchase="on-demand",
            region="us-east-1",
            instances=2,
        ),
        _item(
            "lustre",
            "aws:fsx/lustreFileSystem:LustreFileSystem",
            "GB-month",
            1000,
            0.5,
            100,
            FSX_PRICING,
            deployment_type="PERSISTENT_2",
            per_unit_storage_throughput=250,
            storage_capacity_gib=1000,
            region="us-east-1",
        ),
    ]
    findings = (
        ReportedFinding(
            "spot-unsupported",
            "error",
            "node group 'trainers': p5.48xlarge is not offered as Spot",
            file,
            9,
            "planner:cluster.node_groups[0].purchase",
            parts=(0,),
        ),
        ReportedFinding(
            "price-unknown",
            "warning",
            "node group 'trainers': no spot price for p5.48xlarge in us-east-1",
            file,
            9,
            "planner:cluster.node_groups[0].purchase",
            parts=(0,),
        ),
        ReportedFinding(
            "efa-recommended",
            "warning",
            "node group 'trainers': p5.48xlarge supports EFA but efa is off",
            file,
            11,
            "planner:cluster.node_groups[0].efa",
            fix=ReportedFix(
                "in node group 'trainers', remove efa: false (EFA is on by default for p5.48xlarge)",
                "EFA is on by default for p5.48xlarge",
                (ReportedEdit("planner:cluster.node_groups[0].efa", "remove"),),
            ),
            parts=(0,),
        ),
        ReportedFinding(
            "efa-recommended",
            "warning",
            "node group 'evals': p5.48xlarge supports EFA but efa is off",
            file,
            16,
            "planner:cluster.node_groups[1].efa",
            fix=ReportedFix(
                "in node group 'evals', remove efa: false (EFA is on by default for p5.48xlarge)",
                "EFA is on by default for p5.48xlarge",
                (ReportedEdit("planner:cluster.node_groups[1].efa", "remove"),),
            ),
            parts=(1,),
        ),
        ReportedFinding(
            "lustre-capacity",
            "error",
            "lustre: 1000 GiB is not a multiple of 1,200 GiB | *PERSISTENT_2*",
            file,
            20,
            "planner:cluster.lustre.storage_capacity_gib",
            Suppression("inSource", "sized by the data team <review>"),
            parts=(2,),
        ),
    )
    unused = (
        UnusedSuppressionReport(
            "ultraserver-whole-units", "left from the trn2 days", "inSource", file, 24, "planner:cluster.suppress[1]"
        ),
        UnusedSuppressionReport(
            "price-unknown", "suppressed on the command line (--suppress price-unknown)", "external", file
        ),
    )
    topology = Topology(
        "cluster",
        (
            GroupTopology("trainers", "p5.48xlarge", "spot", 4, "us-east-1a", False, True, 32, "H100"),
            GroupTopology("evals", "p5.48xlarge", "on-demand", 2, "us-east-1a", False, True, 16, "H100"),
        ),
        LustreTopology("PERSISTENT_2", 1000, 250, False, "us-east-1a", "s3://training-data/shards"),
    )
    return StackReport(
        "gpu-train",
        file,
        "us-east-1",
        _summary(groups, lustre, "cluster", 80, 1.0),
        topology,
        findings,
        # its prices, of 2026-01-01, are 180 days older than the book's date: the age line and `price_age`
        replace(
            _cost(items, 100),
            price_age=PriceAge(
                book_as_of="2026-06-30", oldest_as_of="2026-01-01", days=180, items=("evals", "lustre"), limit_days=90
            ),
        ),
        unused_suppressions=unused,
    )


def ultraserver_stack() -> StackReport:
    """An UltraServer stack, read back from a program: locations are the program's, with URNs."""
    file = "__main__.py"
    urn = "urn:pulumi:dev::train::aws:ec2/launchTemplate:LaunchTemplate::ultra"
    groups = [
        {
            "name": "ultra",
            "instance_type": "trn2u.48xlarge",
            "purchase": "capacity-block",
            "instances": 6,
            "ultraservers": 2,
            "ultraserver_type": "u-trn2x64",
            "accelerators": 96,
            "accelerator": "Trainium2",
            "availability_zone": "us-east-2b",
            "efa": True,
        }
    ]
    items = [
        _item(
            "ultra",
            "aws:ec2/capacityBlockReservation:CapacityBlockReservation",
            "instance-hour",
            1152,
            40.0,
            144,
            EC2_PRICING,
            instance_type="trn2u.48xlarge",
            purchase="capacity-block",
            region="us-east-2",
            instances=6,
            ultraserver_type="u-trn2x64",
            ultraservers=2,
            billed_instances=8,
            idle_instances=2,
            usd_per_ultraserver_hour=160.0,
        )
    ]
    items[0]["quantity"] = 1152  # 8 billed instances x 144 h
    ebs = "aws:ebs/volume:Volume"
    items += [  # the volumes its launch template maps: a gp3 root, an io2 data volume billed by IOPS tier
        _item(
            "ultra root volumes",
            ebs,
            "GB-month",
            591.7808,  # 6 x 500 GiB x 144 h / 730
            0.08,
            144,
            EBS_PRICING,
            volume_type="gp3",
            gib_per_instance=500,
            instances=6,
            region="us-east-2",
        ),
        _item(
            "ultra volumes /dev/sdf IOPS 32,001-64,000",
            ebs,
            "IOPS-month",
            9468.4932,  # 6 x 8,000 IOPS x 144 h / 730
            0.0455,
            144,
            EBS_PRICING,
            volume_type="io2",
            gib_per_instance=1000,
            instances=6,
            region="us-east-2",
            device="/dev/sdf",
            charge="iops-tier-2",
            billed_per_instance=8000,
            over=32000,
            iops=40000,
        ),
    ]
    findings = (
        ReportedFinding(
            "ultraserver-whole-units",
            "warning",
            "node group 'ultra': 6 instances is 1.5 UltraServers of 4; 2 members idle",
            file,
            42,
            "planner:cluster.node_groups[0].count",
            resource=urn,
            fix=ReportedFix(
                'set `desired_capacity` of aws.autoscaling.Group "ultra" (__main__.py:42) to 8 (the 2 UltraServers '
                'you pay for), or set `desired_capacity` of aws.autoscaling.Group "ultra" (__main__.py:42) to 4',
                edits=(
                    ReportedEdit("planner:cluster.node_groups[0].count", "set", 8, "the 2 UltraServers you pay for"),
                ),
                alternatives=(ReportedEdit("planner:cluster.node_groups[0].count", "set", 4),),
            ),
        ),
    )
    topology = Topology(
        "none",
        (
            GroupTopology(
                "ultra",
                "trn2u.48xlarge",
                "capacity-block",
                6,
                "us-east-2b",
                True,
                True,
                96,
                "Trainium2",
                UltraServerUnit("u-trn2x64", 4, 64, "NeuronLink-v3"),
            ),
        ),
    )
    return StackReport(
        "ultra-dev",
        file,
        "us-east-2",
        _summary(groups, None, "none", 96, 0.5),
        topology,
        findings,
        _cost(items, 144, ("Capacity Blocks are booked whole: idle members are billed",)),
        run_time=RunTimeReport(
            model="llama3-70b",
            model_source="https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json",
            tokens=2e11,
            sequence_length=8192,
            global_batch_tokens=4194304,
            precision="bf16",
            trained_on="8 x trn2u.48xlarge in u-trn2x64 (node group 'ultra')",
            prediction=RunTimePrediction(
                tokens_per_second=52000.5,
                step_seconds=80.659,
                mfu=0.281,
                run_hours=1068.37,
                layout=ParallelLayout(32, 2, 2, 1, 1, 4, 1, False, "selective"),
                breakdown_seconds=StepBreakdown(70.1, 2.5, 6.0, 1.9, 0.159, 0.0),
                error_band=0.1006,
                extrapolated_from=("trn1-llama3.1-8b-bf16", "trn1-llama3.1-70b-bf16"),
            ),
            notes=(
                "tensor parallelism of 32 spans 2 instances of each u-trn2x64: as 8 separate trn2u.48xlarge "
                "the run would take 1,240.0 h (+16%)",
            ),
        ),
    )


def plan() -> Report:
    return Report("plan", stacks=(gpu_stack(), ultraserver_stack()), rules=RULES)


def clean() -> Report:
    """One stack without findings: the verdict that passes."""
    s = ultraserver_stack()
    return Report(
        "plan", stacks=(StackReport(s.name, s.file, s.region, s.summary, s.topology, (), s.cost),), rules=RULES
    )


def preflight() -> Report:
    """What preflight reports: findings, no cost."""
    s = gpu_stack()
    found = (
        ReportedFinding(
            "spot-unsupported",
            "error",
            "node group 'trainers': no Spot offering in us-east-1a",
            s.file,
            9,
            "planner:cluster.node_groups[0].purchase",
            parts=(0,),
        ),
    )
    return Report(
        "preflight", stacks=(StackReport(s.name, s.file, s.region, s.summary, s.topology, found, None),), rules=RULES
    )


def baseline() -> Report:
    """A run judged against a baseline (`--baseline`): an error the baseline records (baselined), the
    other findings as they were, an entry no longer found (fixed); and a program's finding suppressed on
    its resource (a tag or comment, with its reason)."""
    g = gpu_stack()
    accepted = Suppression("baseline", "recorded in the baseline planner-baseline.json")
    g = replace(
        g,
        findings=(replace(g.findings[0], suppression=accepted), *g.findings[1:]),
        baseline_fixed=(BaselineFixed("placement-group", "planner:cluster.placement_group"),),
    )
    u = ultraserver_stack()
    urn = "urn:pulumi:dev::train::aws:autoscaling/group:Group::ultra"
    held = Suppression("inSource", "two members held back for evaluation jobs")
    u = replace(
        u,
        findings=tuple(replace(f, suppression=held) for f in u.findings),
        baseline_fixed=(BaselineFixed("readback-gap", "planner:cluster.notes", urn),),
    )
    return Report("plan", stacks=(g, u), rules=RULES, baseline="planner-baseline.json")


def problems() -> Report:
    """A run stopped by unusable input: a broken stack file and a bad `--suppress`."""
    return Report(
        "plan",
        problems=(
            InputProblem(
                "stacks/Pulumi.broken.yaml",
                7,
                "planner:cluster.node_groups[0].count",
                "expected a positive integer, got 'lots'",
            ),
            InputProblem(
                "command line", None, "--suppress", "unknown rule 'efa-recomended' (did you mean 'efa-recommended'?)"
            ),
        ),
        rules=RULES,
    )


DOCUMENTS = {"plan": plan, "clean": clean, "preflight": preflight, "problems": problems, "baseline": baseline}
