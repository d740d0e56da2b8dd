"""The pack's policies: stack policies that plan the rebuilt cluster, resource policies for single resources.

Enforcement follows the rules' severities: error findings are `mandatory` (they stop
`pulumi up`), warning findings `advisory`. A stack policy has one enforcement level, so the
topology's findings are split by severity into two policies, `planner-topology`
(mandatory, errors) and `planner-topology-warnings` (advisory: warnings, info findings and
what the pack could not see); each can be raised, lowered or disabled in the pack's config.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from planner.core import rules as _rules
from planner.core.cost import HOURS_PER_MONTH, PriceBook, load_price_book
from planner.core.document.report import Report
from planner.core.document.stacks import ReportedFinding
from planner.core.input.stack_files import CLUSTER_PATH
from planner.core.model.cluster import Budget, Schedule, Unplanned
from planner.core.planning.pipeline import PlanOptions, StackPlan, reprice
from planner.core.reading.problems import InputError
from planner.core.render.cost_report import headline
from planner.core.rules import resource_settings as resource_rules
from planner.policy import resource_checks
from planner.policy.planning import (
    Outcome,
    config_suppressions,
    declared_cluster,
    declared_planning,
    declared_suppressions,
    describe,
    document,
    findings_as_violations,
    plan_resources,
    resource_label,
    resource_suppressions,
    suppressed_on_resources,
    with_pack_terms,
)
from planner.readback import security_groups
from planner.readback.resources import Graph, Violation, dig, from_policy, plain

TOPOLOGY = "planner-topology"
TOPOLOGY_WARNINGS = "planner-topology-warnings"
BUDGET = "planner-budget"
EFA_SECURITY_GROUP = "planner-efa-security-group"
LUSTRE_SECURITY_GROUP = "planner-lustre-security-group"
EFA_INTERFACES = "planner-efa-interfaces"
IMDSV2 = "planner-imdsv2"
PUBLIC_IP = "planner-no-public-ip-multi-card"
LUSTRE_VALUES = "planner-lustre-values"

BUDGET_RULE = "budget-exceeded"
EFA_SECURITY_GROUP_RULE = resource_rules.EFA_SECURITY_GROUP
LUSTRE_SECURITY_GROUP_RULE = resource_rules.LUSTRE_SECURITY_GROUP

_LOCATION_SCHEMA: dict[str, dict[str, Any]] = {
    "region": {"type": "string", "description": "AWS region, when no aws provider region is visible to the pack"},
    "availabilityZone": {
        "type": "string",
        "description": "AZ for node groups whose subnets are not resources of the stack",
    },
}


def unknown_keys(policy: str, config: Mapping[str, Any], accepted: Mapping[str, Any]) -> list[Violation]:
    """Policy config keys `policy` does not take, each named with the keys it takes.

    The engine checks a policy's config against the schema it builds from `PolicyConfigSchema` (type,
    properties, required: no `additionalProperties`), so any other key reaches the policy, and a
    misspelt one (`availabilityzone`, `supress`) would change nothing without a word; `enforcementLevel`
    is the engine's own key of every policy."""
    return [
        Violation(f"policy config `{key}` is not a {policy} key; it takes {', '.join(sorted(accepted))}")
        for key in sorted(k for k in config if k not in accepted and k != "enforcementLevel")
    ]


def _suppress_schema() -> dict[str, Any]:
    rule = {"type": "string", "enum": sorted(_rules.registry())}
    return {
        "type": "array",
        "items": {
            "anyOf": [
                rule,
                {
                    "type": "object",
                    "properties": {
                        "rule": rule,
                        "resource": {"type": "string", "minLength": 1, "description": "the resource's name or URN"},
                        "reason": {
                            "type": "string",
                            "minLength": 1,
                            "description": "why the rule does not apply to it",
                        },
                    },
                    "required": ["rule", "resource", "reason"],
                    "additionalProperties": False,
                },
            ]
        },
        "description": "rule ids whose findings this policy does not report (as `planner plan --suppress`), "
        "or {rule, resource, reason}: that rule's findings on one resource (its name or URN), with the reason",
    }


