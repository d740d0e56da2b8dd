"""From stack resources to a `StackPlan`, through the same parser and pipeline as `planner plan`.

Also reads the stack's own `planner:cluster` config when the engine passes it to the pack
(stacks built with planner components declare one, a hand-written program may): its schedule,
workload and budget are planned with the read-back by every stack policy, as `planner plan
--program` plans that stack, and its suppressions hold in the pack as they do in `planner plan`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from planner.core import rules as _rules
from planner.core.catalogue import instance_types as _catalogue
from planner.core.cost import PriceBook, load_price_book
from planner.core.document.report import Report, RuleInfo
from planner.core.document.stacks import ReportedFinding
from planner.core.input.locations import Location, in_file
from planner.core.model.cluster import Cluster, Path, Stack, Suppression, Unplanned
from planner.core.model.findings import Edit, Fix, Severity
from planner.core.model.provenance import Provenance
from planner.core.planning.build_report import report as build_report
from planner.core.planning.pipeline import (
    PlanOptions,
    StackPlan,
    plan_stack,
    settle,
    unused_suppressions,
)
from planner.core.planning.summary import summarize
from planner.readback.resources import Graph, Resource, Violation, from_policy
from planner.readback.topology import Rebuilt, rebuild, to_stack

STACK_FILE = "<stack resources>"
ZONE_SETTING = "the policy pack's `availabilityZone` config"  # where the pack takes a zone the resources do not name


class Outcome(Struct):
    rebuilt: Rebuilt
    plan: StackPlan | None = None
    problems: list[Violation] = field(default_factory=list)  # the rebuilt cluster is not valid input
    config_problems: list[Violation] = field(default_factory=list)  # the policy's own config names unknown rules
    suppress: tuple[str, ...] = ()  # the rule ids this policy suppresses (its config's, then the stack's own)
    scoped: tuple[Suppression, ...] = ()  # its config's suppressions of one resource, with their reasons

    @property
    def gaps(self) -> list[Violation]:
        return self.rebuilt.gaps


def stack_name() -> str:
    return os.environ.get("PULUMI_STACK") or "stack"


def declared_cluster() -> Mapping[str, Any] | None:
    """The stack's `planner:cluster` config, when the engine passed the stack config to the pack."""
    import pulumi.runtime

    raw = pulumi.runtime.get_config("planner:cluster")
    if not raw:
        return None
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    return value if isinstance(value, Mapping) else None


def declared_suppressions(declared: Mapping[str, Any] | None) -> tuple[str, ...]:
    entries = declared.get("suppress") if declared else None
    if not isinstance(entries, list):
        return ()
    return tuple(
        e["rule"] for e in entries if isinstance(e, Mapping) and isinstance(e.get("rule"), str) and e.get("reason")
    )


DECLARED_PLANNING_KEYS = ("schedule", "workload", "budget")
"""The stack's `planner:cluster` keys every stack policy plans with, as `planner plan --program` adds them
to the read-back (its `suppress` entries too, but each policy settles those on the shared planning)."""


def declared_planning(declared: Mapping[str, Any] | None) -> dict[str, Any]:
    """The stack's own planning keys (`DECLARED_PLANNING_KEYS`) that `declared` sets."""
    return {k: declared[k] for k in DECLARED_PLANNING_KEYS if declared and declared.get(k) is not None}


