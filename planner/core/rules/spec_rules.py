"""The spec rules' registry instance, `RULES`, and the decorators every rule module uses, one per
thing a rule inspects (as checkov dispatches a check to the resources it supports):

- `@rule(...)`: `check(rule, ctx)`, the cluster as a whole (across groups, against the cost);
- `@node_group_rule(...)`: `check(rule, ctx, group)`, called once per node group, in order;
- `@storage_rule(...)`: `check(rule, ctx, lustre)`, called with the file system when the cluster has one.

Apart from `planner.core.rules` (the package), which imports every rule module to list them: a
rule module imports this one, never the package, so no import goes round in a circle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import wraps

from planner.core.model.cluster import Lustre, NodeGroup, Path
from planner.core.model.findings import Edit, EditValue, Finding, Fix, Severity, advice
from planner.core.rules.rule_registry import Check, Registry, Rule, RuleContext

__all__ = [
    "RULES",
    "Check",
    "Edit",
    "Fix",
    "Rule",
    "RuleContext",
    "advice",
    "count_path",
    "model_path",
    "node_group_rule",
    "remove",
    "rule",
    "set_to",
    "storage_rule",
]

RULES = Registry("rule")  # `planner.core.rules` gives it the function that imports the rule modules
rule = RULES.register

GroupCheck = Callable[[Rule, RuleContext, NodeGroup], Iterable[Finding]]
StorageCheck = Callable[[Rule, RuleContext, Lustre], Iterable[Finding]]


def node_group_rule(
    id: str, severity: Severity, description: str, source: str, remediation: str, *, category: str
) -> Callable[[GroupCheck], GroupCheck]:
    """Declare a rule whose function judges one node group, and call it for each."""

    def register(check: GroupCheck) -> GroupCheck:
        @wraps(check)  # its module and name: where the rule is declared, as listings and tests read it
        def each(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
            for g in ctx.cluster.node_groups:
                yield from check(r, ctx, g)

        RULES.register(id, severity, description, source, remediation, category=category, inspects="node_group")(each)
        return check

    return register


def storage_rule(
    id: str, severity: Severity, description: str, source: str, remediation: str, *, category: str
) -> Callable[[StorageCheck], StorageCheck]:
    """Declare a rule whose function judges the cluster's file system, and call it when there is one."""

    def register(check: StorageCheck) -> StorageCheck:
        @wraps(check)
        def on_storage(r: Rule, ctx: RuleContext) -> Iterable[Finding]:
            fs = ctx.cluster.lustre
            return check(r, ctx, fs) if fs is not None else ()

        RULES.register(id, severity, description, source, remediation, category=category, inspects="storage")(
            on_storage
        )
        return check

    return register


def count_path(g: NodeGroup) -> Path:
    """The key that states a group's size: `ultraservers` when the user wrote it, else `count`."""
    return g.path + ("ultraservers" if g.ultraservers is not None else "count",)


def model_path(ctx: RuleContext, path: Path) -> Path:
    """A key path of the stack (a record's `path` and a field) as a model path below the cluster
    (`("node_groups", 0, "count")`), what a fix's edit names."""
    base = ctx.cluster.path
    return tuple(path[len(base) :]) if tuple(path[: len(base)]) == tuple(base) else tuple(path)


def set_to(ctx: RuleContext, path: Path, value: EditValue, note: str = "") -> Edit:
    """An edit: set the value at key path `path` of the stack to `value`."""
    return Edit(model_path(ctx, path), "set", value, note)


def remove(ctx: RuleContext, path: Path, value: EditValue = None, note: str = "") -> Edit:
    """An edit: drop the value at key path `path` (its default applies again), or `value` from its list."""
    return Edit(model_path(ctx, path), "remove", value, note)
