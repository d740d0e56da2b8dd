"""Every fix a rule proposes is accepted by every other rule.

For each stack of the invalid-stack corpus (tests/invalid_stacks/), each finding's `fix` is applied
to the stack as a user would (its first alternative this test can apply: `set KEY: VALUE`, `remove
KEY`, `split node group ...`, `raise budget.X to V`), the stack is planned again, and the test
checks that no error appears that the stack did not have before (nor an input error). A fix that
names a value only the user has (a reservation id, a price) or asks for a decision (confirm with
AWS) cannot be applied here: those are listed in NOT_APPLICABLE with why, so a new fix shape fails
until it is applied or listed.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.core.input.stack_files import load_stack
from planner.core.planning.pipeline import plan_stack
from planner.core.reading.problems import InputError

HERE = Path(__file__).parent / "invalid_stacks"
STACKS = sorted(HERE.glob("Pulumi.*.yaml"))

# (stack, rule): why its fix is not applied here
NOT_APPLICABLE = {
    ("capacity-block-reservation-count", "capacity-block-reservation-count"): "needs reservation ids only the user has",
    ("capacity-block-reservation", "capacity-block-reservation"): "needs the booked block's reservation id",
    ("capacity-block-resource-group", "capacity-block-resource-group"): "needs the block's reservation id",
    (
        "subnet-single-az",
        "subnet-single-az",
    ): "moves every resource into an existing subnet's AZ, which only the user knows",
    (
        "ultracluster-scale",
        "ultracluster-scale",
    ): "asks to confirm with AWS (or to shrink by 8 chips, 1 instance: applied below)",
    (
        "capacity-reservation-list",
        "capacity-reservation-list",
    ): "declares a node group per reservation: the split is the user's",
    ("local-zone-opt-in", "local-zone-opt-in"): "an AWS account setting (opt in to the Local Zone), not a stack change",
    ("spot-unsupported", "local-zone-opt-in"): "an AWS account setting (opt in to the Local Zone), not a stack change",
}
PRICE_FIX = "add the price"  # price-unknown: a price book change, not a stack change


def _cluster(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["config"]["planner:cluster"]


def _group(doc: dict[str, Any], name: str) -> dict[str, Any]:
    (g,) = [g for g in _cluster(doc)["node_groups"] if g["name"] == name]
    return g


def _value(text: str) -> Any:
    return yaml.safe_load(text)


def _set(doc: dict[str, Any], target: dict[str, Any] | None, key: str, value: str) -> None:
    if key == "aws:region":
        doc["config"]["aws:region"] = _value(value)
        return
    where = target if target is not None else _cluster(doc)
    *parents, last = key.split(".")
    for p in parents:
        where = where.setdefault(p, {})
    if last in ("count", "ultraservers") and target is not None:
        target.pop("count", None)
        target.pop("ultraservers", None)
    where[last] = _value(value)


def _apply_one(doc: dict[str, Any], fix: str) -> bool:
    """Apply one alternative of a fix to `doc`; False when this test cannot apply it."""
    target = None
    m = re.match(r"in node group(?:\(s\))? '([^']+)', (.*)$", fix)
    if m:
        target, fix = _group(doc, m.group(1)), m.group(2)
    m = re.match(
        r"split node group '([^']+)' \(count: (\d+)\) into groups of count: ([\d, ]+), one Capacity Block each", fix
    )
    if m:
        g = _group(doc, m.group(1))
        groups = _cluster(doc)["node_groups"]
        i = groups.index(g)
        parts = [int(x) for x in m.group(3).split(",")]
        groups[i : i + 1] = [dict(g, name=f"{g['name']}-{k}", count=n) for k, n in enumerate(parts, 1)]
        return True
    m = re.search(r"raise budget\.(\w+) to ([\d.]+)", fix)
    if m:
        _cluster(doc)["budget"][m.group(1)] = float(m.group(2))
        return True
    m = re.match(r"remove ([\w.:]+)(?:: \S+)?(?: \(.*\))?$", fix)
    if m:
        (target if target is not None else _cluster(doc)).pop(m.group(1))
        return True
    if " and declare " in fix:
        return False  # new node groups: how to split the instances is the user's choice
    m = re.match(r"set ([\w.:]+): ([^\s,()]+)", fix)  # the first `set KEY: VALUE`; what follows explains it
    if m:
        _set(doc, target, m.group(1), m.group(2))
        for key, value in re.findall(r"\band ([\w.:]+): ([^\s,()]+)", fix):  # `(and aws:region: us-east-1)`
            _set(doc, None, key, value)
        return True
    return False


def _alternatives(fix: str) -> list[str]:
    """`A, or B` / `A or B`: the alternatives in order; a clause in parentheses stays with its own."""
    head = re.match(r"(in node group(?:\(s\))? '[^']+', )", fix)
    prefix = head.group(1) if head else ""
    body = fix[len(prefix) :]
    parts = re.split(r",? or (?=(?:set|remove|in node group|raise|add|split|plan|export|train|ask|confirm)\b)", body)
    out = []
    for p in parts:
        p = p.strip().rstrip(",")
        out.append(p if p.startswith("in node group") or p.startswith("raise") else prefix + p)
    return out


def _errors(path: Path) -> set[str]:
    return {f.rule for f in plan_stack(load_stack(str(path))).findings if f.severity == "error" and not f.suppressed}


def _cases() -> list[Any]:
    out = []
    for path in STACKS:
        plan = plan_stack(load_stack(str(path)))
        name = path.name[len("Pulumi.") : -len(".yaml")]
        for f in plan.findings:
            if f.fix and not f.fix.startswith(PRICE_FIX):
                out.append(pytest.param(path, f.rule, f.fix, id=f"{name}:{f.rule}"))
    return out


@pytest.mark.parametrize("path,rule_id,fix", _cases())
def test_a_fix_raises_no_new_error(tmp_path: Path, path: Path, rule_id: str, fix: str) -> None:
    name = path.name[len("Pulumi.") : -len(".yaml")]
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    before = _errors(path)
    for alt in _alternatives(fix):
        edited = copy.deepcopy(doc)
        if _apply_one(edited, alt):
            break
    else:
        assert (name, rule_id) in NOT_APPLICABLE, f"cannot apply the fix of {rule_id} on {path.name}: {fix!r}"
        return
    assert (name, rule_id) not in NOT_APPLICABLE, f"{rule_id} on {path.name}: applied, drop it from NOT_APPLICABLE"
    out = tmp_path / path.name
    out.write_text(yaml.safe_dump(edited, sort_keys=False), encoding="utf-8")
    try:
        after = _errors(out)
    except InputError as exc:
        pytest.fail(f"the fix of {rule_id} ({alt!r}) makes {path.name} invalid input: {exc}")
    assert after <= before, f"the fix of {rule_id} ({alt!r}) on {path.name} raises {sorted(after - before)}"


def test_the_workload_fix_is_a_block_that_holds_the_run(stack_file) -> None:
    """The workload needs 3,904 h on a Capacity Block cluster. Its fix names the block
    whose usable hours (it ends 30 minutes early for instances) hold the run, 4,032 h (168 days), which
    capacity-block-duration accepts; it used to propose 3905, which that rule then refused."""
    cluster = (
        "availability_zone: us-east-2b\nplacement_group: none\nnode_groups:\n"
        "  - {name: t, instance_type: trn2.48xlarge, count: 16, purchase: capacity-block, capacity_reservation_id: cr-0123456789abcdef0}\n"
        "schedule: {hours: 336}\nworkload: {parameters: 70e9, tokens: 2e12, mfu: 0.35}\n"
    )
    plan = plan_stack(load_stack(str(stack_file(cluster))))
    (f,) = [f for f in plan.findings if f.rule == "workload-exceeds-schedule"]
    assert f.fix.startswith(
        "set schedule.hours: 4032 (a 168-day (4,032 h) Capacity Block: instances run 4,031.5 h of it, "
        "enough for the 3,904.3 h the workload needs)"
    )
    fixed = plan_stack(load_stack(str(stack_file(cluster.replace("hours: 336", "hours: 4032")))))
    assert not [x for x in fixed.findings if x.rule in ("workload-exceeds-schedule", "capacity-block-duration")]