def plan_resources(
    resources: Iterable[Any],
    config: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
    declared: Mapping[str, Any] | None = None,
    price_book: PriceBook | None = None,
    sized: Mapping[str, Unplanned] | None = None,
) -> Outcome:
    """Rebuild the cluster from `resources` (PolicyResource-like), then parse and plan it.

    `declared` is the stack's `planner:cluster` config (`declared_cluster()`): its schedule,
    workload and budget are planned with the read-back, as `planner plan --program` plans that
    stack, and its suppressions hold on top of the policy config's `suppress`. `extra` adds
    (or replaces) `planner:cluster` keys on top of those. `sized`: the node groups of `extra` that
    price unplanned compute (group name -> the compute it sizes), which is then no longer left out.

    The engine calls every stack policy with the same preview's resources: the planning is
    shared (`_planned`), keyed by those resources and by what planning depends on, and each
    policy only settles its own suppressions on it, so a preview is planned once, not once per policy.
    """
    graph = Graph(from_policy(r) for r in resources)
    region, zone = _text(config.get("region")), _text(config.get("availabilityZone"))
    rule_ids = set(_rules.registry())
    wanted = [r for r in tuple(config.get("suppress") or ()) + declared_suppressions(declared) if isinstance(r, str)]
    config_problems = [
        Violation(f"policy config `suppress` names unknown rule '{r}'; `planner rules` lists the rule ids")
        for r in dict.fromkeys(wanted)
        if r not in rule_ids
    ]
    scoped, scoped_problems = config_suppressions(config, graph.resources)
    config_problems += scoped_problems
    book = price_book or load_price_book(None)
    shared = _planned(graph, region, zone, declared_planning(declared), dict(extra or {}), book, dict(sized or {}))
    suppress = tuple(dict.fromkeys(r for r in wanted if r in rule_ids))
    outcome = Outcome(shared.rebuilt, None, list(shared.problems), config_problems, suppress, tuple(scoped))
    if shared.plan is not None:
        outcome.plan = _settled(shared.plan, suppress, outcome.scoped)
    return outcome


SCOPED_KEYS = ("rule", "resource", "reason")  # a policy config `suppress` entry for one resource


def config_suppressions(
    config: Mapping[str, Any], resources: Iterable[Resource] | None = None, urn: str = "", name: str = ""
) -> tuple[list[Suppression], list[Violation]]:
    """The policy config's `suppress` entries for one resource, `{rule, resource, reason}` (the resource
    by its name or its URN), as suppressions of that resource's findings (kind external, with the reason);
    and the entries that cannot be used (no reason, an unknown rule, a resource the stack does not hold).

    A stack policy matches them against the stack's `resources`; a resource policy, which sees one resource,
    against that resource's `urn` and `name` (a resource named nowhere cannot be told from another one then)."""
    from planner.core.planning.pipeline import unknown_rule_message

    found: list[Suppression] = []
    bad: list[Violation] = []
    for i, entry in enumerate(config.get("suppress") or ()):
        if isinstance(entry, str):
            continue
        key = f"policy config `suppress[{i}]`"
        if not isinstance(entry, Mapping):
            bad.append(Violation(f"{key}: expected a rule id, or {{rule, resource, reason}} for one resource"))
            continue
        extra = sorted(str(k) for k in entry if k not in SCOPED_KEYS)
        rule, resource, reason = entry.get("rule"), entry.get("resource"), entry.get("reason")
        if extra:
            bad.append(Violation(f"{key}: unknown key `{extra[0]}`; expected only rule, resource, reason"))
        elif not isinstance(rule, str) or unknown_rule_message(rule):
            said = unknown_rule_message(rule) if isinstance(rule, str) else "expected a rule id"
            bad.append(Violation(f"{key}.rule: {said}"))
        elif not isinstance(resource, str) or not resource:
            bad.append(
                Violation(f"{key}.resource: expected the name or URN of the resource whose findings it suppresses")
            )
        elif not isinstance(reason, str) or not reason.strip():
            bad.append(
                Violation(
                    f"{key}.reason: a suppression needs a reason; expected why '{rule}' does not apply to {resource}"
                )
            )
        else:
            candidates = [(r.urn, r.name) for r in resources] if resources is not None else [(urn, name)]
            urns = [u for u, n in candidates if resource in (u, n)]
            if not urns and resources is not None:
                bad.append(
                    Violation(
                        f"{key}.resource: no resource of the stack is named '{resource}'; expected a name or a URN"
                    )
                )
            found += [Suppression(rule, reason.strip(), resource=u, via=f"{key}") for u in urns]
    return found, bad


