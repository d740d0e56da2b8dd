"""From stack resources to a `StackPlan`, through the same parser and pipeline as `planner plan`.

Also reads the stack's own `planner:cluster` config when the engine passes it to the pack
(stacks built with planner components declare one): its suppressions hold in the pack as
they do in `planner plan`, and its schedule and budget are the budget policy's defaults.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from planner import catalogue as _catalogue
from planner import rules as _rules
from planner.cost import PriceBook
from planner.findings import Finding
from planner.model import Cluster, Stack
from planner.pipeline import PlanOptions, StackPlan, plan_stack
from planner.policy.resources import Graph, from_policy
from planner.policy.topology import Rebuilt, Violation, rebuild, to_stack

STACK_FILE = "<stack resources>"


@dataclass
class Outcome:
    rebuilt: Rebuilt
    plan: StackPlan | None = None
    problems: list[Violation] = field(default_factory=list)  # the rebuilt cluster is not valid input
    config_problems: list[Violation] = field(default_factory=list)  # the policy's own config names unknown rules

    @property
    def gaps(self) -> list[Violation]:
        return self.rebuilt.gaps


def stack_name() -> str:
    return os.environ.get("PULUMI_STACK") or "stack"


def declared_cluster() -> Mapping[str, Any] | None:
    """The stack's `planner:cluster` config, when the engine passed the stack config to the pack."""
    import pulumi.runtime

    raw = pulumi.runtime.get_config("planner:cluster")
    if not raw:
        return None
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    return value if isinstance(value, Mapping) else None


def declared_suppressions(declared: Mapping[str, Any] | None) -> tuple[str, ...]:
    entries = declared.get("suppress") if declared else None
    if not isinstance(entries, list):
        return ()
    return tuple(e["rule"] for e in entries if isinstance(e, Mapping) and isinstance(e.get("rule"), str) and e.get("reason"))


def plan_resources(resources: Iterable[Any], config: Mapping[str, Any], extra: Mapping[str, Any] | None = None,
                   suppress: Iterable[str] = (), price_book: PriceBook | None = None) -> Outcome:
    """Rebuild the cluster from `resources` (PolicyResource-like), then parse and plan it.

    `extra` adds `planner:cluster` keys (schedule, budget) to the rebuilt mapping;
    `suppress` lists rule ids suppressed on top of the policy config's `suppress`.
    """
    graph = Graph(from_policy(r) for r in resources)
    rebuilt = rebuild(graph, _text(config.get("region")), _text(config.get("availabilityZone")))
    outcome = Outcome(rebuilt)
    rule_ids = set(_rules.registry())
    wanted = [r for r in tuple(config.get("suppress") or ()) + tuple(suppress) if isinstance(r, str)]
    outcome.config_problems = [Violation(f"policy config `suppress` names unknown rule '{r}'; `planner rules` lists the rule ids")
                               for r in dict.fromkeys(wanted) if r not in rule_ids]
    stack, outcome.problems = to_stack(rebuilt, stack_name(), STACK_FILE, dict(extra or {}))
    if stack is None:
        return outcome
    options = PlanOptions(suppress=tuple(dict.fromkeys(r for r in wanted if r in rule_ids)), price_book=price_book)
    outcome.plan = plan_stack(stack, options)
    return outcome


def describe(finding: Finding, config_fixes: bool = False) -> str:
    """A finding as a violation message: rule id, message, and what to do.

    What to do is the finding's own fix when it speaks the program's language: always for
    the read-back rules (they name the resource's properties), and for the other rules
    only when the stack declares `planner:cluster` config (`config_fixes`), whose keys are
    the ones those fixes name. Otherwise a fix such as "set schedule.hours: 336" would name
    a key the program does not have, so the rule's general remediation is given instead.
    """
    r = _rules.get(finding.rule)
    if finding.fix and (config_fixes or (r is not None and r.category == "readback")):
        where = "" if r is not None and r.category == "readback" else "in the planner:cluster config, "
        fix = f" Fix: {where}{finding.fix.rstrip('.')}."
    elif finding.fix and finding.resource:  # the rule's own fix, restated against the resource it concerns
        from planner.program_terms import restate

        fix = f" Fix: {restate(finding.fix, finding.path, finding.resource).rstrip('.')}."
    else:
        fix = f" Fix: {r.remediation}" if r is not None and r.remediation else ""
    stop = "" if finding.message.endswith(".") else "."
    return f"[{finding.rule}] {finding.message}{stop}{fix}"


def findings_as_violations(outcome: Outcome, severities: tuple[str, ...], config_fixes: bool = False,
                           exclude: Iterable[str] = ()) -> list[Violation]:
    """Unsuppressed findings of `severities`; `config_fixes`: the stack declares `planner:cluster` (see `describe`);
    `exclude`: rules another policy reports (each problem is reported once)."""
    if outcome.plan is None:
        return []
    left_to_others = set(exclude)
    return [Violation(describe(f, config_fixes), f.resource) for f in outcome.plan.findings
            if not f.suppressed and f.severity in severities and f.rule not in left_to_others]


def run_rules(cluster: Cluster, region: str, rule_ids: Iterable[str]) -> list[Finding]:
    """Run the named rules on a small model (one file system, one node group) built from one resource.

    Resource policies reuse the rules this way instead of restating their logic.
    """
    ctx = _rules.RuleContext(Stack(stack_name(), STACK_FILE, region, cluster), _catalogue.load())
    out: list[Finding] = []
    for rid in rule_ids:
        r = _rules.get(rid)
        if r is None:
            raise LookupError(f"rule {rid!r} is not registered")
        out.extend(r.run(ctx))
    return out


def _text(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None
