"""Findings keep their key path; the location (file, line, URN) is worked out from it by the
stack's locator (`planner.core.input.locations`), and JSON and SARIF show the path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.core.document import codec
from planner.core.input.locations import locate, nearest
from planner.core.input.stack_files import load_stack
from planner.core.planning.build_report import finding as reported
from planner.core.planning.pipeline import plan_stack
from planner.core.reading.fields import key_path
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
STACKS = sorted((ROOT / "tests" / "invalid_stacks").glob("Pulumi.*.yaml")) + sorted(
    (ROOT / "stacks").glob("Pulumi.*.yaml")
)


def test_key_path_spells_keys_as_written_under_config() -> None:
    assert key_path(("config", "planner:cluster", "node_groups", 0, "count")) == "planner:cluster.node_groups[0].count"
    assert key_path(("config",)) == "config"
    assert key_path(()) == ""


def test_nearest_falls_back_to_the_closest_ancestor() -> None:
    found = {("a",): 1, ("a", "b", 0): 2}
    assert nearest(found, ("a", "b", 0, "c")) == 2
    assert nearest(found, ("a", "x")) == 1
    assert nearest(found, ("z",)) is None


@pytest.mark.parametrize("path", STACKS, ids=[p.name for p in STACKS])
def test_every_finding_has_a_path_that_locates_its_line(path: Path) -> None:
    stack = load_stack(str(path.relative_to(ROOT)))
    plan = plan_stack(stack)
    for f in plan.findings:
        assert f.path and f.path[:2] == ("config", "planner:cluster"), f
        where = locate(stack, f.path)
        assert (where.file, where.line) == (f.file, f.line), f
        assert codec.dump(reported(f, stack))["path"] == key_path(f.path)


def test_json_and_sarif_carry_the_path() -> None:
    rel = "tests/invalid_stacks/Pulumi.capacity-block-size.yaml"
    findings = json.loads(run_cli("plan", rel, "--format", "json").out)["stacks"][0]["findings"]
    assert findings and all(f["path"].startswith("planner:cluster") for f in findings)
    hit = next(f for f in findings if f["rule"] == "capacity-block-size")
    assert hit["path"] == "planner:cluster.node_groups[0].count"
    sarif = json.loads(run_cli("plan", rel, "--format", "sarif").out)
    result = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "capacity-block-size")
    assert result["locations"][0]["logicalLocations"] == [{"fullyQualifiedName": hit["path"], "kind": "member"}]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == hit["line"]


def test_a_read_back_stack_is_located_where_the_program_declares_it() -> None:
    """A program's stack carries its locator: a finding is made at the program's file and line,
    with the resource's URN, and a planning key at its stack config's line (nothing moved later)."""
    import msgspec.structs

    from planner.core.input.stack_files import CLUSTER_PATH
    from planner.core.model.cluster import Stack
    from planner.readback.program_resources import Planning, ProgramLocator

    urn = "urn:pulumi:dev::p::aws:ec2/instance:Instance::gpu"
    base = load_stack("stacks/Pulumi.p5en-train.yaml")
    config_lines = {CLUSTER_PATH + ("schedule", "hours"): 7}
    planning = Planning({"schedule": {"hours": 10}}, "Pulumi.dev.yaml", config_lines)
    stack = Stack(
        "dev",
        "__main__.py",
        base.region,
        base.cluster,
        resources={CLUSTER_PATH + ("node_groups", 0): urn},
        locator=ProgramLocator({urn: ("infra/__main__.py", 42)}, planning),
    )
    where = locate(stack, CLUSTER_PATH + ("node_groups", 0, "count"))
    assert (where.file, where.line, where.logical) == ("infra/__main__.py", 42, urn)
    where = locate(stack, CLUSTER_PATH + ("schedule", "hours"))
    assert (where.file, where.line, where.logical) == ("Pulumi.dev.yaml", 7, None)
    where = locate(stack, CLUSTER_PATH + ("placement_group",))  # from no resource: the program's main file
    assert (where.file, where.line, where.logical) == ("__main__.py", None, None)
    findings = plan_stack(
        msgspec.structs.replace(
            stack,
            cluster=msgspec.structs.replace(
                base.cluster, node_groups=(msgspec.structs.replace(base.cluster.node_groups[0], efa=False),)
            ),
        )
    ).findings
    efa = next(f for f in findings if f.rule == "efa-recommended")
    assert (efa.file, efa.line, efa.resource) == ("infra/__main__.py", 42, urn)
