"""The spec rules' registry: one small rule per concern, like cfn-lint and ParallelCluster validators.

A rule is a function decorated with `@rule(...)` (from `planner.core.rules.spec_rules`, which holds
the registry instance) in a module of this package; the module is named in `_load` (explicit
imports, in file-name order), so adding a rule touches that module (or a new one plus its line
in `_load`) plus its test. Rule ids are a contract (suppressions
and SARIF refer to them): never rename one. `known()` adds the preflight checks, declared in
`planner.core.rules.preflight_declarations` (their functions are the AWS adapter's). This module only
registers: suppressions are settled by `planner.core.planning.pipeline`, the reference page is printed by
`planner rules` (`planner.commands.rules`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from planner.core.model.findings import Finding
from planner.core.rules.rule_registry import Check, Rule, RuleContext
from planner.core.rules.spec_rules import RULES, count_path, rule

__all__ = [
    "RULES",
    "Check",
    "Rule",
    "RuleContext",
    "count_path",
    "evaluate",
    "get",
    "known",
    "lookup",
    "registry",
    "rule",
]


def _load() -> None:
    """Every module that declares spec rules (the registry calls this on its first listing)."""
    from planner.core.rules import (  # noqa: F401 - imported for their @rule declarations
        capacity_blocks,
        efa,
        lustre,
        network_placement,
        not_sold,
        placement,
        prices_and_budget,
        program_shapes,
        purchase,
        resource_settings,
        run_hours,
        scale,
        ultraserver,
        unsized,
        workload,
    )


RULES.loads_with(_load)


def registry() -> Mapping[str, Rule]:
    """Every rule, by id, sorted by id."""
    return RULES.all()


def known() -> dict[str, Rule]:
    """Every id a finding or a suppression may name: the rules, then the preflight checks (metadata only)."""
    from planner.core.rules.preflight_declarations import PREFLIGHT

    out = dict(RULES.all())
    out.update({k: v for k, v in PREFLIGHT.all().items() if k not in out})
    return out


def lookup(rule_id: str) -> Rule | None:
    """The rule or preflight check behind an id (None: no such id)."""
    found = RULES.get(rule_id)
    if found is None:
        from planner.core.rules.preflight_declarations import PREFLIGHT

        found = PREFLIGHT.get(rule_id)
    return found


def get(rule_id: str) -> Rule | None:
    """A rule, or a preflight check."""
    return lookup(rule_id)


def evaluate(ctx: RuleContext, rule_ids: Iterable[str] | None = None) -> Iterator[Finding]:
    """Every rule's findings on `ctx`, in id order; or only the rules `rule_ids` names, in that order,
    for a caller that asks one question of a stack already planned (LookupError: an id names no rule)."""
    if rule_ids is None:
        for r in registry().values():
            yield from r.run(ctx)
        return
    for rid in rule_ids:
        found = RULES.get(rid)
        if found is None:
            raise LookupError(f"rule {rid!r} is not registered")
        yield from found.run(ctx)
