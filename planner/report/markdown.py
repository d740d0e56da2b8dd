"""A pull request comment: verdict, per-stack summary table, findings, cost, and a Mermaid
diagram of the declared topology, so a reviewer sees the cluster the diff describes.

Starts with a hidden marker (`<!-- planner-report -->`) so a workflow can find and update
its own comment instead of adding one per push.
"""

from __future__ import annotations

from typing import Any, Sequence

from planner import catalogue as _catalogue
from planner.pipeline import StackPlan
from planner.report.digest import count_text, counts, md_cell
from planner.report.text import join_lines, md_code, md_own_cell, num, one_line

MARKER = "<!-- planner-report -->"
ICONS = {"error": ":x:", "warning": ":warning:", "info": ":information_source:"}
MAX_ULTRASERVER_NODES = 4  # UltraServers drawn one by one per group; the rest are summed up


def render(plans: Sequence[StackPlan], limit: int | None = None) -> str:
    """The plan as one pull-request comment, under `limit` characters (GitHub's size limit):
    stacks with errors first and in full, then every stack's overview row, then the others in
    full while they fit; what did not fit is named at the end (`planner.report.bounded`)."""
    from planner.report.bounded import MAX_CHARS, Block, assemble

    plans = list(plans)
    total = counts(f for p in plans for f in p.findings)
    verdict = ":x:" if total["error"] else (":warning:" if total["warning"] else ":white_check_mark:")
    head = [MARKER, f"## {verdict} planner: {len(plans)} stack{'s' if len(plans) != 1 else ''}, {count_text(total)}", ""]
    head += OVERVIEW_HEADER
    failing = [i for i, p in enumerate(plans) if has_errors(p)]
    blocks = [full_block(plans[i], 1000 + n) for n, i in enumerate(failing)]
    blocks += [Block([overview_row(p)], i, kind="overview row") for i, p in enumerate(plans)]
    blocks += [full_block(p, 1000 + len(plans) + i) for i, p in enumerate(plans) if i not in failing]
    return assemble(head, blocks, MAX_CHARS if limit is None else limit)


OVERVIEW_HEADER = ["| stack | region | instances | accelerators | errors | warnings | suppressed | cost |",
                   "|---|---|---:|---:|---:|---:|---:|---|"]


def has_errors(p: StackPlan) -> bool:
    return any(f.severity == "error" and not f.suppressed for f in p.findings)


def overview_row(p: StackPlan) -> str:
    from planner.report.cost_report import total

    c = counts(p.findings)
    cost = "-" if p.cost is None else total(p.cost.to_json())
    return (f"| {md_code(p.stack.name)} | {md_cell(p.stack.region)} | {num(p.summary['instances'])} | "
            f"{num(p.summary['accelerators'])} | {c['error']} | {c['warning']} | {c['suppressed']} | {cost} |")


def _overview(plans: Sequence[StackPlan]) -> list[str]:
    return OVERVIEW_HEADER + [overview_row(p) for p in plans]


def full_block(p: StackPlan, order: float, extra: Sequence[str] = ()) -> Any:  # noqa: ANN401 - bounded.Block
    """A stack in full (with `extra` lines after its summary), falling back to its errors one
    line each, then to one line; a stack without errors falls back to nothing (its row says it)."""
    from planner.report.bounded import Block

    section = _stack(p)
    full = [""] + section[:4] + list(extra) + section[4:]
    what = md_code(p.stack.name)
    if not has_errors(p):
        return Block(full, order, what, fallback=Block([], order))
    errors = [f for f in p.findings if f.severity == "error" and not f.suppressed]
    compact = ["", f"### {md_code(p.stack.name)}", ""] + list(extra) + [
        f"- {ICONS['error']} {md_code(f.rule)} at {md_code(_where(f))}: {md_cell(f.message)}" for f in errors]
    one = ["", f"- {ICONS['error']} {md_code(p.stack.name)}: {len(errors)} error{'s' if len(errors) != 1 else ''} "
               "(each left out: too long for one comment)"]
    return Block(full, order, what, fallback=Block(compact, order, fallback=Block(one, order)))


def _where(f: Any) -> str:  # noqa: ANN401 - Finding
    return f"{f.file}:{f.line}" if f.line else f.file


def _stack(p: StackPlan) -> list[str]:
    s = p.summary
    pk = s["peak_pflops"]
    out = [
        f"### {md_code(p.stack.name)}",
        "",
        f"{md_code(p.stack.file)}, {md_cell(p.stack.region)}: {num(s['instances'])} instances, "
        + (f"{num(s['ultraservers'])} UltraServers, " if s["ultraservers"] else "")  # GPU stacks have none to count
        + f"{num(s['accelerators'])} accelerators, {num(s['accelerator_memory_gib'])} GiB accelerator memory, "
        f"{num(s['efa_bandwidth_gbps'])} Gbps EFA, peak {num(pk['bf16_dense'])} PFLOPS BF16 dense.",
        "",
    ]
    out += _findings(p)
    out += _unused(p)
    out += _cost(p)
    out += ["", "<details open><summary>Declared topology</summary>", "", "```mermaid"]
    out += mermaid(p)
    out += ["```", "", "</details>"]
    return out


