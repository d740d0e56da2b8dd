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
from planner.errors import Problem
from planner.findings import SEVERITIES, Finding
from planner.model import NodeGroup, Path, Stack


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
    source: str  # public https URL of the page (AWS docs, API reference, pricing) the rule rests on
    remediation: str
    check: Check

    def finding(self, ctx: RuleContext, path: Path, message: str, severity: str | None = None,
                fix: str | None = None) -> Finding:
        """A finding of this rule pointing at `path` (a key path in the stack file); `fix` says
        what to change in this stack, when the rule can be more precise than its remediation."""
        return Finding(self.id, severity or self.severity, message, ctx.stack.file, ctx.stack.line(path), fix=fix)

    def run(self, ctx: RuleContext) -> list[Finding]:
        return list(self.check(self, ctx))


_REGISTRY: dict[str, Rule] = {}
_LOADED = False


def rule(id: str, severity: str, description: str, source: str, remediation: str,
         *, into: dict[str, Rule] | None = None) -> Callable[[Check], Check]:
    """Register `check(rule, ctx) -> findings` under `id` (in `into`; default: the rules `evaluate` runs)."""
    if severity not in SEVERITIES:
        raise ValueError(f"rule {id}: severity {severity!r} not in {SEVERITIES}")
    if not source.startswith("https://"):
        raise ValueError(f"rule {id}: source {source!r} is not a public https URL")
    target = _REGISTRY if into is None else into

    def register(check: Check) -> Check:
        if id in target and target[id].check is not check:
            raise ValueError(f"rule id {id!r} registered twice")
        target[id] = Rule(id, severity, description, source, remediation, check)
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


def known() -> Mapping[str, Rule]:
    """Every id a finding or a suppression may name: these rules, then the preflight checks
    (`planner.aws.checks`, which need the AWS account and so never run in `evaluate`)."""
    from planner.aws import checks

    return {**registry(), **checks.registry()}


def get(rule_id: str) -> Rule | None:
    # the preflight checks are only loaded for ids that are not rules (`planner plan` never needs them)
    return registry().get(rule_id) or known().get(rule_id)


def evaluate(ctx: RuleContext) -> Iterator[Finding]:
    for r in registry().values():
        yield from r.run(ctx)


def count_path(g: NodeGroup) -> Path:
    """The key that states a group's size: `ultraservers` when the user wrote it, else `count`."""
    return g.path + ("ultraservers" if g.ultraservers is not None else "count",)


# --- suppressions ----------------------------------------------------------------------

COMMAND_LINE = "command line"


def unknown_rule_message(rule_id: str) -> str | None:
    """Why `rule_id` cannot be suppressed (it names no rule), or None when it is a rule id."""
    if rule_id in registry():
        return None
    ids = known()
    if rule_id in ids:
        return None
    import difflib

    close = difflib.get_close_matches(rule_id, list(ids), n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"unknown rule '{rule_id}'{hint}; `planner rules` lists the rule ids"


def suppression_problems(stack: Stack, cli_rules: Iterable[str] = ()) -> list[Problem]:
    """Suppressions that name no rule: in the stack file (with its line) or on the command line.

    A typo in a suppression would silently suppress nothing, so it is bad input (exit 2).
    """
    problems = []
    for rid in cli_rules:
        msg = unknown_rule_message(rid)
        if msg:
            problems.append(Problem(COMMAND_LINE, None, "--suppress", msg))
    for i, s in enumerate(stack.cluster.suppress):
        msg = unknown_rule_message(s.rule)
        if msg:
            path = s.path + ("rule",)
            problems.append(Problem(stack.file, stack.line(path), f"planner:cluster.suppress[{i}].rule", msg))
    return problems


# --- the generated reference -----------------------------------------------------------

REFERENCE_START = "<!-- rules:start -->"
REFERENCE_END = "<!-- rules:end -->"
REFERENCE_COMMAND = "python -m planner rules --format markdown"


def _link(source: str) -> str:
    """A short link: the page name (`ec2-capacity-blocks`, `efa#efa-limits`)."""
    if source.startswith(("http://", "https://")):
        host, _, rest = source.split("//", 1)[1].partition("/")
        page = rest.rstrip("/").rsplit("/", 1)[-1].replace(".html", "") or host
        return f"[{page}]({source})"
    return f"`{source}`"


def reference_markdown() -> str:
    """The rule reference (docs/reference/rules.md), generated from the registry (the page must match it)."""
    lines = [
        REFERENCE_START,
        f"<!-- generated by `{REFERENCE_COMMAND}`: do not edit by hand -->",
        "",
        "| rule | severity | what it checks | remediation | source |",
        "|---|---|---|---|---|",
    ]
    from planner.report.text import md_own_cell

    for r in registry().values():
        lines.append(f"| `{r.id}` | {r.severity} | {md_own_cell(r.description)} | {md_own_cell(r.remediation)} | {_link(r.source)} |")
    lines.append(REFERENCE_END)
    return "\n".join(lines) + "\n"


def replace_reference(text: str) -> str:
    """`text` (a page holding the reference) with its marker block replaced by the current reference."""
    start, end = text.find(REFERENCE_START), text.find(REFERENCE_END)
    if start < 0 or end < start:
        raise ValueError(f"no {REFERENCE_START} ... {REFERENCE_END} block")
    return text[:start] + reference_markdown().rstrip("\n") + text[end + len(REFERENCE_END):]
