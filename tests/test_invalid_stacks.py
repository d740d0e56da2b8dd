"""One invalid example stack per rule, run through the CLI as users run it.

Each `tests/invalid_stacks/Pulumi.<rule-id>.yaml` marks the offending line(s) with
`# expect: <rule-id>`; the rule must fire there (and only there), with exit 1 when the rule
is an error (and 0 for a warning: the stacks break nothing else).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planner.core import rules
from tests.conftest import run_cli

HERE = Path(__file__).parent / "invalid_stacks"
STACKS = sorted(HERE.glob("Pulumi.*.yaml"))
# Rules that no stack can trigger with the shipped catalogue, and why (checked below).
NO_STACK = {
    "lustre-s3-association": (
        "every shipped deployment type links to S3 (ImportPath, or a data repository association on "
        "PERSISTENT_2); tested with modified data in test_rule_sources.py"
    ),
    # rules of clusters read back from a program's resources: a stack file cannot trigger them; their
    # invalid inputs are the programs of tests/corpus and the cases of tests/test_readback_rules.py
    **{
        r: "read back from a program only"
        for r in (
            "budget-unbounded-compute",
            "compute-unsized",
            "efa-interface-layout",
            "instance-type-unlisted",
            "node-group-multi-az",
            "readback-gap",
            "scaling-maximum",
            "scaling-size-refused",
        )
    },
    # checks of a program's resources (the pack's resource policies): tests/test_check_registry.py
    **{
        r: "a resource's properties only"
        for r in ("efa-security-group", "imdsv2-required", "interface-security-groups", "lustre-security-group")
    },
    "lustre-efa-requirements": (
        "a stack file has no key for a metadata configuration or security groups (planner's components create "
        "both); its cases are a program's resources and the model, tests/test_lustre_efa_requirements.py"
    ),
    "lustre-metadata-iops": (
        "a stack file has no key for the metadata configuration's mode or IOPS (the components create AUTOMATIC); "
        "its cases are a program's resources and the pack, tests/test_lustre_metadata_iops.py"
    ),
}
# Stacks that must break one more rule, and why (each is marked `# expect:` in the stack too).
ALSO_BREAKS = {
    "workload-exceeds-schedule": {"budget-exceeded": "the budget is checked on the hours the workload needs"},
    "budget-incomplete-cost": {"price-unknown": "the unknown price is why the budget cannot be checked"},
}


def _rule_of(path: Path) -> str:
    return path.name[len("Pulumi.") : -len(".yaml")]


def _expected_lines(path: Path, rule_id: str) -> list[int]:
    pattern = re.compile(rf"#\s*expect:\s*{re.escape(rule_id)}\s*$")
    return [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]


def test_every_rule_has_an_invalid_stack() -> None:
    have = {_rule_of(p) for p in STACKS}
    missing = sorted(set(rules.registry()) - have - set(NO_STACK))
    assert not missing, f"add tests/invalid_stacks/Pulumi.<rule-id>.yaml for: {', '.join(missing)}"
    assert have <= set(rules.registry()), f"stacks for unknown rules: {sorted(have - set(rules.registry()))}"


def test_no_stack_exemptions_still_hold() -> None:
    from planner.core.catalogue.lustre_deployments import deployment_types

    assert all(dt.s3_link for dt in deployment_types().values()), (
        "a deployment type now links to S3 in no way: add tests/invalid_stacks/Pulumi.lustre-s3-association.yaml"
    )


@pytest.mark.parametrize("path", STACKS, ids=[_rule_of(p) for p in STACKS])
def test_invalid_stack_fires_its_rule_at_the_marked_line(path: Path) -> None:
    rule_id = _rule_of(path)
    expected = _expected_lines(path, rule_id)
    assert expected, f"{path.name}: mark the offending line with `# expect: {rule_id}`"
    rel = str(path.relative_to(Path(__file__).parent.parent))

    strict = run_cli("plan", rel, "--format", "json", "--fail-on", "warning")
    findings = json.loads(strict.out)["stacks"][0]["findings"]
    hits = [f for f in findings if f["rule"] == rule_id]
    informational = bool(hits) and all(f["severity"] == "info" for f in hits)
    assert strict.code == (0 if informational else 1), strict.err
    assert sorted(f["line"] for f in hits) == expected
    assert all(f["file"] == rel and not f["suppressed"] for f in hits)

    default = run_cli("plan", rel, "--format", "json")
    is_error = any(f["severity"] == "error" for f in hits)
    assert default.code == (1 if is_error else 0), default.out
    allowed = {rule_id, *ALSO_BREAKS.get(rule_id, {})}
    other_errors = [f for f in findings if f["severity"] == "error" and f["rule"] not in allowed]
    assert not other_errors, f"{path.name} should break only {rule_id}: {other_errors}"
