"""Every fix a rule proposes as edits fixes what it was proposed for, and breaks nothing else.

For each stack of the invalid-stack corpus (tests/invalid_stacks/), each finding's fix is data
(`Fix(reason, edits, alternatives)`): its edits are applied to the model (`apply_edits`), the stack is
planned again, and the test checks that the finding is gone and that no error appears that the stack
did not have before; each alternative, applied alone, raises no new error either. A fix that is no
edit of the model (confirm with AWS, book a block, add a price) has a reason and no edits, and names
its kind (`Fix.outside`, one of `OUTSIDE`): a fix in words without one fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from planner.core.catalogue import instance_types as catalogue
from planner.core.input.stack_files import load_stack
from planner.core.model.cluster import Cluster, Stack
from planner.core.model.edits import apply_to_stack
from planner.core.model.findings import OUTSIDE, Edit, Finding
from planner.core.planning.pipeline import plan_stack

HERE = Path(__file__).parent / "invalid_stacks"
STACKS = sorted(HERE.glob("Pulumi.*.yaml"))


def _sized(cluster: Cluster) -> Cluster:
    """What the parser derives from the declared values, again after the edits: a group whose
    `ultraservers` an edit set has that many UltraServers' instances, and a group that declares no
    Availability Zone of its own is in the cluster's."""
    cat = catalogue.load()
    groups = []
    for g in cluster.node_groups:
        if "availability_zone" not in g.declared:
            g = replace(g, availability_zone=cluster.availability_zone)
        ultra = cat.ultraserver_of(g)
        if g.ultraservers is not None and ultra is not None:
            g = replace(g, count=g.ultraservers * ultra.members)
        groups.append(g)
    return replace(cluster, node_groups=tuple(groups))


def _planned(stack: Stack, edits: tuple[Edit, ...]) -> list[Finding]:
    fixed = apply_to_stack(stack, edits)
    return plan_stack(replace(fixed, cluster=_sized(fixed.cluster))).findings


def _errors(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings if f.severity == "error" and not f.suppressed}


def _cases() -> list[Any]:
    out = []
    for path in STACKS:
        plan = plan_stack(load_stack(str(path)))
        name = path.name[len("Pulumi.") : -len(".yaml")]
        out += [pytest.param(path, f, id=f"{name}:{f.rule}:{f.key}") for f in plan.findings if f.fix is not None]
    return out


CASES = _cases()


def test_the_corpus_has_fixes_of_both_kinds() -> None:
    """The corpus exercises edits and words (else the test below would pass on nothing)."""
    fixes = [p.values[1].fix for p in CASES]
    assert sum(1 for f in fixes if f.edits) >= 25
    assert any(not f.edits for f in fixes)


@pytest.mark.parametrize("path,finding", CASES)
def test_a_fixs_edits_plan_its_finding_away(path: Path, finding: Finding) -> None:
    stack = load_stack(str(path))
    fix = finding.fix
    assert fix is not None
    before = plan_stack(stack).findings
    if not fix.edits and not fix.alternatives:
        assert fix.outside in OUTSIDE, f"{finding.rule} on {path.name}: a fix in words ({fix.reason!r}) of no kind"
        assert fix.reason
        return
    if not fix.edits:  # a reason (what to cut) and single edits that would do instead: one of them does
        assert any(
            not [f for f in _planned(stack, (a,)) if f.rule == finding.rule and f.path == finding.path]
            for a in fix.alternatives
        ), f"no alternative of {finding.rule} on {path.name} plans it away: {fix.alternatives}"
    after = _planned(stack, fix.edits) if fix.edits else before
    still = [f for f in after if f.rule == finding.rule and f.path == finding.path]
    assert not fix.edits or not still, f"the edits of {finding.rule} on {path.name} leave it: {fix.edits}"
    assert _errors(after) <= _errors(before), (
        f"the edits of {finding.rule} on {path.name} raise {sorted(_errors(after) - _errors(before))}"
    )
    for alternative in fix.alternatives:
        other = _planned(stack, (alternative,))
        assert _errors(other) <= _errors(before), (
            f"the alternative {alternative} of {finding.rule} on {path.name} raises "
            f"{sorted(_errors(other) - _errors(before))}"
        )


