"""Human output: what was declared, what is wrong, what it costs, one block per stack."""

from __future__ import annotations

from typing import Iterable, Sequence

from planner.pipeline import StackPlan
from planner.report.digest import grid

__all__ = ["grid", "num", "render"]  # grid lives in digest (shared with cost_report); importers of table.grid keep working


def num(x: float | int | None, digits: int = 1) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, int) or float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


def render_summary(p: StackPlan) -> list[str]:
    s = p.summary
    out = [f"Stack {p.stack.name} ({p.stack.file}, {p.stack.region})"]
    rows = [
        (g["name"], g["instance_type"], g["purchase"], num(g["instances"]), num(g["ultraservers"]) if g["ultraservers"] else "-",
         num(g["accelerators"]), g["availability_zone"], "yes" if g["efa"] else "no")
        for g in s["node_groups"]
    ]
    out += ["  " + line for line in grid(
        ("node group", "type", "purchase", "instances", "ultraservers", "accelerators", "az", "efa"), rows, right=(3, 4, 5))]
    pk = s["peak_pflops"]
    out.append(
        f"  total: {num(s['instances'])} instances, {num(s['ultraservers'])} UltraServers, {num(s['accelerators'])} accelerators, "
        f"{num(s['accelerator_memory_gib'])} GiB accelerator memory, {num(s['efa_bandwidth_gbps'])} Gbps EFA"
    )
    out.append(
        f"  peak PFLOPS: BF16 dense {num(pk['bf16_dense'])}, FP8 dense {num(pk['fp8_dense'])}, FP8 sparse {num(pk['fp8_sparse'])}"
    )
    lustre = s["lustre"]
    extra = f"placement group: {s['placement_group']}"
    if lustre:
        tput = lustre["per_unit_storage_throughput"]
        extra += f"; FSx for Lustre {lustre['deployment_type']} {num(lustre['storage_capacity_gib'])} GiB" + (
            f" at {tput} MB/s/TiB" if tput else "") + f" in {lustre['availability_zone']}"
    else:
        extra += "; no FSx for Lustre"
    out.append("  " + extra)
    return out


def render_findings(p: StackPlan) -> list[str]:
    """Each finding with its place; the fix under unsuppressed ones, the reason under suppressed ones."""
    from planner.registry import lookup
    from planner.report.digest import suppression, where

    if not p.findings:
        return ["  findings: none"]
    out = ["  findings:"]
    for f in p.findings:
        sup = suppression(p, f)
        mark = " (suppressed)" if sup else ""
        out.append(f"    {f.severity.upper():7} {f.rule}{mark}: {f.message} [{where(f)}]")
        r = lookup(f.rule)
        if sup:
            out.append(f"            reason: {sup[1]}")
        elif r is not None:
            out.append(f"            fix: {r.remediation}")
    return out


def render_cost(p: StackPlan) -> list[str]:
    if p.cost is None:
        return []
    from planner.report.cost_report import table_lines

    return ["  " + line for line in table_lines(p.cost.to_json())]


def render(plans: Sequence[StackPlan]) -> str:
    from planner.report.digest import count_text, counts

    from planner.report.text import join_lines

    out: list[str] = []
    for p in plans:
        out += render_summary(p) + render_cost(p) + render_findings(p) + [""]
    total = counts(f for p in plans for f in p.findings)
    out.append(f"{len(plans)} stack{'s' if len(plans) != 1 else ''}: {count_text(total)}")
    return join_lines(out) + "\n"
