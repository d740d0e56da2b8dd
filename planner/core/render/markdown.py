"""A pull request comment: verdict, per-stack summary table, findings, cost, and a Mermaid
diagram of the declared topology, so a reviewer sees the cluster the diff describes.

Starts with a hidden marker (`<!-- planner-report -->`) so a workflow can find and update
its own comment instead of adding one per push.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.core.document import GroupTopology, LustreTopology, RenderContext, Report, StackReport
from planner.core.render.bounded import Block
from planner.core.render.digest import count_text, counts, md_cell, read_cache_words
from planner.core.text.numbers import num
from planner.core.text.safe import md_code, md_prose, one_line

MARKER = "<!-- planner-report -->"
ICONS = {"error": ":x:", "warning": ":warning:", "info": ":information_source:"}
MAX_ULTRASERVER_NODES = 4  # UltraServers drawn one by one per group; the rest are summed up


def render(report: Report, context: RenderContext = RenderContext(), limit: int | None = None) -> str:
    """The plan as one pull-request comment, under `limit` characters (GitHub's size limit):
    every stack's overview row and their total first, then the stacks with errors in full, then the
    others in full while they fit; what did not fit is named at the end (`planner.core.render.bounded`)."""
    from planner.core.render.bounded import MAX_CHARS, assemble

    if report.problems:
        return render_problems(report, MAX_CHARS if limit is None else limit)
    plans = list(report.stacks)
    total = counts(f for p in plans for f in p.findings)
    verdict = ":x:" if total["error"] else (":warning:" if total["warning"] else ":white_check_mark:")
    head = [
        MARKER,
        f"## {verdict} planner: {len(plans)} stack{'s' if len(plans) != 1 else ''}, {count_text(total)}",
        "",
    ]
    head += OVERVIEW_HEADER
    failing = [i for i, p in enumerate(plans) if has_errors(p)]
    # every stack's row and the grand total before any stack in full: with many stacks the table is
    # what fits (a row each), and the errors are counted in it and shown below as far as they fit
    blocks = [Block([total_row(plans)], len(plans), kind="total row")] if len(plans) > 1 else []
    blocks += [Block([overview_row(p)], i, kind="overview row") for i, p in enumerate(plans)]
    blocks += [full_block(report, plans[i], 1000 + n) for n, i in enumerate(failing)]
    blocks += [full_block(report, p, 1000 + len(plans) + i) for i, p in enumerate(plans) if i not in failing]
    return assemble(head, blocks, MAX_CHARS if limit is None else limit)


def render_problems(report: Report, limit: int) -> str:
    """Unusable input: the verdict, then one table row per problem (file and line, key, what was
    expected), as many as fit in `limit` characters (the rest counted at the end)."""
    from planner.core.render.bounded import assemble
    from planner.core.render.digest import problems_text

    head = [MARKER, f"## :x: planner: {problems_text(report)}", "", "| where | key | problem |", "|---|---|---|"]
    rows = [
        Block(
            [f"| {md_code(p.where)} | {md_code(p.key) if p.key else '-'} | {md_cell(p.message)} |"],
            i,
            kind="input problem row",
        )
        for i, p in enumerate(report.problems)
    ]
    return assemble(head, rows, limit)


OVERVIEW_HEADER = [
    "| stack | region | instances | accelerators | errors | warnings | suppressed | cost |",
    "|---|---|---:|---:|---:|---:|---:|---|",
]


def has_errors(p: StackReport) -> bool:
    return any(f.severity == "error" and not f.suppressed for f in p.findings)


def overview_row(p: StackReport) -> str:
    from planner.core.render.cost_report import total

    c = counts(p.findings)
    cost = "-" if p.cost is None else total(p.cost)
    return (
        f"| {md_code(p.name)} | {md_cell(p.region)} | {num(p.summary.instances)} | "
        f"{num(p.summary.accelerators)} | {c['error']} | {c['warning']} | {_quiet(c)} | {cost} |"
    )


def _quiet(c: dict[str, int]) -> str:
    """The `suppressed` cell: suppressed findings, and those the baseline records (`2 + 3 baselined`)."""
    return f"{c['suppressed']} + {c['baselined']} baselined" if c["baselined"] else str(c["suppressed"])


def total_row(plans: Sequence[StackReport]) -> str:
    """The overview table's last row: every stack together (a cost of several estimates, a lower
    bound when one is incomplete)."""
    from planner.core.render.cost_report import sum_totals

    c = counts(f for p in plans for f in p.findings)
    costs = [p.cost for p in plans if p.cost is not None]
    return (
        f"| **total** ({len(plans)} stacks) |  | {num(sum(p.summary.instances for p in plans))} | "
        f"{num(sum(p.summary.accelerators for p in plans))} | {c['error']} | {c['warning']} | {_quiet(c)} | "
        f"{sum_totals(costs) if costs else '-'} |"
    )


def full_block(report: Report, p: StackReport, order: float, extra: Sequence[str] = ()) -> Block:
    """A stack in full (with `extra` lines after its summary), falling back to its errors one
    line each, then to one line; a stack without errors falls back to nothing (its row says it)."""
    section = _stack(report, p)
    full = [""] + section[:4] + list(extra) + section[4:]
    what = md_code(p.name)
    if not has_errors(p):
        return Block(full, order, what, fallback=Block([], order))
    errors = [f for f in p.findings if f.severity == "error" and not f.suppressed]
    compact = (
        ["", f"### {md_code(p.name)}", ""]
        + list(extra)
        + [f"- {ICONS['error']} {md_code(f.rule)} at {md_code(f.where)}: {md_cell(f.message)}" for f in errors]
    )
    one = [
        "",
        f"- {ICONS['error']} {md_code(p.name)}: {len(errors)} error{'s' if len(errors) != 1 else ''} "
        "(each left out: too long for one comment)",
    ]
    return Block(full, order, what, fallback=Block(compact, order, fallback=Block(one, order)))


def _stack(report: Report, p: StackReport) -> list[str]:
    s = p.summary
    pk = s.peak_pflops
    out = [
        f"### {md_code(p.name)}",
        "",
        f"{md_code(p.file)}, {md_cell(p.region)}: {num(s.instances)} instances, "
        + (f"{num(s.ultraservers)} UltraServers, " if s.ultraservers else "")  # GPU stacks have none to count
        + f"{num(s.accelerators)} accelerators, {num(s.accelerator_memory_gib)} GiB accelerator memory, "
        f"{num(s.efa_bandwidth_gbps)} Gbps EFA, peak {num(pk.bf16_dense)} PFLOPS BF16 dense.",
        "",
    ]
    out += _findings(report, p)
    out += _unused(p)
    out += _fixed(p)
    out += _cost(p)
    out += _run_time(p)
    out += ["", "<details open><summary>Declared topology</summary>", "", "```mermaid"]
    out += mermaid(p)
    out += ["```", "", "</details>"]
    return out


def _findings(report: Report, p: StackReport) -> list[str]:
    """Findings as people act on them (`digest.for_people`): most important first, one row for
    the same finding in several node groups, no price-unknown where an error rules the part out."""
    if not p.findings:
        return ["No findings."]
    from planner.core.render.findings_for_people import for_people

    out = ["| severity | rule | where | message |", "|---|---|---|---|"]
    shown = for_people(p, report)
    for item in shown:
        f = item.finding
        sev = f"{ICONS[f.severity]} {f.severity}"
        msg = md_cell(item.message)
        if item.suppressed_reason is not None:
            said = "baselined" if f.baselined else "suppressed"
            sev = f"~~{f.severity}~~ {said}"
            msg += f" *({said}: {md_cell(item.suppressed_reason)})*"
        elif f.fix is not None and item.fix is not None:  # names the stack's values: inert like the message
            msg += f"<br>**Fix:** {md_cell(item.fix)}"
        else:
            r = report.rule(f.rule)
            if r is not None:
                msg += f"<br>**Fix:** {md_prose(r.remediation)}"  # from the report: inert, its code spans kept
        out.append(f"| {sev} | {md_code(f.rule)} | {md_code(item.where)} | {msg} |")
    hidden = len(p.findings) - sum(item.count for item in shown)
    if hidden:
        out += ["", f"{hidden} price-unknown finding(s) not shown: an error above rules out the part they price."]
    return out


def _unused(p: StackReport) -> list[str]:
    """One line per suppression that suppressed nothing (info); the rule id and place are inert."""
    if not p.unused_suppressions:
        return []
    return [""] + [
        f"{ICONS['info']} Unused suppression {md_code(u.rule)} at {md_code(u.where)}: {md_cell(u.message)}"
        for u in p.unused_suppressions
    ]


def _run_time(p: StackReport) -> list[str]:
    if p.run_time is None:
        return []
    from planner.core.render.run_time_report import lines

    head, *rest = lines(p.run_time)
    return ["", f"**Run time:** {md_cell(head)}", ""] + [f"- {md_cell(x)}" for x in rest]


def _fixed(p: StackReport) -> list[str]:
    """One line per baseline entry that matches no finding any more (`--baseline`); inert like the rest."""
    if not p.baseline_fixed:
        return []
    return [""] + [
        f":white_check_mark: Fixed since the baseline: {md_code(b.rule)} at {md_code(b.where)}"
        for b in p.baseline_fixed
    ]


def _cost(p: StackReport) -> list[str]:
    if p.cost is None:
        return []
    from planner.core.render.cost_report import markdown as cost_markdown

    return [""] + cost_markdown(p.cost).rstrip("\n").splitlines()


# --- Mermaid ---------------------------------------------------------------------------


def mermaid_text(text: str) -> str:
    """Text safe inside a quoted Mermaid label (entity codes for quotes and angle brackets)."""
    text = one_line(text)
    return text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def mermaid(p: StackReport) -> list[str]:
    """`flowchart` lines: one box per AZ, the EFA fabric inside it, node groups (UltraServers
    drawn as such), the Lustre file system and its S3 repository."""
    c = p.topology
    lines = ["flowchart TB"]
    fs_zone = c.lustre.availability_zone if c.lustre else None  # None: a program's file system that names no AZ
    zones = sorted({g.availability_zone for g in c.node_groups} | ({fs_zone} if fs_zone else set()))
    edges: list[str] = []
    for zi, az in enumerate(zones):
        lines.append(f'  subgraph az{zi}["Availability Zone {mermaid_text(az)}"]')
        efa = [(i, g) for i, g in enumerate(c.node_groups) if g.availability_zone == az and g.efa and g.efa_supported]
        plain = [(i, g) for i, g in enumerate(c.node_groups) if g.availability_zone == az and (i, g) not in efa]
        if efa:
            lines.append(f'    subgraph efa{zi}["EFA fabric, placement group: {c.placement}"]')
            for i, g in efa:
                lines += _group(i, g, "      ")
            lines.append("    end")
        for i, g in plain:
            lines += _group(i, g, "    ")
        if c.lustre is not None and fs_zone == az:
            lines.append(f"    {_lustre(c.lustre)}")
        lines.append("  end")
    if c.lustre is not None and fs_zone is None:
        lines.append(f"  {_lustre(c.lustre, ', in an AZ the program does not name')}")
    if c.lustre is not None:
        for i, g in enumerate(c.node_groups):
            link = "EFA" if c.lustre.efa_enabled and g.efa else "Lustre client"
            edges.append(f"  g{i} ---|{link}| fsx")
        if c.lustre.s3_import_path:
            lines.append(f'  s3[("S3 {mermaid_text(c.lustre.s3_import_path)}")]')
            edges.append("  s3 -.-|data repository| fsx")
    return lines + edges


def _lustre(fs: LustreTopology, where: str = "") -> str:
    tput = fs.per_unit_storage_throughput
    size = (
        f"Intelligent-Tiering, {fs.throughput_capacity_mbps or 0:,} MBps"
        + (f", {cache}" if (cache := read_cache_words(fs.read_cache_sizing_mode, fs.read_cache_size_gib)) else "")
        if fs.storage_capacity_gib is None
        else f"{fs.storage_capacity_gib:,} GiB"
    )
    detail = size + (f", {tput} MB/s/TiB" if tput else "") + (", EFA" if fs.efa_enabled else "")
    return f'fsx[("FSx for Lustre {fs.deployment_type}<br/>{detail}{where}")]'


def _group(i: int, g: GroupTopology, indent: str) -> list[str]:
    chips = f"{g.accelerators:,} {g.accelerator}"
    head = f"{mermaid_text(g.name)}: {g.count:,} x {g.instance_type}, {g.purchase}"
    ultra = g.ultraserver
    if ultra is None:
        return [f'{indent}g{i}["{head}<br/>{chips}"]']
    size = ultra.members
    units = g.count // size
    out = [f'{indent}subgraph g{i}["{head}<br/>{units:,} UltraServers ({ultra.name}), {chips}"]']
    for u in range(min(units, MAX_ULTRASERVER_NODES)):
        out.append(
            f'{indent}  g{i}u{u}["UltraServer {u + 1}<br/>{size} instances, {ultra.accelerators} chips, {ultra.interconnect}"]'
        )
    if units > MAX_ULTRASERVER_NODES:
        out.append(f'{indent}  g{i}more["... {units - MAX_ULTRASERVER_NODES:,} more UltraServers"]')
    if g.count % size:
        out.append(f'{indent}  g{i}partial["{g.count % size} instances: not a whole UltraServer"]')
    out.append(f"{indent}end")
    return out
