"""The spec rules' registry instance, `RULES`, and the `@rule` decorator every rule module uses.

Apart from `planner.core.rules` (the package), which imports every rule module to list them: a
rule module imports this one, never the package, so no import goes round in a circle.
"""

from __future__ import annotations

from planner.core.model.cluster import NodeGroup, Path
from planner.core.rules.rule_registry import Check, Registry, Rule, RuleContext

__all__ = ["RULES", "Check", "Rule", "RuleContext", "count_path", "rule"]

RULES = Registry("rule")  # `planner.core.rules` gives it the function that imports the rule modules
rule = RULES.register


def count_path(g: NodeGroup) -> Path:
    """The key that states a group's size: `ultraservers` when the user wrote it, else `count`."""
    return g.path + ("ultraservers" if g.ultraservers is not None else "count",)