def _report(violations: Iterable[Violation], report_violation: ReportViolation) -> None:
    for v in violations:
        report_violation(v.message, v.urn)


BUDGET_CONFIG: dict[str, dict[str, Any]] = {
    "maxTotalUsd": {"type": "number", "minimum": 0, "description": "most the run may cost in USD over `hours`"},
    "maxMonthlyUsd": {
        "type": "number",
        "minimum": 0,
        "description": "most the cluster may cost per 730-hour month",
    },
    "hours": {
        "type": "number",
        "minimum": 0,
        "description": "hours the cluster runs (default: the stack's planner:cluster schedule.hours, "
        "else its workload's hours, else 730 with this policy's limits)",
    },
    "instances": {
        "type": "integer",
        "minimum": 1,
        "description": "instances each pool without a maximum (a Karpenter NodePool without limits, "
        "a PCS group without maxInstanceCount) is priced at; with `hours`, else such a "
        "stack fails the budget",
    },
    "allowIncompleteCost": {
        "type": "boolean",
        "default": False,
        "description": "check `maxTotalUsd` / `maxMonthlyUsd` against the priced part when the estimate is "
        "incomplete (a price unknown, compute or EBS volumes left out); default: such a budget fails "
        "(budget-incomplete-cost)",
    },
    "priceBook": {
        "type": "string",
        "description": "price book: current (default), capacity-blocks-2024, or a YAML file "
        "(relative to the policy pack folder) over the current book",
    },
    **_LOCATION_SCHEMA,
    "suppress": _suppress_schema(),
}
"""`planner-budget`'s policy config (its `PolicyConfigSchema`, and the keys `_unread_keys` accepts)."""

RETIRED_KEYS = {
    "requireCompletePricing": "an incomplete estimate now fails the budget (budget-incomplete-cost) unless "
    "`allowIncompleteCost: true`, which checks the limits against the priced part; remove the key",
}
"""Keys `planner-budget` took before 0.1.0, and what replaced them (a config that sets one is refused)."""


# --- stack policies ------------------------------------------------------------------------


# rules that hold the stack to a budget: `planner-budget` gives that verdict, under its own config (hours,
# limits, allowIncompleteCost, instances), so the topology policies leave them out, as they leave out
# the resource policies' rules (`resource_checks.OWNED_RULES`): each problem is reported once. An unknown
# price stays `price-unknown`'s (and an option AWS does not sell `purchase-not-sold`'s), warnings of
# planner-topology-warnings: the budget's verdict on it is `budget-incomplete-cost`
BUDGET_RULES = (BUDGET_RULE, "budget-incomplete-cost", "budget-unbounded-compute")
LEFT_TO_OTHERS = resource_checks.OWNED_RULES + BUDGET_RULES