def _findings(p: StackPlan) -> list[str]:
    """Findings as people act on them (`digest.for_people`): most important first, one row for
    the same finding in several node groups, no price-unknown where an error rules the part out."""
    if not p.findings:
        return ["No findings."]
    from planner import rules
    from planner.report.digest import for_people

    out = ["| severity | rule | where | message |", "|---|---|---|---|"]
    for item in for_people(p):
        f = item.finding
        sev = f"{ICONS[f.severity]} {f.severity}"
        msg = md_cell(item.message)
        if item.suppressed_reason is not None:
            sev = f"~~{f.severity}~~ suppressed"
            msg += f" *(suppressed: {md_cell(item.suppressed_reason)})*"
        elif f.fix is not None and item.fix is not None:  # names the stack's values: inert like the message
            msg += f"<br>**Fix:** {md_cell(item.fix)}"
        else:
            r = rules.get(f.rule)
            if r is not None:
                msg += f"<br>**Fix:** {md_own_cell(r.remediation)}"  # planner's own text: its code spans kept
        out.append(f"| {sev} | {md_code(f.rule)} | {md_code(item.where)} | {msg} |")
    hidden = len(p.findings) - sum(item.count for item in for_people(p))
    if hidden:
        out += ["", f"{hidden} price-unknown finding(s) not shown: an error above rules out the part they price."]
    return out


def _unused(p: StackPlan) -> list[str]:
    """One line per suppression that suppressed nothing (info); the rule id and place are inert."""
    if not p.unused_suppressions:
        return []
    return [""] + [f"{ICONS['info']} Unused suppression {md_code(u.rule)} at {md_code(u.where)}: {md_cell(u.message)}"
                   for u in p.unused_suppressions]


def _cost(p: StackPlan) -> list[str]:
    if p.cost is None:
        return []
    from planner.report.cost_report import markdown as cost_markdown

    return [""] + cost_markdown(p.cost.to_json()).rstrip("\n").splitlines()


# --- Mermaid ---------------------------------------------------------------------------

def mermaid_text(text: str) -> str:
    """Text safe inside a quoted Mermaid label (entity codes for quotes and angle brackets)."""
    text = one_line(text)
    return text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def mermaid(p: StackPlan) -> list[str]:
    """`flowchart` lines: one box per AZ, the EFA fabric inside it, node groups (UltraServers
    drawn as such), the Lustre file system and its S3 repository."""
    cat = _catalogue.load()
    c = p.stack.cluster
    lines = ["flowchart TB"]
    zones = sorted({g.availability_zone for g in c.node_groups} | ({c.lustre.availability_zone} if c.lustre else set()))
    edges: list[str] = []
    for zi, az in enumerate(zones):
        lines.append(f'  subgraph az{zi}["Availability Zone {mermaid_text(az)}"]')
        efa = [(i, g) for i, g in enumerate(c.node_groups) if g.availability_zone == az and g.efa and cat.instance_types[g.instance_type].efa_supported]
        plain = [(i, g) for i, g in enumerate(c.node_groups) if g.availability_zone == az and (i, g) not in efa]
        if efa:
            lines.append(f'    subgraph efa{zi}["EFA fabric, placement group: {c.placement}"]')
            for i, g in efa:
                lines += _group(i, g, cat, "      ")
            lines.append("    end")
        for i, g in plain:
            lines += _group(i, g, cat, "    ")
        if c.lustre is not None and c.lustre.availability_zone == az:
            fs = c.lustre
            tput = fs.per_unit_storage_throughput
            detail = f"{fs.storage_capacity_gib:,} GiB" + (f", {tput} MB/s/TiB" if tput else "") + (", EFA" if fs.efa_enabled else "")
            lines.append(f'    fsx[("FSx for Lustre {fs.deployment_type}<br/>{detail}")]')
        lines.append("  end")
    if c.lustre is not None:
        for i, g in enumerate(c.node_groups):
            link = "EFA" if c.lustre.efa_enabled and g.efa else "Lustre client"
            edges.append(f"  g{i} ---|{link}| fsx")
        if c.lustre.s3_import_path:
            lines.append(f'  s3[("S3 {mermaid_text(c.lustre.s3_import_path)}")]')
            edges.append("  s3 -.-|data repository| fsx")
    return lines + edges


def _group(i: int, g: Any, cat: Any, indent: str) -> list[str]:  # noqa: ANN401 - NodeGroup, Catalogue
    t = cat.instance_types[g.instance_type]
    chips = f"{g.count * t.accelerator_count:,} {t.accelerator.name}"
    head = f"{mermaid_text(g.name)}: {g.count:,} x {g.instance_type}, {g.purchase}"
    ultra = cat.ultraserver_of(g)
    if ultra is None:
        return [f'{indent}g{i}["{head}<br/>{chips}"]']
    size = ultra.members
    units = g.count // size
    out = [f'{indent}subgraph g{i}["{head}<br/>{units:,} UltraServers ({ultra.name}), {chips}"]']
    for u in range(min(units, MAX_ULTRASERVER_NODES)):
        out.append(f'{indent}  g{i}u{u}["UltraServer {u + 1}<br/>{size} instances, {ultra.accelerators} chips, {ultra.interconnect}"]')
    if units > MAX_ULTRASERVER_NODES:
        out.append(f'{indent}  g{i}more["... {units - MAX_ULTRASERVER_NODES:,} more UltraServers"]')
    if g.count % size:
        out.append(f'{indent}  g{i}partial["{g.count % size} instances: not a whole UltraServer"]')
    out.append(f"{indent}end")
    return out
