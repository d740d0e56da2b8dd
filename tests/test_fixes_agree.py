"""Every fix a rule proposes as edits fixes what it was proposed for, and breaks nothing else.

For each stack of the invalid-stack corpus (tests/invalid_stacks/), each finding's fix is data
(`Fix(reason, edits, alternatives)`): its edits are applied to the model (`apply_edits`), the stack is
planned again, and the test checks that the finding is gone and that no error appears that the stack
did not have before; each alternative, applied alone, raises no new error either. A fix that is no
edit of the model (confirm with AWS, book a block, add a price) has a reason and no edits: those
are listed in ADVICE with why, so a new fix in words fails until it is an edit or listed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from planner.core.catalogue import instance_types as catalogue
from planner.core.input.stack_files import load_stack
from planner.core.model.cluster import Cluster, Stack
from planner.core.model.edits import apply_edits
from planner.core.model.findings import Edit, Finding
from planner.core.planning.pipeline import plan_stack

HERE = Path(__file__).parent / "invalid_stacks"
STACKS = sorted(HERE.glob("Pulumi.*.yaml"))

# rule: why its fix (on the corpus's stacks) is words, not an edit of the model
ADVICE = {
    "capacity-block-size": "splits a node group into several: new groups, which the user names and sizes",
    "ultracluster-scale": "asks to confirm with AWS (or to plan fewer accelerators: the user's choice of group)",
    "subnet-single-az": "moves every resource into an existing subnet's AZ, which only the account knows",
    "local-zone-opt-in": "an AWS account setting (opt in to the Local Zone), not a stack change",
    "instance-region": "moves the stack to another region: the region is the stack's, not the cluster model's",
    "price-unknown": "a price book change (or --price), not a stack change",
    "budget-exceeded": "the cut is the user's to choose among several levers; the budget it would take is an edit",
    "budget-incomplete-cost": "price what is missing: a price book change, or a budget setting given as an alternative",
    "ultraserver-requires-lustre": "declares a file system: a new record the user sizes (one UltraServer is an edit)",
    "capacity-block-reservation-count": "needs reservation ids only the account has (one id for the block is an edit)",
}


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
    fixed = replace(stack, cluster=_sized(apply_edits(stack.cluster, edits)))
    return plan_stack(fixed).findings


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
    if not fix.edits:
        assert finding.rule in ADVICE, f"{finding.rule} on {path.name}: a fix in words ({fix.reason!r}): list it"
        assert fix.reason
        return
    after = _planned(stack, fix.edits)
    still = [f for f in after if f.rule == finding.rule and f.path == finding.path]
    assert not still, f"the edits of {finding.rule} on {path.name} leave it: {fix.edits}"
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
