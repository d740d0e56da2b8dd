"""`planner capacity` as people read it (a table fitted to the terminal) and as Markdown (a pull
request comment): pure functions of the document's capacity section
(`planner.core.document.block_offerings_section`: a search, or a stack's own blocks and their extensions).
"""

from __future__ import annotations

from planner.core.document import RenderContext, Report
from planner.core.document.block_offerings_section import (
    BookedBlock,
    CapacityExtension,
    CapacityOption,
    CapacitySearch,
    NextSteps,
)
from planner.core.text.terminal import Line

# the zone names its region; the offering ids are listed under the table (they would not fit beside it)
HEADERS = ("#", "zone", "start (UTC)", "end (UTC)", "hours", "inst", "upfront", "$/inst-h", "deadline")
RIGHT = (0, 4, 5, 6, 7)


def closing(doc: CapacitySearch) -> str:
    return (
        "Offerings as AWS quoted them (DescribeCapacityBlockOfferings); the fee is paid upfront for the whole "
        f"block, and instances stop {doc.termination_lead_minutes} minutes before it ends. Nothing was bought."
    )


def _when(text: str | None) -> str:
    """`2026-12-08 11:30` from `2026-12-08T11:30:00Z`."""
    return "-" if not text else text.replace("T", " ")[:16]


def need_line(doc: CapacitySearch) -> str:
    """What was searched for: the cluster, its hours, the window and the budget."""
    from planner.core.text.numbers import num, usd

    parts = []
    for n in doc.needs:
        what = (
            f"{n.ultraservers} x {n.ultraserver_type} UltraServers ({n.instances} {n.instance_type})"
            if n.ultraserver_type
            else f"{n.instances} x {n.instance_type}"
        )
        parts.append(f"{what} for {num(n.run_hours)} h ({n.hours_basis})")
    window = [f"start from {_when(doc.earliest)}" if doc.earliest else "start from now"]
    if doc.deadline:
        window.append(f"finish by {_when(doc.deadline)}")
    if doc.max_usd is not None:
        window.append(f"at most {usd(doc.max_usd)}")
    group = f" (node group '{doc.node_group}' of {doc.source})" if doc.node_group else ""
    return f"Capacity Blocks for {' or '.join(parts)}{group}; {', '.join(window)}"


def _zone(o: CapacityOption) -> str:
    return f"{o.availability_zone} (Local Zone, opt-in {o.opt_in_group})" if o.local_zone else o.availability_zone


def _rows(doc: CapacitySearch) -> list[tuple[str, ...]]:
    from planner.core.text.numbers import num, usd

    several = len(doc.needs) > 1
    rows: list[tuple[str, ...]] = []
    for i, o in enumerate(doc.options, 1):
        met = {True: "meets", False: "misses", None: "-"}[o.meets_deadline]
        blocks = "+".join(str(b) for b in o.blocks) if len(o.blocks) > 1 else str(o.instances)
        zone = f"{_zone(o)} {o.instance_type}" if several else _zone(o)
        rows.append(
            (
                str(i),
                zone,
                _when(o.start),
                _when(o.end),
                num(o.hours),
                blocks,
                usd(o.upfront_usd),
                f"{o.usd_per_instance_hour:,.2f}",
                met,
            )
        )
    return rows


def offering_lines(doc: CapacitySearch) -> list[str]:
    """`1 cb-...`: the offering ids of each option, numbered as in the table."""
    return [f"{i} {' + '.join(o.offering_ids)}" for i, o in enumerate(doc.options, 1)]


def region_lines(doc: CapacitySearch) -> list[str]:
    """One line per region asked: how many offerings came back, or why none could be read."""
    out = []
    several = len(doc.needs) > 1
    for r in doc.regions:
        what = f"{r.region} ({r.instance_type})" if several else r.region
        hours = sorted({q.capacity_duration_hours for q in r.asked})
        asked = f"asked for {', '.join(f'{h} h' for h in hours)}"
        if r.error:
            out.append(f"{what}: no answer: {r.error}")
        else:
            out.append(f"{what}: {r.offerings} offering{'s' if r.offerings != 1 else ''} ({asked})")
    return out


def pick_lines(doc: CapacitySearch) -> list[str]:
    from planner.core.text.numbers import num, usd

    p = doc.pick
    if p is None:
        answered = sum(1 for r in doc.regions if not r.error)
        if not answered:
            return ["Pick: none: no region answered (see above); this is not an answer about capacity"]
        return [
            f"Pick: none: no offering for this cluster in the {answered} region{'s' if answered != 1 else ''} that answered"
        ]
    o = p.option
    index = next(i for i, x in enumerate(doc.options, 1) if x.offering_ids == o.offering_ids)
    head = (
        f"Pick: option {index}, {o.region} {_zone(o)}, {_when(o.start)} to {_when(o.end)} UTC, "
        f"{num(o.hours)} h ({num(o.usable_hours)} h usable), {o.instances} x {o.instance_type}, "
        f"{usd(o.upfront_usd)} upfront (${o.usd_per_instance_hour:,.2f} per instance-hour); the run ends "
        f"{_when(o.finish)}"
    )
    out = [head]
    if not p.fits:
        out.append(f"  does not fit: {p.why}")
    return out


