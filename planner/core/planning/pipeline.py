"""One truth, many entry points: the CLI, the Pulumi components and the policy pack all
plan a stack through `plan_stack`, so they run the same rules and the same cost code."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from planner.core import cost as _cost
from planner.core import rules as _rules
from planner.core.catalogue import instance_types as _catalogue
from planner.core.document.stacks import COMMAND_LINE, EXTERNAL, IN_SOURCE  # suppression kinds, as SARIF names them
from planner.core.document.summary_section import Summary
from planner.core.model.cluster import Budget, Schedule, Stack, Suppression
from planner.core.model.findings import Finding
from planner.core.planning.summary import summarize
from planner.core.reading.problems import InputError, Problem


class PlanOptions(Struct, frozen=True):
    """What a command adds to planning a stack: suppressions, rule options, the price book."""

    suppress: tuple[str, ...] = ()  # rule ids suppressed from the command line
    rule_options: tuple[object, ...] = ()  # typed option records (`RuleContext.option`)
    price_book: _cost.PriceBook | None = None  # None: the built-in current book


class StackPlan(Struct, frozen=True):
    """One stack planned: summary, findings and cost. Reports render the document built from
    it (`planner.core.planning.build_report.report`), never the plan itself."""

    stack: Stack
    summary: Summary
    findings: tuple[Finding, ...]
    cost: _cost.CostEstimate | None = None
    unused_suppressions: tuple[UnusedSuppression, ...] = ()


class UnusedSuppression(Struct, frozen=True):
    """A suppression that suppressed no finding of its stack: stale after a fix, or aimed at a
    rule that does not fire here. Reported at info level (never changes the exit code), so a
    suppression left behind does not silently hide the next finding of that rule."""

    rule: str
    reason: str
    kind: str  # inSource (the stack's `suppress:` list) or external (`--suppress` on the command line)
    file: str
    line: int | None = None
    path: tuple[Any, ...] = ()

    @property
    def key(self) -> str | None:
        from planner.core.reading.fields import key_path

        return key_path(self.path) if self.path else None


def plan_stack(stack: Stack, options: PlanOptions = PlanOptions()) -> StackPlan:
    problems = suppression_problems(stack, options.suppress)
    if problems:
        raise InputError(problems)
    cat = _catalogue.load()
    summary = summarize(stack.cluster, cat)
    cost = _cost.estimate(stack, options.price_book or _cost.load_price_book(None), cat)
    ctx = _rules.RuleContext(stack, cat, cost, options.rule_options)
    findings = settle(_rules.evaluate(ctx), stack, options.suppress)
    return StackPlan(stack, summary, findings, cost, unused_suppressions(findings, stack, options.suppress))


def reprice(
    plan: StackPlan,
    rule_ids: Iterable[str],
    options: PlanOptions = PlanOptions(),
    *,
    schedule: Schedule | None,
    budget: Budget | None,
) -> StackPlan:
    """`plan`'s stack with another `schedule` and `budget`, priced again with `options.price_book`
    and judged by the rules `rule_ids` only.

    For a question about the cost of a stack already planned (the policy pack's budget, priced
    for its own hours, limits or price book): the topology, and the findings of every rule that
    does not read the estimate, are the plan's, so reading the stack again and running the whole
    rule set would only repeat them. The result has no unused suppressions: with only some rules
    run, a suppression of any other rule would look unused when it is not.
    """
    stack = replace(plan.stack, cluster=replace(plan.stack.cluster, schedule=schedule, budget=budget))
    cat = _catalogue.load()
    cost = _cost.estimate(stack, options.price_book or _cost.load_price_book(None), cat)
    ctx = _rules.RuleContext(stack, cat, cost, options.rule_options)
    findings = settle(_rules.evaluate(ctx, tuple(rule_ids)), stack, options.suppress)
    return StackPlan(stack, summarize(stack.cluster, cat), findings, cost)


def settle(
    findings: Iterable[Finding], stack: Stack, suppress: Iterable[str] = (), scoped: Iterable[Suppression] = ()
) -> tuple[Finding, ...]:
    """Findings as reported, in file order, the kind and reason of each suppression recorded: suppressed
    on their resource in the source (a program resource's tag or comment: kind inSource), else by the
    stack's `suppress` (inSource), else on their resource from outside the source (`scoped`: the policy
    pack's config, kind external), else by the command line (external)."""
    in_source: dict[str, str] = {}
    on_resource: dict[tuple[str, str], str] = {}
    for s in stack.cluster.suppress:
        if s.resource is None:
            in_source.setdefault(s.rule, s.reason)
        else:
            on_resource.setdefault((s.resource, s.rule), s.reason)
    outside: dict[tuple[str, str], str] = {}
    for s in scoped:
        if s.resource is not None:
            outside.setdefault((s.resource, s.rule), s.reason)
    external = set(suppress)

    def one(f: Finding) -> Finding:
        here = (f.resource or "", f.rule)
        if here in on_resource:
            return f.suppress(IN_SOURCE, on_resource[here])
        if f.rule in in_source:
            return f.suppress(IN_SOURCE, in_source[f.rule])
        if here in outside:
            return f.suppress(EXTERNAL, outside[here])
        if f.rule in external:
            return f.suppress(EXTERNAL, f"suppressed on the command line (--suppress {f.rule})")
        return f

    return tuple(sorted((one(f) for f in findings), key=Finding.sort_key))


def unused_suppressions(
    findings: Iterable[Finding], stack: Stack, suppress: Iterable[str] = (), in_source: bool = True
) -> tuple[UnusedSuppression, ...]:
    """The suppressions that suppressed none of `findings` (after `settle`): the stack's own,
    in file order (`in_source`; those of one resource at the resource's file and line), then each
    `--suppress` rule once, in the order given."""
    findings = tuple(findings)
    scoped = {(s.resource, s.rule) for s in stack.cluster.suppress if s.resource is not None}
    # suppressed on their resource: by its own suppression, which `settle` applies first
    on_resource = {
        (f.resource, f.rule)
        for f in findings
        if f.suppression and f.suppression[0] == IN_SOURCE and (f.resource, f.rule) in scoped
    }
    used = {
        (f.suppression[0], f.rule)
        for f in findings
        if f.suppressed and f.suppression and (f.suppression[0] != IN_SOURCE or (f.resource, f.rule) not in scoped)
    }
    out = []
    seen: set[tuple[str | None, str]] = set()
    for s in stack.cluster.suppress if in_source else ():
        if s.resource is not None:
            where = (s.file or stack.file, s.line)
        else:
            where = (stack.file, stack.line(s.path))
        if (s.resource, s.rule) in seen:  # a repeat of a rule: the first entry is the one that suppresses
            out.append(UnusedSuppression(s.rule, s.reason, IN_SOURCE, *where, s.path))
            continue
        seen.add((s.resource, s.rule))
        matched = (IN_SOURCE, s.rule) in used if s.resource is None else (s.resource, s.rule) in on_resource
        if not matched:
            out.append(UnusedSuppression(s.rule, s.reason, IN_SOURCE, *where, s.path))
    for rule in dict.fromkeys(suppress):
        if (EXTERNAL, rule) not in used:
            out.append(
                UnusedSuppression(rule, f"suppressed on the command line (--suppress {rule})", EXTERNAL, stack.file)
            )
    return tuple(out)


def check_suppressions(stacks: Iterable[Stack], suppress: Iterable[str] = ()) -> None:
    """Suppressions that name no rule, in any stack or on the command line, stop the run first."""
    problems: list[Problem] = []
    for s in stacks:
        problems += [p for p in suppression_problems(s, suppress) if p not in problems]
    if problems:
        raise InputError(problems)


def plan_stacks(stacks: Iterable[Stack], options: PlanOptions = PlanOptions()) -> list[StackPlan]:
    """Plan every stack; unusable suppressions in any of them stop the run before any planning."""
    stacks = list(stacks)
    check_suppressions(stacks, options.suppress)
    return [plan_stack(s, options) for s in stacks]


# --- suppressions that name no rule ------------------------------------------------------


def unknown_rule_message(rule_id: str) -> str | None:
    """Why `rule_id` cannot be suppressed (it names no rule), or None when it is a rule id."""
    from planner.core.rules import known, lookup

    if lookup(rule_id) is not None:
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
        if msg and s.resource is not None:  # a program resource's tag or comment
            problems.append(Problem(s.file or stack.file, s.line, s.via, msg))
        elif msg:
            path = s.path + ("rule",)
            problems.append(Problem(stack.file, stack.line(path), f"planner:cluster.suppress[{i}].rule", msg))
    return problems
