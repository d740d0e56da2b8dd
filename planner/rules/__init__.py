"""The rule registry: one small rule per concern, like cfn-lint and ParallelCluster validators.

A rule is a function decorated with `@rule(...)` in any module of this package; importing
the package finds them all, so adding a rule touches one file plus its test. Rule ids are
a contract (suppressions and SARIF refer to them): never rename one.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from planner.catalogue import Catalogue
from planner.findings import SEVERITIES, Finding
from planner.model import Path, Stack


@dataclass(frozen=True)
class RuleContext:
    """What a rule may look at: the stack, the catalogue, the cost estimate (if any), options."""

    stack: Stack
    catalogue: Catalogue
    cost: Any = None  # planner.cost estimate, filled before rules run when pricing is on
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def cluster(self):  # noqa: ANN201 - the model's Cluster
        return self.stack.cluster


Check = Callable[["Rule", RuleContext], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    description: str
    source: str  # URL of the AWS page, or seed article, the rule rests on
    remediation: str
    check: Check

    def finding(self, ctx: RuleContext, path: Path, message: str, severity: str | None = None) -> Finding:
        """A finding of this rule pointing at `path` (a key path in the stack file)."""
        return Finding(self.id, severity or self.severity, message, ctx.stack.file, ctx.stack.line(path))

    def run(self, ctx: RuleContext) -> list[Finding]:
        return list(self.check(self, ctx))


_REGISTRY: dict[str, Rule] = {}
_LOADED = False


def rule(id: str, severity: str, description: str, source: str, remediation: str) -> Callable[[Check], Check]:
    """Register `check(rule, ctx) -> findings` under `id`."""
    if severity not in SEVERITIES:
        raise ValueError(f"rule {id}: severity {severity!r} not in {SEVERITIES}")

    def register(check: Check) -> Check:
        if id in _REGISTRY and _REGISTRY[id].check is not check:
            raise ValueError(f"rule id {id!r} registered twice")
        _REGISTRY[id] = Rule(id, severity, description, source, remediation, check)
        return check

    return register


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    for mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if not mod.startswith("_"):
            importlib.import_module(f"{__name__}.{mod}")
    _LOADED = True


def registry() -> Mapping[str, Rule]:
    """Every rule, by id, sorted by id."""
    _load()
    return dict(sorted(_REGISTRY.items()))


def get(rule_id: str) -> Rule | None:
    return registry().get(rule_id)


def evaluate(ctx: RuleContext) -> Iterator[Finding]:
    for r in registry().values():
        yield from r.run(ctx)