def _set_in(nxt: NextSteps, then: str = "Then set in") -> str:
    """The heading of the keys to set next: the stack file's, or the program's resources'."""
    return f"{then} the stack:" if nxt.program is None else f"{then} the program ({nxt.program}):"


def next_lines(doc: CapacitySearch) -> list[str]:
    nxt = doc.next
    if nxt is None:
        return []
    out = ["To buy it (printed, not run; an offering is quoted for a short time, search again if it is gone):"]
    out += [f"  {c}" for c in nxt.purchase_commands]
    out.append(_set_in(nxt))
    out += [f"  {k}" for k in nxt.stack_keys]
    return out


def summary(doc: CapacitySearch) -> str:
    n, asked = len(doc.options), len(doc.regions)
    answered = sum(1 for r in doc.regions if not r.error)
    fits = doc.fits
    return (
        f"{n} option{'s' if n != 1 else ''} from {answered} of {asked} region{'s' if asked != 1 else ''} "
        f"answering; {'pick fits' if fits else 'no pick that fits'}; exit {0 if fits else 1}"
    )


def extension_lines(doc: CapacityExtension) -> list[str]:
    """A stack's own blocks: whether they cover the run, each one's extension offerings, and what to run."""
    from planner.core.text.numbers import num, usd

    blocks, n = doc.reservations, doc.need
    ids = ", ".join(b.capacity_reservation_id for b in blocks)
    what = "Capacity Block" if len(blocks) == 1 else f"{len(blocks)} Capacity Blocks"
    group = doc.resource_group_arn
    named = (
        f"{what} {ids}"
        if not group
        else f"the Capacity Blocks of {group}"
        if not blocks
        else f"{what} {ids} (resource group {group})"
    )
    out = [
        f"{named} ({doc.region}) for {n.instances} x {n.instance_type}, a run of {num(n.run_hours)} h ({n.hours_basis})"
    ]
    if doc.error:
        return out + [f"  no answer: {doc.error}"]
    for b in blocks:
        head = "  " if len(blocks) == 1 else f"  {b.capacity_reservation_id}: "
        if b.error:
            out.append(f"{head}no answer: {b.error}")
            continue
        out.append(
            f"{head}{b.availability_zone}, {_when(b.start)} to {_when(b.end)} UTC: {num(b.hours)} h, "
            f"{num(b.usable_hours)} h usable ({'covers the run' if b.covers_run else _short(b, len(blocks))})"
        )
        if b.covers_run:
            continue
        asked = ", ".join(f"{h} h" for h in b.asked_extension_hours)
        if not b.extensions:
            out.append(f"    no extension offering (asked for {asked})")
        for e in b.extensions:
            out.append(
                f"    extension {e.offering_id}: +{e.hours} h to {_when(e.end)}, "
                f"{num(e.usable_hours_after)} h usable, {usd(e.upfront_usd)} upfront"
            )
    if len(blocks) > 1 and doc.run_start is not None:
        out.append(f"  the run uses every block: it starts {_when(doc.run_start)}, when the last block starts")
    if doc.meets_deadline is not None:
        out.append(
            f"  the run ends {_when(doc.finish)}: {'before' if doc.meets_deadline else 'after'} the deadline "
            f"{_when(doc.deadline)}"
        )
    if doc.within_budget is False:
        out.append(
            f"  the extensions cost {usd(doc.extension_upfront_usd)} upfront, more than --max-usd {usd(doc.max_usd)}"
        )
    nxt = doc.next
    if nxt is not None:
        which = (
            "it"
            if len(blocks) == 1
            else f"{len(nxt.purchase_commands)} of them"
            if len(nxt.purchase_commands) > 1
            else "the block too short"
        )
        out += [f"To extend {which} (printed, not run):"]
        out += [f"  {c}" for c in nxt.purchase_commands]
        out += [_set_in(nxt, "Then in")] + [f"  {k}" for k in nxt.stack_keys]
    return out


def _short(block: BookedBlock, blocks: int) -> str:
    """Why a block is too short; with several blocks the run starts when the last one does."""
    from planner.core.text.numbers import num

    if blocks == 1:
        return "too short for the run"
    return f"ends {num(block.short_by_hours)} h too early for the run"


def _extension_summary(doc: CapacityExtension) -> str:
    blocks = doc.reservations
    failed = doc.error or any(b.error for b in blocks)
    in_time = doc.meets_deadline is not False
    extended = doc.next is not None and doc.within_budget is not False
    ok = doc.exit_code() == 0
    the = "the block covers" if len(blocks) == 1 else "the blocks cover"
    what = (
        f"{the} the run"
        if doc.covers_run
        else (
            "an extension fits" if doc.next is not None and len(doc.next.purchase_commands) == 1 else "extensions fit"
        )
        if extended
        else "no extension fits"
        if doc.next is None
        else "the extensions are over --max-usd"
    )
    return f"{'no answer' if failed else what}{'' if in_time else ', but the run ends after the deadline'}; exit {0 if ok else 1}"