def resource_suppressions(
    config: Mapping[str, Any], urn: str, name: str, props: Mapping[str, Any]
) -> tuple[dict[str, str], list[Violation]]:
    """A resource policy's suppressions of one resource: rule id -> reason, from the resource's own
    `planner:suppress:<rule>` tags, then the policy config's entries that name it; and the config's
    entries that cannot be used. Tags that cannot be used suppress nothing (`planner-topology` reports them)."""
    from planner.readback.resources import Resource
    from planner.readback.suppressions import from_tags

    tagged, _ = from_tags([Resource("", urn, name, dict(props))])
    configured, unusable = config_suppressions(config, urn=urn, name=name)
    out: dict[str, str] = {}
    for s in tagged + configured:
        out.setdefault(s.rule, s.reason)
    return out, unusable


def suppressed_on_resources(
    outcome: Outcome, severities: tuple[Severity, ...], exclude: Iterable[str] = ()
) -> list[str]:
    """What of `severities` is suppressed on its resource (a tag, the policy config), each `[rule] on
    'name' (type): reason`: what a policy that reports nothing says as not applicable, and why."""
    if outcome.plan is None:
        return []
    scoped = {(s.resource, s.rule) for s in (*outcome.plan.stack.cluster.suppress, *outcome.scoped) if s.resource}
    left_to_others = set(exclude)
    said = [
        f"[{f.rule}] on {resource_label(f.resource)}: {f.suppression.reason}"
        for f in document(outcome.plan).stacks[0].findings
        if f.suppression is not None
        and f.resource
        and (f.resource, f.rule) in scoped
        and f.severity in severities
        and f.rule not in left_to_others
    ]
    return list(dict.fromkeys(said))


def resource_label(urn: str) -> str:
    """`'trainers' (aws:autoscaling/group:Group)` for a URN (`urn:pulumi:STACK::PROJECT::TYPE::NAME`)."""
    parts = urn.split("::", 3)
    if len(parts) < 4:
        return urn
    return f"'{parts[3]}' ({parts[2].split('$')[-1]})"


class _Shared(Struct, frozen=True):
    """One preview's resources rebuilt and planned without suppressions (policies settle their own)."""

    rebuilt: Rebuilt
    plan: StackPlan | None
    problems: tuple[Violation, ...]
    book: PriceBook  # kept so that the key's id(book) names this book while the entry lives
    catalogue: Any  # the same, for the catalogue it was planned with


_SHARED: dict[tuple[Any, ...], _Shared] = {}
_SHARED_MAX = 8  # one preview asks a few questions (with and without a budget); older previews are dropped


_REBUILT: dict[tuple[Any, ...], Rebuilt] = {}


def _planned(
    graph: Graph,
    region: str | None,
    zone: str | None,
    declared: dict[str, Any],
    extra: dict[str, Any],
    book: PriceBook,
    sized: dict[str, Unplanned],
) -> _Shared:
    """The preview planned once per question: the same resources, region, AZ, stack keys, added keys and
    price book. Every stack policy asks the same question (the stack's own keys, the shipped book); only
    the budget's sizing of unsized compute asks another. The read-back is shared by every question."""
    seen = (repr(graph.resources), region, zone, id(_catalogue.load()))  # the read-back reads the catalogue too
    key = (
        *seen,
        repr(sorted(declared.items())),
        repr(sorted(extra.items())),
        repr(sorted((n, u.path) for n, u in sized.items())),
        stack_name(),
        id(book),
    )
    found = _SHARED.get(key)
    if found is not None:
        return found
    rebuilt = _REBUILT.get(seen)
    if rebuilt is None:
        rebuilt = _REBUILT[seen] = rebuild(graph, region, zone, zone_setting=ZONE_SETTING)
    problems = _declared_problems(declared)
    stack = None
    if not problems:
        stack, problems = to_stack(rebuilt, stack_name(), STACK_FILE, {**declared, **extra})
    if stack is not None:  # each resource's `planner:suppress:<rule>` tags, as `planner plan --program` reads them
        from planner.readback.suppressions import from_tags

        tagged, unusable = from_tags(graph.resources)
        problems = [Violation(f"{u.key}: {u.message}", u.urn) for u in unusable]
        cluster = replace(stack.cluster, suppress=stack.cluster.suppress + tuple(tagged))
        stack = None if problems else replace(stack, cluster=cluster)
    if stack is not None and sized:
        stack = _with_sized(stack, sized)
    if stack is not None:  # its fixes in the pack's terms, each value's resource and property from its provenance
        from planner.readback.program_resources import provenance

        pack_keys = frozenset(k for k in ("schedule", "budget") if k in extra)
        stack = replace(stack, locator=PackLocator(pack_keys), provenance=provenance(stack, {}))
    plan = plan_stack(stack, PlanOptions(price_book=book)) if stack is not None else None
    for cache in (_SHARED, _REBUILT):
        while len(cache) >= _SHARED_MAX:
            cache.pop(next(iter(cache)))
    found = _SHARED[key] = _Shared(rebuilt, plan, tuple(problems), book, _catalogue.load())
    return found