def test_the_workload_fix_is_a_block_that_holds_the_run(stack_file) -> None:
    """The workload needs 3,904 h on a Capacity Block cluster. Its fix names the block
    whose usable hours (it ends 30 minutes early for instances) hold the run, 4,032 h (168 days), which
    capacity-block-duration accepts; it used to propose 3905, which that rule then refused."""
    cluster = (
        "availability_zone: us-east-2b\nplacement_group: none\nnode_groups:\n"
        "  - {name: t, instance_type: trn2.48xlarge, count: 16, purchase: capacity-block, capacity_reservation_id: cr-0123456789abcdef0}\n"
        "schedule: {hours: 336}\nworkload: {parameters: 70e9, tokens: 2e12, mfu: 0.35}\n"
    )
    stack = load_stack(str(stack_file(cluster)))
    plan = plan_stack(stack)
    (f,) = [f for f in plan.findings if f.rule == "workload-exceeds-schedule"]
    assert f.fix is not None
    (edit,) = f.fix.edits
    assert (edit.path, edit.op, edit.value) == (("schedule", "hours"), "set", 4032)
    after = _planned(stack, f.fix.edits)
    assert not [x for x in after if x.rule in ("workload-exceeds-schedule", "capacity-block-duration")]


# stacks whose finding the invalid-stack corpus does not give with an edit: each fix's edits plan it away
MORE = {
    # node groups in two zones, the file system in a third of its own: the groups move to the file system's zone
    "lustre-same-az": (
        "availability_zone: us-east-2a\nplacement_group: none\nnode_groups:\n"
        "  - {name: a, instance_type: p5en.48xlarge, count: 1}\n"
        "  - {name: b, instance_type: p5en.48xlarge, count: 1, availability_zone: us-east-2b}\n"
        "lustre: {deployment_type: PERSISTENT_2, storage_capacity_gib: 2400, per_unit_storage_throughput: 125, "
        "availability_zone: us-east-2c}\n"
    ),
    # 320 instances across Capacity Blocks: the groups shrink, each in proportion, to the account's 256
    "capacity-block-size": (
        "availability_zone: us-east-2b\nplacement_group: none\nnode_groups:\n"
        + "".join(
            f"  - {{name: b{i}, instance_type: p5en.48xlarge, count: 64, purchase: capacity-block}}\n" for i in range(5)
        )
    ),
    # 2,501 p5.48xlarge in two groups: 20,008 H100, 8 over the UltraCluster AWS documents
    "ultracluster-scale": (
        "availability_zone: us-east-2b\nnode_groups:\n"
        "  - {name: a, instance_type: p5.48xlarge, count: 2000}\n  - {name: b, instance_type: p5.48xlarge, count: 501}\n"
    ),
}


@pytest.mark.parametrize("rule_id", sorted(MORE))
def test_more_fixes_plan_their_finding_away(stack_file, rule_id: str) -> None:
    stack = load_stack(str(stack_file(MORE[rule_id])))
    before = plan_stack(stack).findings
    found = [f for f in before if f.rule == rule_id and f.fix is not None and f.fix.edits]
    assert found, [(f.rule, f.fix) for f in before if f.rule == rule_id]
    for finding in found:
        assert finding.fix is not None
        after = _planned(stack, finding.fix.edits)
        assert not [f for f in after if f.rule == rule_id and f.path == finding.path], finding.fix.edits
        assert _errors(after) <= _errors(before)


def test_a_region_move_sets_the_region_and_every_zone_the_stack_declares(stack_file) -> None:
    """instance-region: the stack moves to the listed region nearest in name, with the same zone letter, and the
    region's edit is said by every adapter as the stack config's `aws:region`."""
    from planner.core.input.fix_words import in_stack_terms
    from planner.core.planning.build_report import reported_fix
    from planner.readback.program_terms import in_program_terms

    cluster = (
        "availability_zone: eu-west-3b\nnode_groups:\n"
        "  - {name: g, instance_type: p5en.48xlarge, count: 1, availability_zone: eu-west-3b}\n"
    )
    stack = load_stack(str(stack_file(cluster, region="eu-west-3")))
    (f,) = [f for f in plan_stack(stack).findings if f.rule == "instance-region"]
    assert f.fix is not None and f.fix.outside == "confirm"
    assert [(e.path, e.value) for e in f.fix.edits] == [
        (("region",), "eu-north-1"),
        (("availability_zone",), "eu-north-1b"),
        (("node_groups", 0, "availability_zone"), "eu-north-1b"),
    ]
    said = in_stack_terms(stack, f.fix)
    assert said.startswith(
        "set aws:region: eu-north-1 (the known region nearest in name); set availability_zone: eu-north-1b; "
        "in node group 'g', set availability_zone: eu-north-1b, or confirm the offering"
    ), said
    assert in_program_terms(stack, f.fix).startswith("in the stack config, set aws:region: eu-north-1")
    assert reported_fix(stack, f.fix).edits[0].path == "aws:region"
    assert not [x for x in _planned(stack, f.fix.edits) if x.rule == "instance-region"]
