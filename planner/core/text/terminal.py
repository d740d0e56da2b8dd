"""Terminal output: width, wrapping, colour.

Human formats (the table report and every command's table) fit the terminal: each line
is at most `Term.width` columns, long text wraps (table cells within their column), and
nothing is cut. Colour is ANSI SGR on a terminal only. No library: `rich` costs more to
import than the whole `planner plan` run (docs/output.md has the measurement), and this
is all planner needs. Output is a function of (text, Term), so it is deterministic when
piped: no colour, width from COLUMNS else 100.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TextIO

from msgspec import Struct

from planner.core.text.safe import one_line

DEFAULT_WIDTH = 100
MIN_WIDTH = 40  # below this, wrapping makes tables unreadable: fold at 40 instead


class Term(Struct, frozen=True):
    """How human output is laid out: width in columns, colour on or off, `wide` (no wrapping)."""

    width: int = DEFAULT_WIDTH
    color: bool = False
    wide: bool = False

    @property
    def limit(self) -> int | None:
        """The width lines are fitted to, or None with `--wide`."""
        return None if self.wide else max(self.width, MIN_WIDTH)


_TERM = Term()


def term() -> Term:
    """The layout the CLI chose for this run (`configure`); defaults: 100 columns, no colour."""
    return _TERM


def configure(t: Term) -> Term:
    """Set the layout for the rest of the run (the CLI does it once); returns the previous one."""
    global _TERM
    old, _TERM = _TERM, t
    return old


def term_for(width: int | None, colour: bool) -> Term:
    """The layout a render context asks for (`RenderContext.width`, None: natural widths)."""
    return Term(width=DEFAULT_WIDTH if width is None else width, color=colour, wide=width is None)


class using:
    """`with using(t):` lays out human output with `t`, then restores the previous layout, so
    a renderer given a context is a function of its arguments."""

    def __init__(self, t: Term) -> None:
        self.t = t

    def __enter__(self) -> Term:
        self.old = configure(self.t)
        return self.t

    def __exit__(self, *exc: object) -> None:
        configure(self.old)


def _env_flag(env: Mapping[str, str], name: str) -> bool:
    return bool(env.get(name, ""))


def term_from_env(
    stream: TextIO | None, *, no_color: bool = False, wide: bool = False, env: Mapping[str, str] | None = None
) -> Term:
    """The layout for writing to `stream`.

    Width: `COLUMNS` (a whole number of at least 1), else the terminal's, else 100.
    Colour (https://no-color.org, https://force-color.org): off with `--no-color` or a
    non-empty `NO_COLOR`; on with a non-empty `FORCE_COLOR`; else on only when `stream`
    is a terminal and `TERM` is not `dumb`.
    """
    env = dict(os.environ) if env is None else env
    tty = False
    try:
        tty = bool(stream is not None and stream.isatty())
    except (OSError, ValueError, AttributeError):
        tty = False
    width = DEFAULT_WIDTH
    cols = env.get("COLUMNS", "").strip()
    if cols.isdigit() and int(cols) > 0:
        width = int(cols)
    elif tty:
        try:
            width = os.get_terminal_size(stream.fileno()).columns if stream is not None else DEFAULT_WIDTH
            width = width or DEFAULT_WIDTH
        except (OSError, ValueError, AttributeError):
            width = DEFAULT_WIDTH
    if no_color or _env_flag(env, "NO_COLOR"):
        color = False
    elif _env_flag(env, "FORCE_COLOR"):
        color = True
    else:
        color = tty and env.get("TERM", "") != "dumb"
    return Term(width=width, color=color, wide=wide)


# SGR codes by meaning, not by colour, so renderers say what a piece of text is.
STYLES = {
    "error": "1;31",
    "warning": "33",
    "info": "36",
    "ok": "32",
    "bad": "31",
    "good": "32",
    "heading": "1",
    "total": "1",
    "dim": "2",
}


class Span(NamedTuple):
    """A piece of a line with a style from STYLES (or None): colour is added at the very end."""

    text: str
    style: str | None = None


Line = str | Sequence[Span]


def _plain(line: Line) -> tuple[str, list[tuple[int, int, str]]]:
    """The line's text (each piece kept on one line) and its styled (start, end, style) ranges."""
    if isinstance(line, str):
        return one_line(line), []
    text, marks = "", []
    for span in line:
        piece = one_line(span.text)
        if span.style and piece:
            marks.append((len(text), len(text) + len(piece), span.style))
        text += piece
    return text, marks


URL_LABEL_MAX = 16  # a footnote's number and word (`[12] price:`) stay beside a URL too long for any line


def wrap_ranges(text: str, width: int, indent: int = 0, urls_whole: bool = False) -> list[tuple[int, int]]:
    """Where to cut `text` into lines of at most `width` columns: (start, end) offsets.

    Breaks at spaces; a word longer than a line is split (never cut off). Continuation
    lines are to be shown after `indent` spaces, so they get `width - indent` columns.
    A URL longer than a line starts a line of its own (after a short label at most); with
    `urls_whole` it is not split but runs past the width: a URL broken over two lines (the second indented) can be neither
    clicked nor copied, in a terminal or a CI log, and either one wraps a long line itself.
    """
    out: list[tuple[int, int]] = []
    start, n = 0, len(text)
    room = width

    def skip(i: int) -> int:
        while i < n and text[i] == " ":
            i += 1
        return i

    def is_url(i: int) -> bool:  # the word at `i` is a URL, perhaps in brackets or quotes: `(https://...)`
        while i < n and text[i] in "([<'\"`":
            i += 1
        return text.startswith(("http://", "https://"), i)

    def word_end(i: int) -> int:
        end = text.find(" ", i)
        return n if end == -1 else end

    while n - start > room:
        cut = text.rfind(" ", start + 1, start + room + 1)
        while cut > start and text.startswith("::", skip(cut)):  # never start a line with `::` (a workflow command)
            cut = text.rfind(" ", start + 1, cut)
        after = text.find(" ", cut + 1) if cut > start else -1
        too_long = cut > start and ((after if after != -1 else n) - cut - 1) > max(width - indent, 1)
        leading = cut <= start or text[start:cut].strip() == ""  # the long word is this line's first
        first = skip(start) if leading else skip(cut + 1)  # where the word that fits no line begins
        if (leading or too_long) and is_url(first) and (urls_whole or not leading):
            # whole, when only a short label (`[27]`, `[4] price:`) precedes it on its line: the line
            # runs on to the URL's end; else a break before it, so that it starts the next line
            labelled = leading or len(text[start:cut].strip()) <= URL_LABEL_MAX
            cut = word_end(first) if urls_whole and labelled else cut
            out.append((start, cut))
            start = skip(cut if urls_whole and labelled else cut + 1)
            room = max(width - indent, 1)
            continue
        if leading or too_long:  # no space, or the next word fits no line
            cut = start + room  # one long word (a URL, a path): split it
            while (
                cut > start + 1
                and text.startswith("::", skip(cut))
                or (cut > start + 1 and text[cut - 1] == ":" and text[cut] == ":")
            ):
                cut -= 1
            nxt = skip(cut)
        else:
            nxt = skip(cut + 1)
        out.append((start, cut))
        start = nxt
        room = max(width - indent, 1)
    if start < n or not out:  # not after a URL that ended the text
        out.append((start, n))
    return out


def _paint(text: str, start: int, marks: list[tuple[int, int, str]], color: bool) -> str:
    """`text` (which starts at offset `start` of its line) with ANSI colour on its styled ranges."""
    if not color or not marks:
        return text
    out, pos, end = "", start, start + len(text)
    for a, b, style in marks:
        a, b = max(a, pos), min(b, end)
        if a >= b:
            continue
        out += (
            text[pos - start : a - start] + f"\x1b[{STYLES.get(style, '0')}m" + text[a - start : b - start] + "\x1b[0m"
        )
        pos = b
    return out + text[pos - start :]


def fit(lines: Iterable[Line], t: Term | None = None) -> list[str]:
    """Human lines laid out for the terminal: each one line of user text, wrapped to the width
    with a hanging indent (its own leading spaces plus two), coloured when the terminal wants it."""
    t = t or term()
    out: list[str] = []
    for line in lines:
        text, marks = _plain(line)
        text = text.rstrip()
        limit = t.limit
        if limit is None or len(text) <= limit:
            out.append(_paint(text, 0, marks, t.color))
            continue
        lead = len(text) - len(text.lstrip(" "))
        indent = min(lead + 2, limit // 2)
        for i, (a, b) in enumerate(wrap_ranges(text, limit, indent, urls_whole=True)):
            b = a + len(text[a:b].rstrip(" "))
            piece = _paint(text[a:b], a, marks, t.color)
            out.append(piece if i == 0 else " " * indent + piece)
    return out


def human(lines: Iterable[Line], t: Term | None = None) -> str:
    """The text of a human-format report: `fit` lines joined, with a final line feed."""
    return "\n".join(fit(lines, t)) + "\n"


Cell = str | Span | None


def _cell(c: Cell) -> Span:
    if c is None:
        return Span("")
    if isinstance(c, Span):
        return Span(one_line(c.text), c.style)
    return Span(one_line(c))


def grid(
    headers: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    right: Sequence[int] = (),
    *,
    width: int | None = -1,
    gap: int = 2,
) -> list[Line]:
    """A plain-text table at most `width` columns wide (default: the terminal's; None: natural).

    Columns listed in `right` are right-aligned (numbers). When the natural table is too
    wide, the widest text columns give up room and their cells wrap within the column
    (word by word; a long word is split), so nothing is cut. Cells may be `Span`s: their
    style colours them on a terminal.
    """
    if width == -1:
        width = term().limit
    rows = [list(r) for r in rows]
    head = [Span(h, "heading") for h in headers]
    body = [[_cell(c) for c in row] for row in rows]
    ncol = len(headers)
    natural = [max([len(head[i].text)] + [len(r[i].text) for r in body]) for i in range(ncol)]
    widths = list(natural)
    if width is not None:
        # a text column keeps room for its longest word (up to 24), so cells wrap between words
        words = [max([len(w) for r in body for w in r[i].text.split()] + [0]) for i in range(ncol)]
        head_words = [max(len(w) for w in (h.text.split() or [""])) for h in head]
        floor = [max(head_words[i], min(max(words[i], 8), 24, natural[i]), 1) for i in range(ncol)]
        for i in right:  # a number never wraps (its header may; so may words around it: "unknown (at least $5)")
            floor[i] = max(head_words[i], words[i], 1)
        excess = sum(widths) + gap * (ncol - 1) - width
        cells = [[head[i].text] + [r[i].text for r in body] for i in range(ncol)]  # the header wraps too

        seen: dict[tuple[int, int], list[int]] = {}

        def lines_at(i: int, w: int) -> list[int]:
            if (i, w) not in seen:
                seen[i, w] = [len(wrap_ranges(t, w)) if len(t) > w else 1 for t in cells[i]]
            return seen[i, w]

        heights = [lines_at(i, widths[i]) for i in range(ncol)]
        while excess > 0:
            shrinkable = [i for i in range(ncol) if widths[i] > floor[i]]
            if not shrinkable:
                break
            # give up room where it costs the fewest extra lines (a description wraps before a
            # number is split from its unit); a few columns at a time on a wide table
            chunk = max(1, -(-excess // 6))
            # per row, the tallest cell and the tallest of the other columns
            top = [max(range(ncol), key=lambda k: heights[k][row]) for row in range(len(heights[0]))]
            second = [max([heights[k][row] for k in range(ncol) if k != top[row]] or [1]) for row in range(len(top))]
            best: tuple[tuple[Any, ...], int, int, list[int]] | None = None
            for i in shrinkable:
                step = min(chunk, excess, widths[i] - floor[i])
                trial = lines_at(i, widths[i] - step)
                total = sum(
                    max(t, second[row] if top[row] == i else heights[top[row]][row]) for row, t in enumerate(trial)
                )
                key = (widths[i] - step < words[i], total, i in right, -widths[i], i)  # split a word last
                if best is None or key < best[0]:
                    best = (key, i, step, trial)
            assert best is not None  # shrinkable is not empty
            _, i, step, trial = best
            widths[i] -= step
            heights[i] = trial
            excess -= step
        if excess > 0 and gap > 1:  # one space between columns before giving up the table
            return grid(headers, rows, right, width=width, gap=1)
        if excess > 0:  # even wrapped, the columns do not fit side by side: one block per row
            return _records(head, body, width)

    def physical(row: list[Span]) -> list[Line]:
        pieces = []
        for i, c in enumerate(row):
            rng = wrap_ranges(c.text, widths[i]) if c.text else [(0, 0)]
            pieces.append([Span(c.text[a:b], c.style) for a, b in rng])
        height = max(len(p) for p in pieces)
        lines: list[Line] = []
        for k in range(height):
            spans: list[Span] = []
            for i, p in enumerate(pieces):
                s = p[k] if k < len(p) else Span("")
                pad = widths[i] - len(s.text)
                if i:
                    spans.append(Span(" " * gap))
                if i in right:
                    spans += [Span(" " * pad), s]
                else:
                    spans += [s, Span(" " * pad)]
            while spans and not spans[-1].text.strip():  # no trailing blanks
                spans.pop()
            lines.append(spans)
        return lines

    out: list[Line] = physical(head)
    out.append(" " * 0 + (" " * gap).join("-" * w for w in widths))
    for r in body:
        out += physical(r)
    return out


def _records(head: list[Span], body: list[list[Span]], width: int) -> list[Line]:
    """A table too wide for the terminal, as one block per row: `header: value` lines."""
    label = max(len(h.text) for h in head)
    out: list[Line] = []
    for k, row in enumerate(body):
        if k:
            out.append("")
        for i, (h, c) in enumerate(zip(head, row)):
            out.append([Span("- " if i == 0 else "  "), Span(f"{h.text:<{label}}", "heading"), Span(": "), c])
    return out


def indent(prefix: str, lines: Iterable[Line]) -> list[Line]:
    """Lines shifted right by `prefix` (spaces), styled lines kept styled."""
    return [prefix + ln if isinstance(ln, str) else [Span(prefix), *ln] for ln in lines]
