"""One check registry (issue 23 item 5): spec rules, preflight checks and the pack's resource checks.

Every check has a declared id, severity, public source, remediation and category; `planner rules`
lists them all; every id can be suppressed (stack `suppress:`, `--suppress`, the pack's config);
the resource checks run under `planner plan --program` with the ids the pack reports; the pack
plans a preview once for all its stack policies; and no registry is loaded by a module name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, run_cli
from test_policy_pack import LT, by_name, hand_written

from planner.core import rules
from planner.policy import POLICIES, planning, policies
from planner.policy.testing import Spec, check, resource_args, violations

RESOURCE_RULES = ("imdsv2-required", "interface-security-groups", "efa-security-group")


@pytest.fixture(autouse=True)
def no_stack_config(monkeypatch: pytest.MonkeyPatch) -> None:
    import pulumi.runtime

    monkeypatch.setattr(pulumi.runtime, "get_config", lambda key: None)


def test_every_check_of_the_pack_has_a_registered_rule_id() -> None:
    """Each resource check is a rule (listed, with severity, source and remediation); a pack violation names it."""
    for rid in RESOURCE_RULES:
        r = rules.registry()[rid]
        # imdsv2-required is planner's policy (Security Hub EC2.8), not an AWS requirement: a warning
        assert r.severity == ("warning" if rid == "imdsv2-required" else "error")
        assert r.source.startswith("https://") and r.remediation and r.category
    lt = by_name(hand_written(), LT)
    bad = Spec(LT, "bad", dict(lt.props, metadataOptions={"httpTokens": "optional"}, vpcSecurityGroupIds=["sg-0abc"]))
    for policy, rid in ((policies.imdsv2, "imdsv2-required"), (policies.efa_interfaces, "interface-security-groups")):
        (found,) = violations(policy, resource_args(bad))
        assert found[0].startswith(f"[{rid}] ")


def test_resource_checks_are_suppressed_by_the_policy_config_and_by_the_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    import pulumi.runtime

    lt = by_name(hand_written(), LT)
    bad = Spec(LT, "bad", dict(lt.props, metadataOptions={"httpTokens": "optional"}))
    assert [r.policy for r in check([bad], [policies.imdsv2])] == ["planner-imdsv2"]
    assert check([bad], [policies.imdsv2], config={"planner-imdsv2": {"suppress": ["imdsv2-required"]}}) == []
    declared = {"suppress": [{"rule": "imdsv2-required", "reason": "the AMI enforces IMDSv2 (ImdsSupport v2.0)"}]}
    monkeypatch.setattr(
        pulumi.runtime, "get_config", lambda k: json.dumps(declared) if k == "planner:cluster" else None
    )
    assert check([bad], [policies.imdsv2]) == []


def test_the_pack_suppress_schemas_name_every_rule_it_may_report() -> None:
    for policy in POLICIES:
        schema = getattr(policy, "config_schema", None)
        if schema is None:
            continue
        suppress = schema.properties.get("suppress")
        assert suppress is not None, policy.name
        rule_id, scoped = suppress["items"]["anyOf"]  # a rule id, or {rule, resource, reason} for one resource
        assert set(RESOURCE_RULES) <= set(rule_id["enum"]), policy.name
        assert set(RESOURCE_RULES) <= set(scoped["properties"]["rule"]["enum"]), policy.name


def test_the_pack_plans_a_preview_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stack policy of one preview shares one planning (each settles its own suppressions on it)."""
    calls = []
    real = planning.plan_stack

    def counted(stack, options):  # noqa: ANN001, ANN202
        calls.append(stack.name)
        return real(stack, options)

    monkeypatch.setattr(planning, "plan_stack", counted)
    monkeypatch.setattr(planning, "_SHARED", {})
    specs = hand_written(instance_type="trn2u.48xlarge", desired=6)  # warnings: not whole UltraServers
    reported = check(specs)
    assert len(calls) == 1, calls  # planner-topology, planner-topology-warnings (and planner-budget: no budget)
    assert any(r.message.startswith("[ultraserver-whole-units]") for r in reported)
    # a second preview of the same resources with another policy's suppressions: no new planning, settled apart
    quiet = check(specs, config={"planner-topology-warnings": {"suppress": ["ultraserver-whole-units"]}})
    assert len(calls) == 1 and not any(r.message.startswith("[ultraserver-whole-units]") for r in quiet)
    assert check(specs) == reported
    # other resources are another preview: planned again
    check(hand_written(desired=4))
    assert len(calls) == 2


