"""One registry type for everything that yields findings: the spec rules and the preflight checks.

A `Registry` only registers and lists: `@registry.register(...)` records a `Rule` (metadata
plus the function), and the first listing imports the modules that declare them. Two
instances exist: `planner.rules.RULES` (run by every plan) and `planner.aws.checks.CHECKS`
(run by `planner preflight`, since they need the account). What a finding does next
(suppression, settling, reporting) belongs to the pipeline and the renderers, not here.

`known()` is every id a finding or a suppression may name. The core cannot import the AWS
adapters, so the registries are named in `REGISTRIES` ("module:attribute", as a setuptools
entry point would name them) and each is imported only when an id is not found before it:
`planner plan` never imports the preflight checks unless a suppression names one.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from planner.catalogue import Catalogue
from planner.findings import SEVERITIES, Finding, Severity
from planner.model import Cluster, Path, Stack

# every registry, in lookup order, loaded by name on demand
REGISTRIES = ("planner.rules:RULES", "planner.aws.checks:CHECKS")


@dataclass(frozen=True)
class RuleContext:
    """What a rule may look at: the stack, the catalogue, the cost estimate (if any), options."""

    stack: Stack
    catalogue: Catalogue
    cost: Any = None  # planner.cost estimate, filled before rules run when pricing is on
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def cluster(self) -> Cluster:
        return self.stack.cluster


Check = Callable[["Rule", RuleContext], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    """A registered rule or preflight check: stable id, severity, source, remediation and its check."""

    id: str
    severity: Severity
    description: str
    source: str  # public https URL of the page (AWS docs, API reference, pricing) the rule rests on
    remediation: str
    check: Check
    category: str = ""  # what the rule is about (SARIF tags it with this): capacity, network, storage, ...

    def finding(self, ctx: RuleContext, path: Path, message: str, severity: Severity | None = None,
                fix: str | None = None) -> Finding:
        """A finding of this rule at key path `path` of the stack; its location comes from the stack's
        locator. `fix` says what to change in this stack, when the rule can be more precise than its remediation."""
        from planner.locate import locate, restate

        where = locate(ctx.stack, path)
        return Finding(self.id, severity or self.severity, message, where.file, where.line,
                       resource=where.logical, path=tuple(path), fix=restate(ctx.stack, fix, path, where, self.category))

    def run(self, ctx: RuleContext) -> list[Finding]:
        return list(self.check(self, ctx))


class Registry:
    """Rules of one kind by id; `modules` (names, or a package whose modules all declare rules) load on first use."""

    def __init__(self, kind: str, *, modules: Iterable[str] = (), package: str | None = None,
                 package_path: Iterable[str] = ()) -> None:
        self.kind = kind
        self._modules = tuple(modules)
        self._package = package
        self._package_path = list(package_path)
        self._rules: dict[str, Rule] = {}
        self._loaded = False

    def register(self, id: str, severity: Severity, description: str, source: str, remediation: str,
                 *, category: str) -> Callable[[Check], Check]:
        """Register `check(rule, ctx) -> findings` under `id`; metadata is checked here, once."""
        if severity not in SEVERITIES:
            raise ValueError(f"{self.kind} {id}: severity {severity!r} not in {SEVERITIES}")
        if not source.startswith("https://"):
            raise ValueError(f"{self.kind} {id}: source {source!r} is not a public https URL")
        if not category:
            raise ValueError(f"{self.kind} {id}: no category")

        def register(check: Check) -> Check:
            self.add(Rule(id, severity, description, source, remediation, check, category))
            return check

        return register

    def add(self, r: Rule) -> None:
        if r.id in self._rules and self._rules[r.id].check is not r.check:
            raise ValueError(f"{self.kind} id {r.id!r} registered twice")
        self._rules[r.id] = r

    def _load(self) -> None:
        if self._loaded:
            return
        names = list(self._modules)
        if self._package:
            names += [f"{self._package}.{m.name}" for m in sorted(pkgutil.iter_modules(self._package_path),
                                                                   key=lambda m: m.name)
                      if not m.name.startswith("_")]
        for name in names:
            importlib.import_module(name)
        self._loaded = True

    def all(self) -> dict[str, Rule]:
        """Every registered rule, by id, sorted by id."""
        self._load()
        return dict(sorted(self._rules.items()))

    def get(self, rule_id: str) -> Rule | None:
        return self.all().get(rule_id)


def registries() -> Iterator[Registry]:
    """The registries named in `REGISTRIES`, each imported when reached."""
    for spec in REGISTRIES:
        module, _, attr = spec.partition(":")
        yield getattr(importlib.import_module(module), attr)


def known() -> dict[str, Rule]:
    """Every id a finding or a suppression may name: the rules, then the preflight checks."""
    out: dict[str, Rule] = {}
    for reg in registries():
        out.update({k: v for k, v in reg.all().items() if k not in out})
    return out


def lookup(rule_id: str) -> Rule | None:
    """The rule or check behind an id; a later registry is only imported for ids an earlier one lacks."""
    for reg in registries():
        r = reg.get(rule_id)
        if r is not None:
            return r
    return None