def _with_sized(stack: Stack, sized: Mapping[str, Unplanned]) -> Stack:
    """`stack` whose unplanned compute named in `sized` is priced by the node group sized for it (with
    the EBS volumes the program gives it): it is no longer left out of the estimate, or the budget
    would call an estimate incomplete for compute it has just priced."""
    paths = {u.path for u in sized.values()}
    groups = tuple(
        replace(g, root_volume_gib=None, volumes=sized[g.name].volumes) if g.name in sized else g
        for g in stack.cluster.node_groups
    )
    cluster = replace(
        stack.cluster, node_groups=groups, unplanned=tuple(u for u in stack.cluster.unplanned if u.path not in paths)
    )
    return replace(stack, cluster=cluster)


def _declared_problems(declared: dict[str, Any]) -> list[Violation]:
    """The stack's own planning keys checked with the stack file's tables (`planning_inputs`, as
    `planner plan --program` checks them): a bad value is the stack config's, not the resources'."""
    if not declared:
        return []
    from planner.core.input.stack_files import planning_inputs
    from planner.core.reading.problems import InputError

    try:
        planning_inputs(declared, f"Pulumi.{stack_name()}.yaml")
    except InputError as exc:
        return [Violation(f"stack config `{p.key}`: {p.message}") for p in exc.problems]
    return []


def _settled(plan: StackPlan, suppress: tuple[str, ...], scoped: tuple[Suppression, ...] = ()) -> StackPlan:
    """The shared plan with one policy's suppressions (the stack's own, then the policy's: of rules, and of
    rules on one resource) settled on it."""
    if not suppress and not scoped:  # the stack's own suppressions were settled when it was planned
        return plan
    findings = settle(plan.findings, plan.stack, suppress, scoped)
    return replace(plan, findings=findings, unused_suppressions=unused_suppressions(findings, plan.stack, suppress))


def document(plan: StackPlan) -> Report:
    """The pack's planning as the one output document (`planner.core.document`): every violation
    message of a stack policy is built from its findings and the rule metadata it carries."""
    return build_report("pack", [plan])


# a planning key the pack's own policy config gives, as that config names it (`policy/policy-config.json`)
PACK_KEYS: dict[tuple[str, str], tuple[str, str]] = {
    ("schedule", "hours"): ("planner-budget", "hours"),
    ("budget", "total_usd"): ("planner-budget", "maxTotalUsd"),
    ("budget", "monthly_usd"): ("planner-budget", "maxMonthlyUsd"),
    ("budget", "allow_incomplete"): ("planner-budget", "allowIncompleteCost"),
}


