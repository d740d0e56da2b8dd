"""Human output: per stack what was declared, what it costs, what is wrong (most important
first, with what to do), then one summary line; fitted to the terminal (`planner.core.text.terminal`)."""

from __future__ import annotations

from planner.core.document import RenderContext, Report, Severity, StackReport
from planner.core.text.numbers import num
from planner.core.text.terminal import Line, Span, grid, human, indent

SEVERITY_STYLE = {"error": "error", "warning": "warning", "info": "info"}


def render_summary(p: StackReport) -> list[Line]:
    s = p.summary
    out: list[Line] = [[Span(f"Stack {p.name}", "heading"), Span(f" ({p.file}, {p.region})")]]
    rows: list[tuple[str, ...]] = [
        (
            g.name,
            g.instance_type,
            g.purchase,
            num(g.instances),
            num(g.ultraservers) if g.ultraservers else "-",
            num(g.accelerators),
            g.availability_zone,
            "yes" if g.efa else "no",
        )
        for g in s.node_groups
    ]
    headers: tuple[str, ...]
    right: tuple[int, ...]
    headers, right = (
        ("node group", "type", "purchase", "instances", "UltraServers", "accelerators", "AZ", "EFA"),
        (3, 4, 5),
    )
    if not s.ultraservers:  # no UltraServer in the stack: the column would only hold dashes
        headers, right = headers[:4] + headers[5:], (3, 4)
        rows = [r[:4] + r[5:] for r in rows]
    out += indent("  ", grid(headers, rows, right=right, width=_inner(2)))
    pk = s.peak_pflops
    us = f", {num(s.ultraservers)} UltraServer{'' if s.ultraservers == 1 else 's'}" if s.ultraservers else ""
    out.append(
        f"  total: {num(s.instances)} instances{us}, {num(s.accelerators)} accelerators, "
        f"{num(s.accelerator_memory_gib)} GiB accelerator memory, {num(s.efa_bandwidth_gbps)} Gbps EFA"
    )
    out.append(
        f"  peak PFLOPS: BF16 dense {num(pk.bf16_dense)}, FP8 dense {num(pk.fp8_dense)}, FP8 sparse {num(pk.fp8_sparse)}"
    )
    lustre = s.lustre
    extra = f"placement group: {s.placement_group}"
    if lustre:
        from planner.core.render.digest import read_cache_words

        tput = lustre.per_unit_storage_throughput
        cache = read_cache_words(lustre.read_cache_sizing_mode, lustre.read_cache_size_gib)
        size = (
            f"Intelligent-Tiering at {num(lustre.throughput_capacity_mbps or 0)} MBps"
            + (f" ({cache})" if cache else "")
            if lustre.storage_capacity_gib is None
            else f"{num(lustre.storage_capacity_gib)} GiB"
        )
        extra += (
            f"; FSx for Lustre {lustre.deployment_type} {size}"
            + (f" at {tput} MB/s/TiB" if tput else "")
            + f" in {lustre.availability_zone or 'an AZ the program does not name'}"
        )
    else:
        extra += "; no FSx for Lustre"
    out.append("  " + extra)
    return out


def _inner(margin: int) -> int | None:
    from planner.core.text.terminal import term

    limit = term().limit
    return None if limit is None else limit - margin


def render_findings(p: StackReport, report: Report) -> list[Line]:
    """Findings most important first (`digest.for_people`): severity and rule, where, the
    message, then the fix (or, for a suppressed one, why it is suppressed)."""
    from planner.core.render.digest import count_text, counts
    from planner.core.render.findings_for_people import for_people

    if not p.findings:
        return ["  findings: none"]
    shown = for_people(p, report)
    out: list[Line] = [f"  findings: {count_text(counts(p.findings), short=True)}"]
    hidden = len(p.findings) - sum(item.count for item in shown)
    if hidden:
        out.append(f"    ({hidden} price-unknown not shown: an error below rules out the part it prices)")
    for item in shown:
        f = item.finding
        suppressed = item.suppressed_reason is not None
        label = "baselined" if f.baselined else "suppressed" if suppressed else f.severity
        style = "dim" if suppressed else SEVERITY_STYLE[f.severity]
        out.append([Span("    "), Span(f"{label:<8}", style), Span(f" {f.rule}  "), Span(item.where, "dim")])
        out.append(f"      {item.message}")
        if suppressed:
            out.append(f"      reason: {item.suppressed_reason}")
        elif item.fix:
            out.append(f"      fix: {item.fix}")
    return out


