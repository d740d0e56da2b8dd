"""A Markdown report that fits in one pull-request comment, and says what it left out.

GitHub refuses a comment longer than 65,536 characters, and a sticky comment that cannot be
updated keeps showing the previous push's verdict. So the pull-request reports (`plan
--format markdown`, `diff --format markdown`) are assembled from blocks in order of
importance (the verdict and totals first, then errors, then what changed, then the rest):
each block goes in only while the whole stays under `MAX_CHARS`; a block that does not fit
falls back to its shorter form (a stack in one line, its errors one line each) or is left
out, and the report ends by naming what it left out and where the full report is.
"""

from __future__ import annotations

from msgspec import Struct, field

MAX_CHARS = 60_000  # under GitHub's 65,536, with room for the Action's block of input errors
FULL_REPORT = (
    "the full report is the JSON or SARIF file of this run (the Action's `plan.json` and `sarif-file`; "
    "`planner plan --format json` or `--format sarif`)"
)
_NOTE_ROOM = 2_000  # the closing note's own size, kept free
_NAMED = 10  # at most this many names in the closing note, then "and N more"


class Block(Struct):
    """Lines that go in together, where they go (`order`), and what they are when left out."""

    lines: list[str]
    order: float
    what: str = ""  # "stack `x` in full": named in the closing note when left out or shortened
    fallback: Block | None = None  # the shorter form to try when this one does not fit
    kind: str = ""  # counted by kind when left out ("overview row")

    @property
    def size(self) -> int:
        return sum(len(line) + 1 for line in self.lines)


class Assembly(Struct):
    """The blocks chosen, and what was shortened or left out (for the closing note)."""

    chosen: list[Block] = field(default_factory=list)
    shortened: list[str] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)  # by kind ("overview row"): how many
    dropped_named: list[str] = field(default_factory=list)  # blocks of no kind left out, by what they are


def assemble(head: list[str], blocks: list[Block], limit: int = MAX_CHARS) -> str:
    """`head` (always), then the `blocks` that fit in `limit` characters, chosen in the order
    given (most important first) and printed by their `order`; a closing note when anything
    was shortened or left out. The result is at most `limit` characters, whatever the input."""
    from planner.core.text.safe import join_lines

    room = limit - sum(len(line) + 1 for line in head) - _NOTE_ROOM
    got = Assembly()
    for b in blocks:
        cand: Block | None = b
        while cand is not None and cand.size > room:
            cand = cand.fallback
        if cand is None:
            if b.kind:
                got.dropped[b.kind] = got.dropped.get(b.kind, 0) + 1
            else:
                got.dropped_named.append(b.what)
            continue
        if cand is not b and b.what:
            got.shortened.append(b.what)
        got.chosen.append(cand)
        room -= cand.size
    lines = list(head)
    for b in sorted(got.chosen, key=lambda b: b.order):
        lines += b.lines
    note = closing_note(got)
    if note:
        lines += ["", note]
    text = join_lines(lines).rstrip("\n") + "\n"
    if len(text) > limit:  # only a head larger than the limit gets here: cut it, and say so
        cut = "\n\n" + _cut_note()
        text = text[: limit - len(cut) - 1].rsplit("\n", 1)[0] + cut + "\n"
    return text


def _names(names: list[str]) -> str:
    shown = names[:_NAMED]
    more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
    return ", ".join(shown) + more


def closing_note(got: Assembly) -> str:
    """What was shortened or left out to stay under the limit, and where the full report is."""
    parts = []
    if got.shortened:
        parts.append(f"shown as one line only: {_names(got.shortened)}")
    if got.dropped_named:
        parts.append(f"left out (their rows above count them): {_names(got.dropped_named)}")
    if got.dropped:
        parts.append(
            "left out: "
            + ", ".join(
                f"{n} {what}{'s' if n != 1 and not what.endswith('s') else ''}"
                for what, n in sorted(got.dropped.items())
            )
        )
    if not parts:
        return ""
    return (
        f"**Shortened to stay under GitHub's comment size limit** ({MAX_CHARS:,} characters): {'; '.join(parts)}; "
        f"{FULL_REPORT}."
    )


def _cut_note() -> str:
    return f"**Cut at {MAX_CHARS:,} characters to stay under GitHub's comment size limit**; {FULL_REPORT}."