def test_the_budget_shares_the_read_back_and_the_planning_and_reprices_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """planner-budget prices the stack for its hours and limits on the stack policies' one planning: the stack
    is read back once and planned once, then re-priced once (only the verdict rules run on the re-pricing)."""
    from planner.readback import topology

    plans, rebuilds, reprices = [], [], []
    real_plan, real_rebuild, real_reprice = planning.plan_stack, planning.rebuild, policies.reprice
    monkeypatch.setattr(planning, "plan_stack", lambda stack, options: plans.append(1) or real_plan(stack, options))
    monkeypatch.setattr(planning, "rebuild", lambda *a, **k: rebuilds.append(1) or real_rebuild(*a, **k))
    monkeypatch.setattr(policies, "reprice", lambda *a, **k: reprices.append(a[1]) or real_reprice(*a, **k))
    monkeypatch.setattr(planning, "_SHARED", {})
    monkeypatch.setattr(planning, "_REBUILT", {})
    assert planning.rebuild is not topology.rebuild
    # p5en.48xlarge: priced on demand in the shipped book, so the estimate exceeds the limit
    reported = check(hand_written("p5en.48xlarge"), config={"planner-budget": {"maxTotalUsd": 1000, "hours": 24}})
    assert (len(rebuilds), len(plans)) == (1, 1)
    assert reprices == [policies.BUDGET_RULES]  # the verdict rules, as `planner plan` judges a budget
    assert [r.policy for r in reported if r.message.startswith("[budget-exceeded]")] == ["planner-budget"]


def test_plan_program_reports_the_resource_checks_at_the_resource(tmp_path: Path) -> None:
    """The pack's IMDSv2 check judges a program's launch templates under `plan --program`, same id, at its line;
    `--suppress` takes the id like any rule's."""
    result = run_cli(
        "plan", "--program", "tests/corpus/eks-p5-capacity-block-unmanaged", "--stack", "test", "--format", "json"
    )
    assert result.code == 0, result.err  # a warning: planner's policy, not an AWS requirement
    (stack,) = json.loads(result.out)["stacks"]
    (f,) = [f for f in stack["findings"] if f["rule"] == "imdsv2-required"]
    assert f["severity"] == "warning" and f["file"].endswith("__main__.py") and f["line"]
    assert f["resource"].endswith("aws:ec2/launchTemplate:LaunchTemplate::" + f["resource"].rsplit("::", 1)[1])
    assert f["message"].startswith(
        "metadataOptions.httpTokens is 'optional': IAM role credentials can be retrieved without a session token"
    )
    # the fix in the program's terms (pulumi_aws's Python names), on the resource the finding is at; as data, an
    # edit of the resource's property as the engine names it
    lt = f'aws.ec2.LaunchTemplate "{f["resource"].rsplit("::", 1)[1]}" ({f["file"]}:{f["line"]})'
    assert f["fix"]["text"] == f'set `metadata_options.http_tokens` of {lt} to "required"'
    assert f["fix"]["edits"] == [
        {"path": "metadataOptions.httpTokens", "op": "set", "value": "required", "resource": f["resource"]}
    ]
    strict = ("--format", "json", "--fail-on", "warning")
    program = ("plan", "--program", "tests/corpus/eks-p5-capacity-block-unmanaged", "--stack", "test")
    assert run_cli(*program, *strict).code == 1
    quiet = run_cli(*program, *strict, "--suppress", "imdsv2-required")
    assert quiet.code == 0, quiet.err


