"""A fix as data: edits applied to the model, the document's fix (reason, edits, text) written and read
back (an old report's plain-text fix too), and the pack's terms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from msgspec.structs import replace

from planner.core.document.codec import Invalid, dump, load
from planner.core.document.stacks import ReportedEdit, ReportedFinding, ReportedFix
from planner.core.input.stack_files import load_stack
from planner.core.model.edits import apply_edit, apply_edits
from planner.core.model.findings import Edit, Fix
from planner.core.model.provenance import Provenance
from planner.core.planning.build_report import reported_fix
from planner.core.planning.pipeline import plan_stack
from tests.conftest import run_cli

STACKS = Path(__file__).parent / "invalid_stacks"
EFA_OFF = STACKS / "Pulumi.efa-unsupported.yaml"


def test_set_replaces_the_value_at_the_path_and_leaves_the_rest() -> None:
    stack = load_stack(str(EFA_OFF))
    group = stack.cluster.node_groups[0]
    fixed = apply_edit(stack.cluster, Edit(("node_groups", 0, "count"), "set", group.count + 1))
    assert fixed.node_groups[0].count == group.count + 1
    assert fixed.node_groups[0].instance_type == group.instance_type
    assert stack.cluster.node_groups[0].count == group.count  # the original is unchanged


def test_remove_restores_the_default_and_add_appends() -> None:
    stack = load_stack(str(EFA_OFF))
    ids = ("node_groups", 0, "capacity_reservation_ids")
    cluster = apply_edits(stack.cluster, [Edit(("node_groups", 0, "efa"), "set", False), Edit(ids, "add", ("cr-1",))])
    assert cluster.node_groups[0].capacity_reservation_ids[-1:] == ("cr-1",)
    assert apply_edit(cluster, Edit(("node_groups", 0, "efa"), "remove")).node_groups[0].efa is True
    assert "cr-1" not in apply_edit(cluster, Edit(ids, "remove", "cr-1")).node_groups[0].capacity_reservation_ids


def test_a_path_the_model_does_not_have_is_refused() -> None:
    stack = load_stack(str(EFA_OFF))
    with pytest.raises(KeyError):
        apply_edit(stack.cluster, Edit(("node_groups", 9, "count"), "set", 1))
    with pytest.raises(KeyError):
        apply_edit(stack.cluster, Edit((), "set", 1))


def test_the_json_report_carries_the_fix_as_edits() -> None:
    res = run_cli("plan", str(EFA_OFF), "--format", "json")
    (f,) = [f for s in json.loads(res.out)["stacks"] for f in s["findings"] if f["rule"] == "efa-unsupported"]
    assert f["fix"] == {
        "reason": "",
        "edits": [{"path": "planner:cluster.node_groups[0].efa", "op": "set", "value": False}],
        "text": "in node group 'small', set efa: false",
    }


def test_every_finding_of_the_corpus_with_a_fix_has_its_text_and_reason_or_edits() -> None:
    for path in sorted(STACKS.glob("Pulumi.*.yaml")):
        stack = load_stack(str(path))
        for f in plan_stack(stack).findings:
            if f.fix is None:
                continue
            reported = reported_fix(stack, f.fix)
            assert reported.text and (reported.reason or reported.edits), (path.name, f.rule)
            assert load(ReportedFix, dump(reported)) == reported


def test_an_old_reports_plain_text_fix_still_loads() -> None:
    old = {"rule": "efa-unsupported", "severity": "error", "message": "m", "file": "f", "line": 3, "path": ""}
    old |= {"suppressed": False, "fix": "in node group 'small', set efa: false"}
    finding = load(ReportedFinding, old)
    assert finding.fix == ReportedFix("in node group 'small', set efa: false")
    with pytest.raises(Invalid, match="fix.edits"):
        load(ReportedFinding, old | {"fix": {"reason": "", "edits": "set", "text": "x"}})
    edit = load(ReportedEdit, {"path": "planner:cluster.schedule.hours", "op": "set", "value": 336})
    assert edit == ReportedEdit("planner:cluster.schedule.hours", "set", 336)
    with pytest.raises(Invalid, match="op"):
        load(ReportedEdit, {"path": "p", "op": "replace", "value": 1})


def test_planner_render_reads_a_saved_report_whose_fix_is_text(tmp_path: Path) -> None:
    doc = json.loads(run_cli("plan", str(EFA_OFF), "--format", "json").out)
    for s in doc["stacks"]:
        for f in s["findings"]:
            if "fix" in f:
                f["fix"] = "an old fix, said as text"
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(doc), encoding="utf-8")
    res = run_cli("render", str(saved), "--format", "table")
    assert res.code == 0, res.err
    assert "fix: an old fix, said as text" in res.out


def test_the_pack_says_a_budget_it_took_from_its_config_by_that_configs_key() -> None:
    from planner.policy.planning import PackLocator

    stack = load_stack(str(STACKS / "Pulumi.budget-exceeded.yaml"))
    raise_it = Fix("cut $10.00", alternatives=(Edit(("budget", "total_usd"), "set", 3040.84),))
    hours = Fix(edits=(Edit(("schedule", "hours"), "set", 336),))
    asg = "urn:pulumi:dev::sample::aws:autoscaling/group:Group::gpu"
    group = stack.cluster.node_groups[0].path
    provenance = {group + ("count",): Provenance(asg, "desired_capacity")}
    pack = PackLocator(frozenset({"budget"}))
    with_provenance = replace(stack, provenance=provenance)
    said = pack.say(with_provenance, raise_it)
    assert said == "cut $10.00, or set `maxTotalUsd` in the planner-budget policy config to 3040.84"
    assert pack.say(stack, hours) == "in the stack config's planner:cluster, set schedule.hours: 336"
    count = Fix(edits=(Edit(("node_groups", 0, "count"), "set", 1),))
    assert pack.say(with_provenance, count) == 'set `desired_capacity` of aws.autoscaling.Group "gpu" to 1'


def test_a_region_edit_is_the_stack_configs_aws_region_in_every_adapter() -> None:
    """The region is the stack's (`REGION`), not the cluster's: the stack file, a program and the pack all
    say it as the stack config's `aws:region`, and `apply_to_stack` applies it."""
    from planner.core.input.fix_words import in_stack_terms
    from planner.core.model.edits import apply_to_stack
    from planner.core.model.findings import REGION
    from planner.policy.planning import PackLocator
    from planner.readback.program_terms import in_program_terms

    stack = load_stack(str(EFA_OFF))
    move = Fix(edits=(Edit(REGION, "set", "us-east-1", "where it is sold"),))
    assert in_stack_terms(stack, move) == "set aws:region: us-east-1 (where it is sold)"
    assert in_program_terms(stack, move) == "in the stack config, set aws:region: us-east-1 (where it is sold)"
    assert PackLocator().say(stack, move) == "in the stack config, set aws:region: us-east-1 (where it is sold)"
    assert apply_to_stack(stack, move.edits).region == "us-east-1"
    with pytest.raises(KeyError):
        apply_edits(stack.cluster, move.edits)
