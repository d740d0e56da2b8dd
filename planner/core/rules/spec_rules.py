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
from planner.core.model.findings import REGION, Edit, EditValue, Finding, Fix, Severity, outside
from planner.core.rules.rule_registry import Check, Registry, Rule, RuleContext

__all__ = [
    "RULES",
    "Check",
    "Edit",
    "Fix",
    "Rule",
    "RuleContext",
    "count_path",
    "model_path",
    "move_region",
    "nearest_region",
    "outside",
    "node_group_rule",
    "remove",
    "rule",
    "set_to",
    "shrink",
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


def move_region(ctx: RuleContext, region: str, note: str = "") -> tuple[Edit, ...]:
    """The edits that move the stack to `region`: the region, and every Availability Zone the stack declares
    (the cluster's, a node group's or the file system's own) to a zone of it, the same zone letter where AWS
    lists it, so that the stack stays valid there."""
    from planner.core.catalogue import shipped_data as data

    c = ctx.cluster
    zones = data.regions().zones.get(region) or ()
    letter = c.availability_zone[-1:]
    zone = f"{region}{letter}" if f"{region}{letter}" in zones or not zones else zones[0]
    edits = [Edit(REGION, "set", region, note), set_to(ctx, c.path + ("availability_zone",), zone)]
    parts = [g for g in c.node_groups if "availability_zone" in g.declared]
    edits += [set_to(ctx, g.path + ("availability_zone",), zone) for g in parts]
    if c.lustre is not None and "availability_zone" in c.lustre.declared:
        edits.append(set_to(ctx, c.lustre.path + ("availability_zone",), zone))
    return tuple(edits)


def shrink(
    ctx: RuleContext, groups: Iterable[NodeGroup], weight: Callable[[NodeGroup], int], limit: int, note: str = ""
) -> tuple[Edit, ...]:
    """The edits that size `groups` so that the sum of count x `weight(group)` is at most `limit`: each group
    in proportion, by whole units (UltraServers) and to one unit at least, then the largest cut further while
    still over; `note` is said after the last edit. () when even one unit of each is over the limit."""
    sized = [g for g in groups if weight(g) > 0]
    total = sum(g.count * weight(g) for g in sized)
    if total <= limit:
        return ()
    units = {id(g): ctx.catalogue.unit_of(g) for g in sized}
    counts = {id(g): max(1, g.count * limit // total // units[id(g)]) * units[id(g)] for g in sized}
    excess = sum(counts[id(g)] * weight(g) for g in sized) - limit
    for g in sorted(sized, key=lambda g: -counts[id(g)] * weight(g)):
        if excess <= 0:
            break
        step = units[id(g)] * weight(g)
        cut = max(0, min(-(-excess // step), counts[id(g)] // units[id(g)] - 1))
        counts[id(g)] -= cut * units[id(g)]
        excess -= cut * step
    if excess > 0:
        return ()
    changed = [g for g in sized if counts[id(g)] != g.count]
    edits = []
    for g in changed:
        said = note if g is changed[-1] else ""
        if g.ultraservers is not None:
            edits.append(set_to(ctx, g.path + ("ultraservers",), counts[id(g)] // units[id(g)], said))
        else:
            edits.append(set_to(ctx, g.path + ("count",), counts[id(g)], said))
    return tuple(edits)


def nearest_region(region: str, regions: Iterable[str]) -> str:
    """The listed region whose name is closest to `region` (same geography first: us-east-1 for us-east-3)."""
    from planner.core.reading.fields import edits

    return min(regions, key=lambda r: (r.split("-")[0] != region.split("-")[0], edits(region, r), r))