def render_unused(p: StackReport) -> list[Line]:
    """Two lines per suppression that suppressed nothing (info): what and where, then what to do."""
    from planner.core.text.safe import one_line

    out: list[Line] = []
    for u in p.unused_suppressions:
        out.append(
            [
                Span("    "),
                Span(f"{'info':<8}", "info"),
                Span(f" unused suppression: {one_line(u.rule)}  "),
                Span(one_line(u.where), "dim"),
            ]
        )
        out.append(f"      {one_line(u.message)}")
    return out


def render_fixed(p: StackReport) -> list[Line]:
    """One line per baseline entry that matches no finding any more (`--baseline`): fixed."""
    from planner.core.text.safe import one_line

    return [
        [Span("    "), Span(f"{'fixed':<8}", "ok"), Span(f" {one_line(b.rule)}  "), Span(one_line(b.where), "dim")]
        for b in p.baseline_fixed
    ]


def render_cost(p: StackReport) -> list[Line]:
    if p.cost is None:
        return []
    from planner.core.render.cost_report import table_lines

    return indent("  ", table_lines(p.cost, margin=2))


def render_run_time(p: StackReport) -> list[Line]:
    if p.run_time is None:
        return []
    from planner.core.render.run_time_report import lines

    head, *rest = lines(p.run_time)
    out: list[Line] = [[Span("  run time: ", "total"), Span(head)]]
    return out + [f"    {x}" for x in rest]


def summary_line(report: Report, fail_on: Severity = "error") -> Line:
    """The last line of the report: stacks, findings, the total cost, and what the exit code will be."""
    from planner.core.render.cost_report import sum_totals
    from planner.core.render.digest import counts

    plans = report.stacks
    total = counts(f for p in plans for f in p.findings)
    code = report.exit_code(fail_on)
    cost = sum_totals([p.cost for p in plans if p.cost is not None])
    meaning = "errors" if fail_on == "error" else "warnings or errors"
    verdict = f"exit {code}" + (f" (unsuppressed {meaning})" if code else f" (no unsuppressed {meaning})")
    n = len(plans)
    found = [
        f"{total['error']} error{'s' if total['error'] != 1 else ''}",
        f"{total['warning']} warning{'s' if total['warning'] != 1 else ''}",
    ]
    found += [f"{total['info']} info"] if total["info"] else []
    found += [f"{total['suppressed']} suppressed"] if total["suppressed"] else []
    found += [f"{total['baselined']} baselined"] if total["baselined"] else []
    fixed = sum(len(p.baseline_fixed) for p in plans)
    found += [f"{fixed} fixed since the baseline"] if fixed else []
    unused = sum(len(p.unused_suppressions) for p in plans)
    found += [f"{unused} unused suppression{'s' if unused != 1 else ''}"] if unused else []
    priced = any(p.cost is not None for p in plans)  # preflight reports have no estimate
    return [
        Span(f"{n} stack{'s' if n != 1 else ''}, ", "total"),
        Span(", ".join(found), "error" if total["error"] else ("warning" if total["warning"] else "ok")),
        Span((f"; cost {cost}" if priced else "") + f"; {verdict}", "total"),
    ]


def render_problems(report: Report) -> list[Line]:
    """Unusable input, one line each as on standard error, then what the exit code is."""
    from planner.core.render.digest import problems_text
    from planner.core.text.safe import one_line

    out: list[Line] = [[Span("Input problems", "heading")]]
    out += [[Span("  "), Span(f"{'error':<8}", "error"), Span(f" {one_line(p.text)}")] for p in report.problems]
    return out + ["", [Span(problems_text(report), "error"), Span("; exit 2 (unusable input)", "total")]]


def render(report: Report, context: RenderContext = RenderContext()) -> str:
    from planner.core.text.terminal import term_for, using

    with using(term_for(context.width, context.colour)):
        if report.problems:
            return human(render_problems(report))
        out: list[Line] = []
        for p in report.stacks:
            out += render_summary(p) + render_cost(p) + render_run_time(p) + render_findings(p, report)
            out += render_unused(p) + render_fixed(p) + [""]
        out.append(summary_line(report, context.fail_on))
        return human(out)
