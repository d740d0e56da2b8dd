"""The spec rules' registry: one small rule per concern, like cfn-lint and ParallelCluster validators.

A rule is a function decorated with `@rule(...)` in any module of this package; the first
listing imports them all, so adding a rule touches one file plus its test. Rule ids are
a contract (suppressions and SARIF refer to them): never rename one. This module only
registers: suppressions are settled by `planner.pipeline`, the reference page is printed
by `planner rules` (`planner.commands.rules`).
"""

from __future__ import annotations

from typing import Iterator, Mapping

from planner.findings import Finding
from planner.model import NodeGroup, Path
from planner.registry import Check, Registry, Rule, RuleContext, known, lookup

__all__ = ["RULES", "Check", "Rule", "RuleContext", "count_path", "evaluate", "get", "known", "registry", "rule"]

RULES = Registry("rule", package=__name__, package_path=__path__)
rule = RULES.register


def registry() -> Mapping[str, Rule]:
    """Every rule, by id, sorted by id."""
    return RULES.all()


def get(rule_id: str) -> Rule | None:
    """A rule, or a preflight check (loaded only for ids that are not rules)."""
    return lookup(rule_id)


def evaluate(ctx: RuleContext) -> Iterator[Finding]:
    for r in registry().values():
        yield from r.run(ctx)


def count_path(g: NodeGroup) -> Path:
    """The key that states a group's size: `ultraservers` when the user wrote it, else `count`."""
    return g.path + ("ultraservers" if g.ultraservers is not None else "count",)