def validate_topology(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Error findings of the rebuilt cluster, and input problems that keep it from being planned."""
    declared = declared_cluster()
    outcome = plan_resources(args.resources, args.get_config(), declared=declared)
    found = (
        unknown_keys(TOPOLOGY, args.get_config(), TOPOLOGY_CONFIG)
        + outcome.config_problems
        + outcome.problems
        + findings_as_violations(outcome, ("error",), exclude=LEFT_TO_OTHERS)
    )
    _report(found, report_violation)
    if not found:
        _not_applicable(args, suppressed_on_resources(outcome, ("error",), LEFT_TO_OTHERS))


def validate_topology_warnings(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Warning and info findings, and what the pack had to assume or could not see (nothing is silently skipped)."""
    declared = declared_cluster()
    outcome = plan_resources(args.resources, args.get_config(), declared=declared)
    # once planned, the gaps are `readback-gap` findings; without a plan they are reported as they are
    gaps = [Violation(f"[planner] {g.message}", g.urn) for g in outcome.gaps] if outcome.plan is None else []
    found = (
        unknown_keys(TOPOLOGY_WARNINGS, args.get_config(), TOPOLOGY_CONFIG)
        + outcome.config_problems
        + gaps
        + findings_as_violations(outcome, ("warning", "info"), exclude=LEFT_TO_OTHERS)
    )
    _report(found, report_violation)
    if not found:
        _not_applicable(args, suppressed_on_resources(outcome, ("warning", "info"), LEFT_TO_OTHERS))


def _not_applicable(args: StackValidationArgs | ResourceValidationArgs, suppressed: list[str]) -> None:
    """A policy that reports nothing because its findings are suppressed on their resources says so, with
    each reason: CrossGuard's `not_applicable` (the engine records the policy as not applicable to the
    stack or resource, with this text), the pack's way to show a suppression, which violations cannot."""
    if suppressed:
        args.not_applicable("suppressed: " + "; ".join(suppressed))


def validate_budget(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Price the rebuilt cluster for `hours` and hold it to `maxTotalUsd` / `maxMonthlyUsd`.

    Without limits in the policy config, the stack's own `planner:cluster.budget` is used, with its
    `allow_incomplete`; with them, `allowIncompleteCost` takes its place. Without `hours`, the
    stack's `schedule.hours`, else its workload's hours (as `planner plan`), else, under the pack's
    limits, one billing month (730 h); under the stack's, no hours: a total then cannot be checked,
    as `planner plan` says. The verdict is `planner plan`'s on the same stack and budget
    (`BUDGET_RULES`): over the limit, or an estimate that cannot be checked against it (a price
    unknown, compute or EBS volumes left out) unless an incomplete estimate is allowed.

    The stack policies' shared planning (the stack's own keys, the shipped price book) is the
    budget's when the policy config adds nothing to it; otherwise that planned stack is priced
    again for the config's hours, limits and book, and only the verdict rules run on it
    (`reprice`): the read-back and the other rules' findings do not change with the price.
    """
    config = args.get_config()
    unread = _unread_keys(config)
    if unread:  # a key the pack does not read would change nothing, silently: the budget is mandatory
        _report(unread, report_violation)
        return
    declared = declared_cluster()
    pack_limits = {k: config[c] for k, c in PACK_BUDGET_KEYS.items() if config.get(c) is not None}
    declared_budget = dig(declared, "budget") if declared else None
    if not pack_limits and not (
        isinstance(declared_budget, Mapping) and any(declared_budget.get(k) is not None for k in PACK_BUDGET_KEYS)
    ):
        return
    try:
        book = load_price_book(config.get("priceBook")) if config.get("priceBook") else None
    except InputError as exc:
        _report([Violation(f"policy config `priceBook`: {p.message}") for p in exc.problems], report_violation)
        return
    outcome = plan_resources(args.resources, config, declared=declared)  # the stack policies' shared planning
    _report(outcome.config_problems, report_violation)  # `suppress` entries of its config that cannot be used
    plan = outcome.plan
    stack_budget = plan.stack.cluster.budget if plan is not None else None
    allowed = (
        bool(config.get("allowIncompleteCost")) if pack_limits else bool(stack_budget and stack_budget.allow_incomplete)
    )
    # compute the estimate cannot count (or price) is sized from the config; HyperPod groups that have no
    # price are left out when an incomplete estimate is allowed, as `planner plan` leaves them out
    unsized = (
        [u for u in plan.stack.cluster.unplanned if u.reason == "unsized" or (u.reason == "unpriced" and not allowed)]
        if plan is not None
        else []
    )
    if plan is not None and unsized:
        # "nothing priced" is no pass: compute that cannot be sized fails the budget unless the user sizes it
        groups, sized, problems = _size_unsized(unsized, config, outcome.rebuilt.data)
        if problems:
            _report([Violation(m, outcome.rebuilt.urn_of(u.path)) for m, u in problems], report_violation)
            return
        plan = _planned_sized(args, config, declared, pack_limits, groups, sized, book).plan
    elif plan is not None and (pack_limits or config.get("hours") or book is not None):
        plan = reprice(
            plan,
            BUDGET_RULES,
            PlanOptions(price_book=book, suppress=outcome.suppress),
            schedule=_schedule(plan, config, bool(pack_limits)),
            budget=Budget(
                pack_limits.get("total_usd"), pack_limits.get("monthly_usd"), CLUSTER_PATH + ("budget",), allowed
            )
            if pack_limits
            else stack_budget,
        )
    if plan is None or plan.cost is None:
        # a cluster that could not be read back cannot be shown to be within budget
        unseen = (
            [Violation(f"cannot price the cluster: {g.message}", g.urn) for g in outcome.gaps]
            if outcome.rebuilt.data is None
            else []
        )
        # its own verdict, with the reason: planner-topology reports the same problems as they are
        unplannable = [
            Violation(f"cannot show the stack is within budget: {p.message}", p.urn) for p in outcome.problems
        ]
        _report(unplannable + unseen, report_violation)
        return
    from_pack = {"budget"} if pack_limits else set()
    if config.get("hours") or (pack_limits and plan.stack.cluster.schedule is None):
        from_pack.add("schedule")
    doc = document(with_pack_terms(plan, from_pack))  # its fixes name the pack's config keys it took
    (stack,) = doc.stacks
    priced = stack.cost
    if priced is None:  # not reached: the plan has a cost (above); the document types it as optional
        return
    estimate = headline(priced) + (
        f"; at the maximum: {headline(priced.maximum_estimate)}" if priced.maximum_estimate else ""
    )
    _report(
        [
            Violation(f"{_said(f, doc, bool(pack_limits))} Estimate: {estimate}", f.resource)
            for f in (f for s in doc.stacks for f in s.findings)
            if f.rule in BUDGET_RULES and not f.suppressed
        ],
        report_violation,
    )


def _unread_keys(config: Mapping[str, Any]) -> list[Violation]:
    """Policy config keys `planner-budget` would not read, each named with what to set instead: keys it
    does not take, and `allowIncompleteCost` without the limits it applies to.

    The engine checks the config against the schema it builds from `PolicyConfigSchema` (type, properties,
    required: no `additionalProperties`), so other keys reach the policy, and a misspelt or retired key
    would change nothing without a word: for a mandatory budget, a limit or a strictness the user
    believes is set and is not. The engine also fills in each property's schema `default`, so
    `allowIncompleteCost: false` arrives unasked and only `true` without limits is refused."""
    out = []
    if config.get("allowIncompleteCost") is True and not any(
        config.get(c) is not None for c in PACK_BUDGET_KEYS.values()
    ):
        out.append(
            Violation(
                "policy config `allowIncompleteCost` applies to this policy's `maxTotalUsd` / `maxMonthlyUsd`, and "
                "neither is set; a stack's own budget is checked against the priced part with "
                "`budget.allow_incomplete: true` in its planner:cluster config"
            )
        )
    out += [
        Violation(f"policy config `{key}` is no longer read: {RETIRED_KEYS[key]}")
        for key in sorted(config)
        if key in RETIRED_KEYS
    ]
    return out + unknown_keys(BUDGET, {k: v for k, v in config.items() if k not in RETIRED_KEYS}, BUDGET_CONFIG)


def _no_hours(plan: StackPlan) -> bool:
    """The stack gives no hours (no schedule.hours, no workload): the pack's limits price one billing month."""
    return plan.cost is not None and plan.cost.run_hours is None


def _schedule(plan: StackPlan, config: Mapping[str, Any], pack_limits: bool) -> Schedule | None:
    """The schedule the budget prices: the config's `hours`, else the stack's own (its schedule, or none
    when its workload gives the hours), else one billing month under the pack's limits (under the stack's,
    none: its total cannot be checked, as `planner plan` says)."""
    if config.get("hours"):
        return Schedule(float(config["hours"]), CLUSTER_PATH + ("schedule",))
    if not _no_hours(plan) or not pack_limits:
        return plan.stack.cluster.schedule
    return Schedule(float(HOURS_PER_MONTH), CLUSTER_PATH + ("schedule",))


def _planned_sized(
    args: StackValidationArgs,
    config: Mapping[str, Any],
    declared: Mapping[str, Any] | None,
    pack_limits: Mapping[str, Any],
    groups: list[dict[str, Any]],
    sized: Mapping[str, Unplanned],
    book: PriceBook | None,
) -> Outcome:
    """The cluster with its unsized compute sized from the config (`_size_unsized`) planned once more.

    This is a different cluster from the one the stack policies share: node groups are added, so
    the read-back's model is parsed again and every rule that reads the groups would judge it
    differently; re-pricing the shared plan cannot replace it. Only a budget whose stack has
    compute without a count, and whose config sizes it, plans this second time.

    The compute it sizes is priced by its node group, no longer unplanned: `budget-unbounded-compute`
    (a budget allowing an incomplete estimate, compute without a maximum) has nothing left to report
    on this plan, and `budget-incomplete-cost` names only what is still missing (root volumes of
    unknown size, prices not in the book). Compute the config cannot size fails the budget before
    this (`_size_unsized`'s messages), as those two rules fail it in `planner plan`.
    """
    budget = (
        dict(pack_limits, allow_incomplete=bool(config.get("allowIncompleteCost")))
        if pack_limits
        else declared_planning(declared).get("budget")
    )
    return plan_resources(
        args.resources,
        config,
        # `hours` is set: `_size_unsized` sizes nothing without it
        extra={"schedule": {"hours": config["hours"]}, "budget": budget, "node_groups": groups},
        declared=declared,
        price_book=book,
        sized=sized,
    )


PACK_BUDGET_KEYS = {
    "total_usd": "maxTotalUsd",
    "monthly_usd": "maxMonthlyUsd",
}  # stack budget key -> the pack's config key


def _said(f: ReportedFinding, doc: Report, pack_limits: bool) -> str:
    """A budget finding as a violation; when the limit is the pack's, the message names the policy
    config key the user set (the finding's key path `...budget.total_usd` is `maxTotalUsd`); its fix
    already does (`PackLocator`)."""
    pack_key = PACK_BUDGET_KEYS.get(f.path.rpartition(".")[2]) if pack_limits and f.path else None
    message = f.message if pack_key is None else f"{f.message}; the limit is {BUDGET}'s `{pack_key}`"
    return describe(f, doc.rule(f.rule), message)


def _size_unsized(
    unsized: list[Unplanned], config: Mapping[str, Any], data: Mapping[str, Any] | None
) -> tuple[list[dict[str, Any]], dict[str, Unplanned], list[tuple[str, Any]]]:
    """The read-back's node groups plus one per unsized compute resource, `instances` of its first
    catalogue type, when the policy config sets both `hours` and `instances` (with the compute each
    added group prices); else why not."""
    from planner.core.catalogue import instance_types as _catalogue

    cat = _catalogue.load()
    count, hours = config.get("instances"), config.get("hours")
    groups = list((data or {}).get("node_groups") or [])
    problems: list[tuple[str, Any]] = []
    sized: dict[str, Unplanned] = {}
    for k, u in enumerate(unsized):
        types = ", ".join(u.instance_types) or "instance types it chooses itself"
        listed = [t.removeprefix("ml.") for t in u.instance_types if cat.lists(t.removeprefix("ml."))]
        if not (isinstance(count, int) and count > 0 and hours):
            problems.append(
                (
                    f"cannot show the stack is within budget: {u.resource} may launch {types} ({u.range}) and "
                    "how many cannot be read from the program; set `hours` and `instances` in this policy's "
                    "config to price it",
                    u,
                )
            )
        elif u.reason == "unpriced":  # SageMaker HyperPod: never the EC2 price in its place
            problems.append(
                (
                    f"cannot show the stack is within budget: {u.resource} runs {', '.join(u.instance_types)} "
                    "and planner has no SageMaker HyperPod price for it",
                    u,
                )
            )
        elif not listed:
            problems.append((f"cannot price {u.resource}: none of its instance types ({types}) is one AWS lists", u))
        else:
            name = f"unsized-{k + 1}"
            groups.append({"name": name, "instance_type": listed[0], "count": count, "efa": False})
            sized[name] = u
    return groups, sized, problems


def _graph_policy(
    policy: str, rule: str, found_in: Callable[[Graph], list[Any]]
) -> Callable[[StackValidationArgs, ReportViolation], None]:
    """A stack policy that judges resources together (a security group and what uses it): `found_in`'s
    violations under `rule`, each suppressible on the resource at fault (its tag, or the policy's config)."""

    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        unknown = unknown_keys(policy, args.get_config(), SUPPRESS_CONFIG)
        if rule in _suppressed(args.get_config()):
            _report(unknown, report_violation)
            return
        graph = Graph(from_policy(r) for r in args.resources)
        scoped, unusable = config_suppressions(args.get_config(), graph.resources)
        found = unknown + unusable
        quiet = []
        for v in found_in(graph):
            at = graph.by_urn.get(v.urn or "")
            reasons = {s.rule: s.reason for s in scoped if s.resource == v.urn}
            if at is not None:
                reasons = {**resource_suppressions({}, at.urn, at.name, at.props)[0], **reasons}
            if rule in reasons:  # suppressed on the resource, with its reason
                quiet.append(f"[{rule}] on {resource_label(v.urn or '')}: {reasons[rule]}")
                continue
            found += [Violation(m, v.urn) for _, m in resource_checks.reported(rule, [v.message])]
        _report(found, report_violation)
        if not found:
            _not_applicable(args, quiet)

    return validate


validate_efa_security_groups = _graph_policy(EFA_SECURITY_GROUP, EFA_SECURITY_GROUP_RULE, security_groups.violations)
validate_lustre_security_groups = _graph_policy(
    LUSTRE_SECURITY_GROUP, LUSTRE_SECURITY_GROUP_RULE, security_groups.lustre_violations
)


# --- resource policies ---------------------------------------------------------------------


def _suppressed(config: Mapping[str, Any]) -> set[str]:
    """Rule ids a resource policy does not report: the stack's `planner:cluster` suppressions and its own `suppress`."""
    own = config.get("suppress") or ()
    return set(declared_suppressions(declared_cluster())) | {r for r in own if isinstance(r, str)}


def _resource_validation(
    name: str,
    check: Callable[[str, Mapping[str, Any]], list[tuple[str, str]]],
) -> Callable[[ResourceValidationArgs, ReportViolation], None]:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        found = check(args.resource_type, plain(args.props))
        if not found:
            return
        # a key the policy does not take is said beside what it found (a misspelt `suppress` is why
        # it is reported), not once for every resource of the stack
        # this resource's own suppressions (its tags, the policy config's entries naming it), with reasons
        scoped, unusable = resource_suppressions(args.get_config(), args.urn, args.name, plain(args.props))
        for v in unknown_keys(name, args.get_config(), SUPPRESS_CONFIG) + unusable:
            report_violation(v.message, args.urn)
        suppressed = _suppressed(args.get_config())
        reported, quiet = bool(unusable), []
        for rule, message in found:
            if rule in scoped:
                quiet.append(f"[{rule}] on {resource_label(args.urn)}: {scoped[rule]}")
            elif rule not in suppressed:
                report_violation(message, args.urn)
                reported = True
        if not reported:
            _not_applicable(args, quiet)

    validate.__doc__ = check.__doc__
    validate.__name__ = f"validate_{check.__name__}"
    return validate


TOPOLOGY_CONFIG = {**_LOCATION_SCHEMA, "suppress": _suppress_schema()}  # both topology policies' config
SUPPRESS_CONFIG = {"suppress": _suppress_schema()}  # planner-efa-security-group's and the resource policies'
_TOPOLOGY_SCHEMA = PolicyConfigSchema(TOPOLOGY_CONFIG)

topology = StackValidationPolicy(
    name=TOPOLOGY,
    description="The cluster read back from the stack's EC2, Auto Scaling and FSx resources passes planner's rules (error findings).",
    validate=validate_topology,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=_TOPOLOGY_SCHEMA,
    remediation_steps="Run `planner plan` on the equivalent stack config, or fix the resource named in the violation.",
)

topology_warnings = StackValidationPolicy(
    name=TOPOLOGY_WARNINGS,
    description="The cluster read back from the stack's resources: planner's warning and info findings, and what the pack could not see.",
    validate=validate_topology_warnings,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=_TOPOLOGY_SCHEMA,
)

budget = StackValidationPolicy(
    name=BUDGET,
    description="The cluster read back from the stack's resources, priced with planner's price book, stays within budget.",
    validate=validate_budget,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(BUDGET_CONFIG),
)

efa_security_group = StackValidationPolicy(
    name=EFA_SECURITY_GROUP,
    description="Security groups of EFA interfaces allow all traffic in from and out to themselves.",
    validate=validate_efa_security_groups,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=resource_rules.EFA_SECURITY_DOC,
    config_schema=PolicyConfigSchema(SUPPRESS_CONFIG),
)

lustre_security_group = StackValidationPolicy(
    name=LUSTRE_SECURITY_GROUP,
    description="The security groups of an FSx for Lustre file system let in TCP 988 and 1018-1023.",
    validate=validate_lustre_security_groups,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=resource_rules.LUSTRE_PORTS_DOC,
    config_schema=PolicyConfigSchema(SUPPRESS_CONFIG),
)


def _resource_policy(
    name: str,
    description: str,
    check: Callable[[str, Mapping[str, Any]], list[tuple[str, str]]],
    url: str | None = None,
    enforcement_level: EnforcementLevel = EnforcementLevel.MANDATORY,
) -> ResourceValidationPolicy:
    return ResourceValidationPolicy(
        name=name,
        description=description,
        validate=_resource_validation(name, check),
        enforcement_level=enforcement_level,
        url=url,
        config_schema=PolicyConfigSchema(SUPPRESS_CONFIG),
    )


efa_interfaces = _resource_policy(
    EFA_INTERFACES,
    "Launch templates with network interfaces set security groups per interface (the EFA layout is "
    "planner-topology's efa-interface-layout).",
    resource_checks.efa_interfaces,
    resource_checks.EFA_DOC,
)
imdsv2 = (
    _resource_policy(  # advisory: a warning rule, planner's policy after Security Hub EC2.8, not an AWS requirement
        IMDSV2,
        "planner's policy, following AWS Security Hub control EC2.8: launch templates and instances require IMDSv2 "
        "(metadataOptions.httpTokens = required); AWS does not.",
        resource_checks.imdsv2,
        resource_rules.SECURITY_HUB_EC2_8,
        EnforcementLevel.ADVISORY,
    )
)
public_ip = _resource_policy(
    PUBLIC_IP,
    "No public IP at launch in a request with more than one network interface (EFA on a multi-card type).",
    resource_checks.public_ip,
)
lustre_values = _resource_policy(
    LUSTRE_VALUES,
    "FSx for Lustre capacity, per-unit throughput and EFA are valid for the deployment type (Intelligent-Tiering: its "
    "throughput capacity and SSD read cache; Metadata IOPS).",
    resource_checks.lustre_values,
)

POLICIES = [
    topology,
    topology_warnings,
    budget,
    efa_security_group,
    lustre_security_group,
    efa_interfaces,
    imdsv2,
    public_ip,
    lustre_values,
]
