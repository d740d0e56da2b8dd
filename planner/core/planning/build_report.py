"""From planned stacks to the document: everything a renderer shows, resolved here.

The producer side of `planner.core.document`: it may ask the catalogue (the topology the
diagram draws), the registry (rule metadata, copied into `Report.rules`) and the stack file
(the parts a finding's line belongs to), so that no renderer has to. Findings arrive already
located (`planner.core.input.locations`: the stack file's line, or a program's file, line and URN).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from planner.core.document.report import Command, InputProblem, Report, RuleInfo
from planner.core.document.run_time_section import RunTimeReport
from planner.core.document.stacks import (
    EXTERNAL,
    GroupTopology,
    LustreTopology,
    ReportedEdit,
    ReportedFinding,
    ReportedFix,
    StackReport,
    Suppression,
    Topology,
    UltraServerUnit,
    UnusedSuppressionReport,
)

if TYPE_CHECKING:
    from planner.core.catalogue.instance_types import Catalogue
    from planner.core.model.cluster import Stack
    from planner.core.model.findings import Edit, Finding, Fix
    from planner.core.planning.pipeline import StackPlan, UnusedSuppression
    from planner.core.reading.problems import Problem


def report(command: Command, plans: Iterable[StackPlan]) -> Report:
    """The document of `plan` or `preflight`: one StackReport per plan, in order, and the rules."""
    stacks = tuple(stack_report(p) for p in plans)
    return Report(command, stacks=stacks, rules=rules_for(f.rule for s in stacks for f in s.findings))


def problems_report(command: Command, problems: Sequence[Problem]) -> Report:
    """The document of a run stopped by unusable input: its problems, shown in every format."""
    return Report(
        command, problems=tuple(InputProblem(p.file, p.line, p.key, p.message) for p in problems), rules=rules_for(())
    )


def rules_for(named: Iterable[str]) -> tuple[RuleInfo, ...]:
    """Every spec rule, by id, then the other checks (preflight) that `named` findings name, by id."""
    from planner.core import rules

    spec = rules.registry()
    others = {i for i in named if i not in spec}
    known = rules.known() if others else {}  # the preflight checks load only when a finding names one
    return tuple(_info(r) for r in [*spec.values(), *(known[i] for i in sorted(others) if i in known)])


_INFOS: dict[int, RuleInfo] = {}  # registered rules live as long as the process: each is copied once


def _info(r: Any) -> RuleInfo:  # planner.core.rules.rule_registry.Rule
    info = _INFOS.get(id(r))
    if info is None or info.id != r.id:
        info = _INFOS[id(r)] = RuleInfo(r.id, r.severity, r.description, r.source, r.remediation, r.category)
    return info


def stack_report(plan: StackPlan) -> StackReport:
    from planner.core.catalogue import instance_types as catalogue

    stack = plan.stack
    # the parts' lines matter only to findings with a line of the stack file
    parts = _part_lines(stack) if any(f.line and f.file == stack.file for f in plan.findings) else []
    return StackReport(
        name=stack.name,
        file=stack.file,
        region=stack.region,
        summary=plan.summary,  # as `planner.core.planning.summary.summarize` rounded it
        topology=topology(stack, catalogue.load()),
        findings=tuple(finding(f, stack, parts) for f in plan.findings),
        cost=None if plan.cost is None else plan.cost.report(),  # the estimate, as it rounds itself
        run_time=run_time(stack) if plan.cost is not None else None,
        unused_suppressions=tuple(unused(u) for u in plan.unused_suppressions),
    )


def run_time(stack: Stack) -> RunTimeReport | None:
    """The workload's predicted run on the declared cluster, when its hours come from a model."""
    w = stack.cluster.workload
    if w is None or not w.predicted:
        return None  # no step to predict: the run-time model is not even imported
    from planner.core.catalogue import instance_types as catalogue
    from planner.core.runtime_model.cluster_run import run_for

    run = run_for(stack.cluster, catalogue.load())
    if run is None or w.model is None:
        return None
    return RunTimeReport(
        model=w.model.name,
        model_source=w.model.source,
        tokens=w.tokens,
        sequence_length=w.sequence_length,
        global_batch_tokens=w.global_batch_tokens,
        precision=w.precision,
        trained_on=run.trained_on(),
        prediction=None if run.estimate is None else run.estimate.report(),
        unfit=run.unfit,
        notes=run.notes,
        schedule_hours=None if stack.cluster.schedule is None else stack.cluster.schedule.hours,
        budget_usd=None if stack.cluster.budget is None else stack.cluster.budget.total_usd,
    )


