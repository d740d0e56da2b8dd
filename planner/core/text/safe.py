"""User text made safe to print: one line everywhere, inert in Markdown.

planner's output is read by people and by machines that give some lines meaning: a line
starting with `::` is a GitHub workflow command, a line break inside a Markdown table
cell ends the table, `<img>` or `@team` in a pull-request comment renders or pings. Stack
files, price books, file names and command-line values come from people the repository
may not trust, so every renderer and the CLI's error printer pass what they print
through these two functions (and never build their own escaping):

- `one_line(text)`: control characters (C0, C1, DEL), line and paragraph separators and
  bidirectional overrides become visible escapes (`\\n`, `\\u202e`), so a value can
  neither start a new line nor reorder what a reviewer sees.
- `md_inert(text)`: `one_line`, then HTML, links, images, emphasis, code spans, table
  pipes, autolinks, @mentions and #references are escaped, so GitHub renders the text as
  text. (`md_code` shows a value as code, `html_inert` is for raw HTML such as
  `<summary>`, `md_own_cell` is for planner's own Markdown in a table, `md_prose` for
  rule text a report carries.)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# Bidirectional formatting characters (Unicode TR9): they reorder the text around them, so
# `main.py\u202e` can display as something else. Python counts them as unprintable too;
# named here because the stack parser refuses exactly these (plus control characters).
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def is_control(ch: str) -> bool:
    """A character a stack value may not hold: control (Cc), line/paragraph separator, bidi override."""
    return ch in BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def first_control(text: str) -> str | None:
    """The first character of `text` that `is_control`, or None (fast path for ordinary text)."""
    if text.isprintable():
        return None
    return next((c for c in text if is_control(c)), None)


def escape_char(ch: str) -> str:
    """`\\n`, `\\x1b`, `\\u202e`: how an unprintable character is shown."""
    return ch.encode("unicode_escape").decode("ascii")


def one_line(text: object) -> str:
    """`text` with every unprintable character escaped: it prints as exactly one line.

    Python's `str.isprintable` is false for control, format (bidi, zero-width),
    separator (other than the space) and unassigned characters; `str.splitlines` splits
    only on some of those, so escaping all of them keeps every reader's idea of a line.
    """
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else escape_char(c) for c in s)


EXCERPT = 40  # characters of a bad value (from a file, from AWS) quoted in an error


def excerpt(value: object, limit: int = EXCERPT) -> str:
    """`value` as Python writes it (`repr`), cut to about `limit` characters, on one line: what an
    error quotes of a value from a file or from AWS, never the whole of it."""
    size = _size(value)
    if isinstance(value, str) and len(value) > limit * 4:
        value = value[: limit * 4]  # repr of a megabyte string is not built to be thrown away
    elif isinstance(value, list | tuple | dict) and len(value) > limit:
        value = type(value)(list(value)[:limit]) if not isinstance(value, dict) else dict(list(value.items())[:limit])
    text = one_line(repr(value))
    if len(text) > limit:
        text = text[:limit] + f"... ({size})"
    return text


def _size(value: object) -> str:
    if isinstance(value, str | list | tuple | dict):
        return f"{len(value):,} {'characters' if isinstance(value, str) else 'items'}"
    return "cut"


def join_lines(lines: Iterable[str]) -> str:
    """Lines a renderer built, each kept to one line (`one_line`), joined with line feeds.

    The last step of the table, GitHub, Markdown and diff renderers: whatever a value
    carried, the only line breaks in the output are the ones between planner's lines.
    """
    return "\n".join(one_line(line) for line in lines)


# Markdown (CommonMark + GitHub): ASCII punctuation that starts a construct gets a
# backslash (CommonMark lets any ASCII punctuation be escaped); `&`, `<`, `>` become
# entities so no HTML tag or entity survives. `@` and `#` before a word (mentions, e-mail
# links, issue references) and the triggers of GitHub's extended autolinks (`://`,
# `www.`) go into code spans of their own: GitHub turns no text inside a code span into a
# mention or a link, while a backslash or an entity would still be read as one once
# rendered.
_MD_BACKSLASH = frozenset("\\`*_[]|~")
_MD_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# A whole URL (`https://host/path`) goes into one code span: escaping only its `://` would
# show `https` and `//host` around a one-character code span.
_MD_TOKEN = re.compile(
    r"(?i)(?P<url>\b[a-z][a-z0-9+.-]*://[^\s<>()`|\\]*[^\s<>()`|\\.,;:!?'\"])|"
    r"(?P<link>://|www\.|[@#](?=\w))|(?P<char>[\\`*_\[\]|~&<>])",
    re.S,
)  # other characters stay as they are
_INTRAWORD_UNDERSCORE = re.compile(r"(?<=[A-Za-z0-9])\\_(?=[A-Za-z0-9])")


def _md_token(m: re.Match[str]) -> str:
    tok = m.group()
    if m.lastgroup == "url":  # inside a code span GitHub renders no link, mention or emphasis
        return md_code(tok)
    if m.lastgroup == "link":  # @team, a@b.c, #12, https://, www.: in a code span of their own
        return "`:`//" if tok == "://" else f"`{tok}`"
    if tok in _MD_ENTITY:
        return _MD_ENTITY[tok]
    return "\\" + tok if tok in _MD_BACKSLASH else tok


def md_inert(text: object) -> str:
    """Text that GitHub renders as the same characters and nothing else (no HTML, link,
    image, mention, issue reference, emphasis or table break), on one line.

    For inline use (a table cell, after a list marker): renderers never start a line
    with it, so line-level constructs (`# `, `- `, `1. `) need no escape.
    """
    s = _MD_TOKEN.sub(_md_token, one_line(text))
    # `_` inside a word never starts emphasis (CommonMark): keep SCRATCH_2 readable in the source
    return _INTRAWORD_UNDERSCORE.sub("_", s) if "\\_" in s else s


_CODE_SPAN = re.compile(r"(`+)([^`]+?)\1(?!`)")


def md_prose(text: object) -> str:
    """Rule text carried in a report (a remediation, a description) in Markdown: inert like
    `md_inert` (no HTML, `</details>`, link, image, mention or table break), except that its
    well-formed code spans (`` `key: value` ``) stay code spans, whose content GitHub renders
    as text; pipes inside them escaped for tables; on one line. The report is a file anyone
    could have written (`planner render`): nothing in it is trusted as Markdown."""
    s = one_line(text)
    out: list[str] = []
    at = 0
    for m in _CODE_SPAN.finditer(s):
        out.append(md_inert(s[at : m.start()]))
        out.append(md_code(m.group(2)))
        at = m.end()
    out.append(md_inert(s[at:]))
    return "".join(out)


def md_own_cell(text: object) -> str:
    """planner's own Markdown (rule descriptions of the registry, written in this repository,
    never user text nor a report's copy: `md_prose` is for those) in a table cell: its code
    spans kept, pipes escaped, on one line."""
    return one_line(text).replace("|", "\\|")


def html_inert(text: object) -> str:
    """Text inside raw HTML of a Markdown comment (`<summary>...</summary>`), where Markdown
    escapes do not apply: entities for `& < > "`, and `@` and `://` in `<code>`, which GitHub
    never turns into a mention or a link; on one line."""
    s = one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    for token in ("@", "#", "://", "www."):
        s = s.replace(token, f"<code>{token}</code>")
    return s


def md_code(text: object) -> str:
    """Inline code for a value (a file path, a stack name): backticks fenced, pipes escaped for tables.

    Inside a code span GitHub renders no HTML, link, image or mention; the fence is one
    backtick longer than the longest run of backticks in the value, so the value cannot
    close it.
    """
    s = one_line(text).replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()) else ""
    return f"{fence}{pad}{s}{pad}{fence}" if s else "` `"
