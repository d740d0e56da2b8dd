"""One registry type for everything that yields findings: spec rules, preflight checks, read-back checks.

A `Registry` only records and lists. A check is declared once, with its metadata (id,
severity, description, public source, remediation, category), in the core; its function is
attached where it can run: `@registry.register(...)` declares and attaches in one step (the
spec rules, whose functions are core too), `registry.declare(...)` records the metadata alone
and `@registry.attach(id)` gives it its function later (the preflight checks: declared in
`planner.core.rules.preflight_declarations`, run by `planner.aws`). So every id, its severity and its source are
known without importing an adapter: `planner plan` checks a suppression of a preflight check
and `planner rules` lists it without importing boto3.

A registry loads the modules that declare its checks through a function of explicit imports
(`load`, or `loads_with(load)` from the package that lists them, so that those modules import
only the registry instance and no import goes round in a circle; import-linter sees every one,
nothing is imported by name). What a finding does next
(suppression, settling, reporting) belongs to the pipeline and the renderers, not here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal, TypeVar

from msgspec import Struct
from msgspec.structs import replace

from planner.core.catalogue.instance_types import Catalogue
from planner.core.model.cluster import Cluster, Path, Stack
from planner.core.model.findings import SEVERITIES, Finding, Fix, Severity

if TYPE_CHECKING:
    from planner.core.cost.estimate import CostEstimate


Option = TypeVar("Option")


class RuleContext(Struct, frozen=True):
    """What a rule may look at: the stack, the catalogue, the cost estimate (if any), options.

    `options` are typed records, one record type per kind of option (`IncompleteCost` of the cost
    rules, the preflight checks' account and region): a rule asks for its own with `option`."""

    stack: Stack
    catalogue: Catalogue
    cost: CostEstimate | None = None  # filled before rules run when pricing is on
    options: tuple[object, ...] = ()

    @property
    def cluster(self) -> Cluster:
        return self.stack.cluster

    def option(self, kind: type[Option]) -> Option:
        """The options record of type `kind` this run was given, else `kind()` (its defaults)."""
        for o in self.options:
            if isinstance(o, kind):
                return o
        return kind()


Check = Callable[["Rule", RuleContext], Iterable[Finding]]
Inspects = Literal["cluster", "node_group", "storage", "resource", "account"]


def not_attached(r: Rule, ctx: RuleContext) -> Iterable[Finding]:
    """The function of a check declared in the core whose adapter has not attached its own."""
    raise LookupError(f"{r.id} is declared but no check is attached to it (its adapter was not imported)")


class Rule(Struct, frozen=True):
    """A declared rule or check: stable id, severity, source, remediation, category and its function."""

    id: str
    severity: Severity
    description: str
    source: str  # public https URL of the page (AWS docs, API reference, pricing) the rule rests on
    remediation: str
    check: Check = not_attached
    category: str = ""  # what the rule is about (SARIF tags it with this): capacity, network, storage, ...
    # what its function is called with, as checkov dispatches a check to the resources it supports:
    # `cluster` (the whole cluster), `node_group` (each node group), `storage` (the file system),
    # `resource` (a program's resource, in the policy pack), `account` (preflight: the AWS account)
    inspects: Inspects = "cluster"

    def finding(
        self, ctx: RuleContext, path: Path, message: str, severity: Severity | None = None, fix: Fix | None = None
    ) -> Finding:
        """A finding of this rule at key path `path` of the stack; its location comes from the stack's
        locator. `fix` says what to change in this stack (edits of the model, said in each adapter's terms
        when reported), when the rule can be more precise than its remediation."""
        from planner.core.input.locations import locate

        where = locate(ctx.stack, path)
        return Finding(
            self.id,
            severity or self.severity,
            message,
            where.file,
            where.line,
            resource=where.logical,
            path=tuple(path),
            fix=fix,
        )

    def run(self, ctx: RuleContext) -> list[Finding]:
        return list(self.check(self, ctx))


class Registry:
    """Checks of one kind by id; `load` (explicit imports of the modules that declare them) runs on first listing."""

    def __init__(self, kind: str, load: Callable[[], object] | None = None) -> None:
        self.kind = kind
        self._load_modules = load
        self._rules: dict[str, Rule] = {}
        self._loaded = load is None

    def declare(
        self,
        id: str,
        severity: Severity,
        description: str,
        source: str,
        remediation: str,
        *,
        category: str,
        check: Check = not_attached,
        inspects: Inspects = "cluster",
    ) -> Rule:
        """Record a check's metadata (checked here, once); its function may be attached later (`attach`)."""
        self._check_metadata(id, severity, source, category)
        r = Rule(id, severity, description, source, remediation, check, category, inspects)
        self.add(r)
        return r

    def register(
        self,
        id: str,
        severity: Severity,
        description: str,
        source: str,
        remediation: str,
        *,
        category: str,
        inspects: Inspects = "cluster",
    ) -> Callable[[Check], Check]:
        """Declare `id` and attach `check(rule, ctx) -> findings` to it: a rule whose function is core."""
        self._check_metadata(id, severity, source, category)

        def register(check: Check) -> Check:
            self.declare(
                id, severity, description, source, remediation, category=category, check=check, inspects=inspects
            )
            return check

        return register

    def _check_metadata(self, id: str, severity: str, source: str, category: str) -> None:
        if severity not in SEVERITIES:
            raise ValueError(f"{self.kind} {id}: severity {severity!r} not in {SEVERITIES}")
        if not source.startswith("https://"):
            raise ValueError(f"{self.kind} {id}: source {source!r} is not a public https URL")
        if not category:
            raise ValueError(f"{self.kind} {id}: no category")

    def attach(self, id: str) -> Callable[[Check], Check]:
        """Attach `check` to the declared `id` (an adapter's implementation of a check declared in the core)."""

        def attach(check: Check) -> Check:
            declared = self._rules.get(id)
            if declared is None:
                raise ValueError(f"{self.kind} {id!r} is not declared")
            if declared.check is not not_attached and declared.check is not check:
                raise ValueError(f"{self.kind} {id!r} has a check attached already")
            self._rules[id] = replace(declared, check=check)
            return check

        return attach

    def add(self, r: Rule) -> None:
        if r.id in self._rules and self._rules[r.id].check is not r.check:
            raise ValueError(f"{self.kind} id {r.id!r} registered twice")
        self._rules[r.id] = r

    def loads_with(self, load: Callable[[], object]) -> None:
        """Give the registry the function that imports the modules declaring its checks (explicit imports),
        run on its first listing: the package that lists them sets it, so those modules never import it."""
        self._load_modules = load
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            assert self._load_modules is not None
            self._load_modules()

    def all(self) -> dict[str, Rule]:
        """Every declared rule, by id, sorted by id."""
        self._load()
        return dict(sorted(self._rules.items()))

    def get(self, rule_id: str) -> Rule | None:
        return self.all().get(rule_id)