def finding(f: Finding, stack: Stack, parts: Sequence[set[int]] = ()) -> ReportedFinding:
    sup = None
    if f.suppressed:  # as the pipeline recorded it; a finding suppressed by hand is the command line's
        kind, reason = f.suppression or (EXTERNAL, f"suppressed on the command line (--suppress {f.rule})")
        sup = Suppression(kind, reason)
    on = tuple(i for i, lines in enumerate(parts) if f.line and f.file == stack.file and f.line in lines)
    fix = None if f.fix is None else reported_fix(stack, f.fix)
    return ReportedFinding(f.rule, f.severity, f.message, f.file, f.line, f.key, sup, f.resource, fix, on)


def reported_fix(stack: Stack, fix: Fix) -> ReportedFix:
    """A finding's fix as the document carries it: its edits at the stack's key paths, and its text in the
    terms of where the stack was declared (`planner.core.input.locations.fix_text`)."""
    from planner.core.input.fix_words import REGION_KEY
    from planner.core.input.locations import fix_text
    from planner.core.model.findings import REGION, property_path
    from planner.core.reading.fields import key_path

    def edit(e: Edit) -> ReportedEdit:
        if e.resource:  # a property of one of the program's resources
            return ReportedEdit(property_path(e.path), e.op, e.value, e.note, e.resource)
        if e.path == REGION:  # the stack's region: its stack config key, beside planner:cluster
            return ReportedEdit(REGION_KEY, e.op, e.value, e.note)
        return ReportedEdit(key_path(stack.cluster.path + tuple(e.path)), e.op, e.value, e.note)

    return ReportedFix(
        fix_text(stack, fix),
        fix.reason,
        tuple(edit(e) for e in fix.edits),
        tuple(edit(e) for e in fix.alternatives),
        fix.outside,
    )


def unused(u: UnusedSuppression) -> UnusedSuppressionReport:
    return UnusedSuppressionReport(u.rule, u.reason, u.kind, u.file, u.line, u.key)


def _part_lines(stack: Stack) -> list[set[int]]:
    """For each node group and the Lustre file system: the lines of the stack file it spans (its keys)."""
    c = stack.cluster
    parts = list(c.node_groups) + ([c.lustre] if c.lustre is not None else [])
    out = []
    for part in parts:
        lines = {stack.line(part.path)} | {stack.line(part.path + (name,)) for name in part.__struct_fields__}
        out.append({n for n in lines if n})
    return out


def topology(stack: Stack, cat: Catalogue) -> Topology:
    """What the Markdown diagram draws, with the catalogue's figures it needs."""
    c = stack.cluster
    groups = []
    for g in c.node_groups:
        t = cat.spec(g.instance_type)
        u = cat.ultraserver_of(g)
        groups.append(
            GroupTopology(
                g.name,
                g.instance_type,
                g.purchase,
                g.count,
                g.availability_zone,
                g.efa,
                t.efa_supported,
                g.count * t.accelerator_count,
                t.accelerator_name,
                None if u is None else UltraServerUnit(u.name, u.members, u.accelerators, u.interconnect),
            )
        )
    fs = c.lustre
    lustre = (
        None
        if fs is None
        else LustreTopology(
            fs.deployment_type,
            fs.storage_capacity_gib,
            fs.per_unit_storage_throughput,
            fs.efa_enabled,
            fs.availability_zone,
            fs.s3_import_path,
            *fs.tiering_shown,
        )
    )
    return Topology(c.placement, tuple(groups), lustre)