def section(report: Report) -> CapacitySearch | CapacityExtension:
    """The report's capacity section (a `capacity` report always has one)."""
    if not isinstance(report.capacity, (CapacitySearch, CapacityExtension)):
        raise ValueError(f"a {report.command} report has no capacity section")
    return report.capacity


def render_table(report: Report, context: RenderContext = RenderContext()) -> str:
    from planner.core.text.terminal import term_for, using

    with using(term_for(context.width, context.colour)):
        return _table(section(report))


def _table(doc: CapacitySearch | CapacityExtension) -> str:
    from planner.core.text.terminal import Span, grid, human

    if isinstance(doc, CapacityExtension):
        summary_text = _extension_summary(doc)
        return human(
            [*extension_lines(doc), [Span(summary_text, "good" if summary_text.endswith("exit 0") else "bad")]]
        )

    lines: list[Line] = [need_line(doc)]
    rows = _rows(doc)
    if rows:
        lines += grid(HEADERS, rows, right=RIGHT)
        lines.append("Offerings: " + "; ".join(offering_lines(doc)))
    else:
        lines.append("(no option: see the regions below)")
    lines += ["Regions:"] + [f"  {x}" for x in region_lines(doc)]
    lines += [f"note: {n}" for n in doc.notes]
    lines += pick_lines(doc) + next_lines(doc)
    lines.append(closing(doc))
    fits = doc.fits
    lines.append([Span(summary(doc), "good" if fits else "bad")])
    return human(lines)


def render_markdown(report: Report, context: RenderContext = RenderContext()) -> str:
    """The search as Markdown; every value is inert (zone names and messages come from AWS)."""
    from planner.core.text.safe import join_lines, md_code, md_inert

    doc = section(report)
    if isinstance(doc, CapacityExtension):
        lines = extension_lines(doc)
        return (
            join_lines(
                [f"**{md_inert(lines[0])}**", ""]
                + [f"- {md_inert(x.strip())}" for x in lines[1:]]
                + ["", md_inert(_extension_summary(doc))]
            )
            + "\n"
        )
    from planner.core.render.bounded import MAX_CHARS

    out = [f"**{md_inert(need_line(doc))}**", ""]
    rest = ["", "Regions:", ""] + [f"- {md_inert(x)}" for x in region_lines(doc)]
    if doc.notes:
        rest += [""] + [f"- note: {md_inert(n)}" for n in doc.notes]
    rest += [""] + [md_inert(x.strip()) for x in pick_lines(doc)]
    nxt = doc.next
    if nxt is not None:
        rest += (
            ["", "To buy it (not run by planner):", "", "```sh"]
            + list(nxt.purchase_commands)
            + ["```", "", md_inert(_set_in(nxt)), ""]
            + [f"- {md_code(k)}" for k in nxt.stack_keys]
        )
    rest += ["", md_inert(closing(doc)), "", md_inert(summary(doc))]
    return join_lines(out + _option_rows(doc, MAX_CHARS - _size(out) - _size(rest)) + rest) + "\n"


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _option_rows(doc: CapacitySearch, room: int) -> list[str]:
    """The options table in its order, as many rows as fit in `room` characters (the pick's row
    always), then a line naming how many were left out: one comment stays under GitHub's 65,536
    characters however many offerings AWS sent (`planner.core.render.bounded.MAX_CHARS`)."""
    from planner.core.text.safe import md_inert

    rows = _rows(doc)
    if not rows:
        return ["No option: see the regions below."]
    head = ["| " + " | ".join(HEADERS + ("offering",)) + " |", "|---:|---|---|---|---:|---:|---:|---:|---|---|"]
    cells = [
        "| " + " | ".join(md_inert(c) for c in row + (" + ".join(o.offering_ids),)) + " |"
        for row, o in zip(rows, doc.options)
    ]
    picked = next(
        (
            i
            for i, o in enumerate(doc.options)
            if doc.pick is not None and o.offering_ids == doc.pick.option.offering_ids
        ),
        None,
    )
    room -= _size(head) + 200  # the line saying what was left out
    if picked is not None:
        room -= len(cells[picked]) + 1
    shown: list[int] = []
    for i, line in enumerate(cells):
        if i == picked:
            continue
        if len(line) + 1 > room:
            break
        shown.append(i)
        room -= len(line) + 1
    if picked is not None:
        shown = sorted([*shown, picked])
    out = head + [cells[i] for i in shown]
    left = len(cells) - len(shown)
    if left:
        out += [
            "",
            f"{left:,} more option{'s' if left != 1 else ''} left out: too many for one comment "
            "(`planner capacity --format json` lists them all).",
        ]
    return out