class PackLocator(Struct, frozen=True):
    """The pack's stack: located by its resources (no file of its own), and a fix said in the program's
    terms (each edit against the resource it was read from), a planning key in the terms of where the
    pack took it: its policy config's key (`PACK_KEYS`) when the policy config gave it (`from_config`:
    `schedule`, `budget`), else the stack config's `planner:cluster` key."""

    from_config: frozenset[str] = frozenset()

    def locate(self, stack: Stack, path: Path) -> Location:
        return in_file(stack, path)

    def say(self, stack: Stack, fix: Fix) -> str:
        from planner.core.input.fix_words import change, yaml_value
        from planner.readback.program_terms import IN_CONFIG, in_program_terms

        def config(edit: Edit) -> tuple[str, str]:
            pack = PACK_KEYS.get(tuple(edit.path[:2]))
            if pack is not None and edit.path[0] in self.from_config:
                said = f"set `{pack[1]}` in the {pack[0]} policy config to {yaml_value(edit.value)}"
                return "", f"{said} ({edit.note})" if edit.note else said
            return IN_CONFIG, change(stack.cluster, edit)

        return in_program_terms(stack, fix, config)


def with_pack_terms(plan: StackPlan, from_config: Iterable[str] = ()) -> StackPlan:
    """`plan` whose stack says its fixes in the pack's terms (`PackLocator`)."""
    return replace(plan, stack=replace(plan.stack, locator=PackLocator(frozenset(from_config))))


def describe(finding: ReportedFinding, rule: RuleInfo | None, message: str | None = None) -> str:
    """A finding of the document as a violation message: rule id, message, and what to do: the
    finding's own fix, said in the pack's terms when the document was built (`PackLocator`: the
    resource and property as the program declares them, a planning key as the pack's config or the
    stack config names it), else the rule's remediation. `message`: the finding's message as the caller
    words it (the budget policy names its own config's limits)."""
    said = finding.message if message is None else message
    if finding.fix is not None:
        fix = f" Fix: {finding.fix.text.rstrip('.')}."
    else:
        fix = f" Fix: {rule.remediation}" if rule is not None and rule.remediation else ""
    stop = "" if said.endswith(".") else "."
    return f"[{finding.rule}] {said}{stop}{fix}"


def described(doc: Report) -> list[tuple[ReportedFinding, str]]:
    """Every finding of the document with its violation message (`describe`)."""
    return [(f, describe(f, doc.rule(f.rule))) for s in doc.stacks for f in s.findings]


def findings_as_violations(
    outcome: Outcome, severities: tuple[Severity, ...], exclude: Iterable[str] = ()
) -> list[Violation]:
    """Unsuppressed findings of `severities`; `exclude`: rules another policy reports (each problem is reported once)."""
    if outcome.plan is None:
        return []
    left_to_others = set(exclude)
    return [
        Violation(message, f.resource)
        for f, message in described(document(outcome.plan))
        if not f.suppressed and f.severity in severities and f.rule not in left_to_others
    ]


def rules_report(cluster: Cluster, region: str, rule_ids: Iterable[str], resource_class: str = "") -> Report:
    """Run the named rules on a small model (one file system, one node group) built from one resource
    (of `resource_class`, `aws.fsx.LustreFileSystem`), as the one document (no cost: only these rules'
    findings, beside the small model's summary); a fix names that resource's properties (`PROPERTIES`).

    Resource policies reuse the rules this way instead of restating their logic.
    """
    from planner.readback.program_terms import PROPERTIES

    props = PROPERTIES.get(resource_class, {})
    parts: list[Path] = [g.path for g in cluster.node_groups] + ([cluster.lustre.path] if cluster.lustre else [])
    provenance = {part + (k,): Provenance("", prop) for part in parts for k, prop in props.items()}
    stack = Stack(stack_name(), STACK_FILE, region, cluster, locator=PackLocator(), provenance=provenance)
    cat = _catalogue.load()
    found = tuple(_rules.evaluate(_rules.RuleContext(stack, cat), rule_ids))
    return document(StackPlan(stack, summarize(cluster, cat), found))


def _text(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None
