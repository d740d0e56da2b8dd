"""Plan before build: every component runs `plan_stack` (the CLI's pipeline) first.

The plan becomes the one output document (`planner.core.document`, command `components`),
and what the component says is rendered from it. Errors stop the program with the findings as the message, raised before the component
registers anything, so `pulumi preview` fails before a single resource is planned for
creation; warnings go to `pulumi.log.warn`. Input problems (what the CLI exits 2 for)
raise `ClusterInputError`, which carries the same `Problem`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi

from planner.components.errors import ClusterInputError as ClusterInputError  # raised here, caught by its callers
from planner.core.document import codec
from planner.core.document.report import Report
from planner.core.document.stacks import ReportedFinding, StackReport
from planner.core.input.stack_files import parse_cluster, parse_storage
from planner.core.model.cluster import Stack
from planner.core.planning.build_report import report as build_report
from planner.core.planning.pipeline import plan_stack
from planner.core.reading.problems import InputError, Problem
from planner.core.reading.yaml_lines import Lines
from planner.runtime import declared_clusters as registry


class ClusterRejected(pulumi.RunError):
    """The planner found errors in the declared cluster; nothing was created.

    `report` is the one output document of the component's planning (`planner.core.document`);
    `findings` its unsuppressed errors, which the message lists."""

    def __init__(self, label: str, errors: Sequence[ReportedFinding], report: Report | None = None):
        self.findings = list(errors)
        self.report = report
        lines = [f"{label}: planner found {len(errors)} error(s), nothing was deployed:"]
        lines += [f"  {f.where}: error [{f.rule}] {f.message}" for f in errors]
        super().__init__("\n".join(lines))


def stack_from_config(
    name: str, mapping: Any, region: str, file: str, lustre_only: bool = False, lines: Lines | None = None
) -> Stack:
    """Parse a `planner:cluster` mapping into a Stack, or raise ClusterInputError.

    `lustre_only` plans a file system used without a cluster (`availability_zone` and `lustre`
    only): a cluster of no node groups, read and checked as a cluster's file system.
    """
    try:
        cluster = parse_storage(mapping, region, file) if lustre_only else parse_cluster(mapping, region, file, lines)
    except InputError as exc:
        raise ClusterInputError(exc.problems) from None
    return Stack(name, file, region, cluster, lines or {})


def stack_region(region: str | None, file: str) -> str:
    """The region a component plans for: its argument, else the stack's `aws:region`."""
    found = region or pulumi.Config("aws").get("region")
    if not found:
        raise ClusterInputError(
            [Problem(file, None, "aws:region", "missing: set `aws:region` in the stack config or pass region=")]
        )
    from planner.components.args import region_problems

    problems = region_problems(found, file, "region" if region else "aws:region")
    if problems:
        raise ClusterInputError(problems)
    return found


def plan_or_stop(label: str, stack: Stack) -> StackReport:
    """Plan `stack`; record it; log warnings; raise ClusterRejected on unsuppressed errors.

    Returns the stack as the document reports it (`planner.core.document.StackReport`): what the
    component's `findings` and `cost` outputs serialise, in the shape `planner plan --format json`
    gives them. Under `registry.collecting()` (planner plan --program) nothing is logged or
    raised: the caller reports the findings itself.
    """
    try:
        plan = plan_stack(stack)
    except InputError as exc:  # e.g. a suppression naming no rule
        raise ClusterInputError(exc.problems) from None
    registry.record(stack)
    doc = build_report("components", [plan])  # the one document: outputs, logs and the error are rendered from it
    (planned,) = doc.stacks
    if registry.is_collecting():
        return planned
    for f in planned.findings:
        if f.suppressed:
            continue
        if f.severity == "warning":
            pulumi.log.warn(f"{label}: [{f.rule}] {f.message}")
        elif f.severity == "info":
            pulumi.log.info(f"{label}: [{f.rule}] {f.message}")
    errors = rejected(planned)
    if errors:
        raise ClusterRejected(label, errors, doc)
    return planned


def rejected(stack: StackReport) -> list[ReportedFinding]:
    """The unsuppressed errors of a planned stack: what stops the component."""
    return [f for f in stack.findings if f.severity == "error" and not f.suppressed]


def findings_json(stack: StackReport) -> list[dict[str, Any]]:
    """The findings as `planner plan --format json` has them (`stacks[].findings[]`, docs/output.md)."""
    return [codec.dump_record(f) for f in stack.findings]


def cost_json(stack: StackReport) -> Any:
    """The cost estimate as `planner plan --format json` has it (`stacks[].cost`); None without one."""
    return None if stack.cost is None else codec.dump_record(stack.cost)