def test_a_suppression_of_a_preflight_or_resource_check_is_accepted_by_plan(tmp_path: Path) -> None:
    """`planner plan` knows every id (from the core's declarations): suppressing one that cannot fire on a
    stack file is an unused suppression (info), not an unknown rule (exit 2)."""
    for rid in ("preflight-quota", "imdsv2-required"):
        result = run_cli("plan", "stacks/Pulumi.trn2-dev.yaml", "--format", "json", "--suppress", rid)
        assert result.code == 0, result.err
        (stack,) = json.loads(result.out)["stacks"]
        assert [u["rule"] for u in stack["unused_suppressions"]] == [rid]
    assert run_cli("plan", "stacks/Pulumi.trn2-dev.yaml", "--suppress", "imdsv2-require").code == 2


def test_no_registry_is_loaded_by_a_module_name() -> None:
    """Registries load their modules by explicit imports (import-linter sees them): no importlib, no pkgutil."""
    for path in (
        "planner/core/rules/rule_registry.py",
        "planner/core/rules/__init__.py",
        "planner/core/rules/spec_rules.py",
        "planner/aws/checks.py",
        "planner/aws/preflight_run.py",
        "planner/core/rules/preflight_declarations.py",
    ):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert "importlib" not in text and "pkgutil" not in text, path


def test_plan_suppressing_a_preflight_check_imports_no_adapter() -> None:
    """A suppression naming a preflight check is checked against the core's declaration: `planner plan`
    still imports neither planner.aws nor boto3/botocore."""
    import subprocess
    import sys

    code = (
        "import json, sys; from planner.cli import main; "
        "c = main(['plan', 'stacks/Pulumi.trn2-dev.yaml', '--suppress', 'preflight-quota', '--format', 'json', "
        "'-o', __import__('os').devnull]); "
        "print(json.dumps([c, [m for m in sys.modules if m.startswith(('planner.aws', 'boto', 'pulumi'))]]))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [0, []]


def test_rules_are_dispatched_by_what_they_inspect() -> None:
    """As checkov dispatches a check to the resources it supports: a node-group rule is called once per
    group with that group, a storage rule with the file system, a cluster rule with the cluster."""
    from planner.core.rules import registry as spec_registry
    from planner.core.rules.preflight_declarations import PREFLIGHT

    spec = spec_registry()
    assert spec["efa-unsupported"].inspects == "node_group"
    assert spec["lustre-capacity"].inspects == "storage"
    assert spec["budget-exceeded"].inspects == "cluster"
    assert spec["imdsv2-required"].inspects == "resource"
    assert {r.inspects for r in PREFLIGHT.all().values()} == {"account"}
    kinds = {r.inspects for r in spec.values()}
    assert kinds == {"cluster", "node_group", "storage", "resource"}


def test_a_node_group_rule_sees_each_group_and_a_storage_rule_only_a_file_system() -> None:
    from planner.core.catalogue.instance_types import load
    from planner.core.model.cluster import Cluster, Lustre, NodeGroup, Stack
    from planner.core.rules import registry as spec_registry
    from planner.core.rules.rule_registry import RuleContext

    groups = tuple(
        NodeGroup(name=f"g{i}", instance_type=t, count=1, efa=True, path=("g", i))
        for i, t in enumerate(("trn1.2xlarge", "p5.48xlarge", "trn1.2xlarge"))
    )
    stack = Stack("s", "Pulumi.s.yaml", "us-east-2", Cluster("us-east-2a", groups))
    rules = spec_registry()
    # trn1.2xlarge has no EFA: the rule is called with each group and reports the two that ask for it
    assert [f.path for f in rules["efa-unsupported"].run(RuleContext(stack, load()))] == [
        ("g", 0, "efa"),
        ("g", 2, "efa"),
    ]
    assert rules["lustre-capacity"].run(RuleContext(stack, load())) == []  # no file system: not called
    fs = Lustre("PERSISTENT_2", 1000, 125, "us-east-2a", path=("fs",))
    with_fs = Stack("s", "Pulumi.s.yaml", "us-east-2", Cluster("us-east-2a", groups, lustre=fs))
    (found,) = rules["lustre-capacity"].run(RuleContext(with_fs, load()))
    assert found.path == ("fs", "storage_capacity_gib")
