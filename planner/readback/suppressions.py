"""Suppressions on one resource of a program: a tag on the resource, or a comment on its declaration.

A stack file suppresses a rule in its `suppress:` list, for the whole stack; a program's resource says
so itself, for the findings reported on it (those whose URN is the resource's), each with a reason:

- a tag: `planner:suppress:<rule-id>` = `<reason>` (one tag per rule). Read by `planner plan
  --program` and by the policy pack, from the resource's `tags` (a map, or the Auto Scaling group's
  list of `{key, value}`).
- a comment: `# planner: ignore[<rule-id>, ...] <reason>`, on the line that declares the resource
  (the line planner names for its findings) or on the comment lines directly above it. Read by
  `planner plan --program` (and `diff`, `preflight`), which knows where each resource was declared;
  the policy pack sees no source.

Either without a reason, naming no rule or an unknown one is unusable input (`plan --program`: one line,
exit 2; the pack: a `planner-topology` violation on the resource), as a stack file's would be.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct

from planner.core.model.cluster import Suppression
from planner.readback.resources import Resource

TAG = "planner:suppress"  # the tag key's prefix: `planner:suppress:<rule-id>`, its value the reason
COMMENT = "planner: ignore"  # `# planner: ignore[<rule-id>, ...] <reason>`
_COMMENT = re.compile(r"^#\s*planner:\s*ignore\b(?P<rest>.*)$")
_RULES = re.compile(r"^\[(?P<rules>[^\]]*)\](?P<reason>.*)$")
MAX_SOURCE_BYTES = 8 * 1024 * 1024  # a program's file, read for its comments


class Unusable(Struct, frozen=True):
    """A suppression that cannot be used: the resource it is on, how it was given, and what was expected."""

    urn: str
    key: str  # the tag (`tag planner:suppress:efa-recomended`) or the comment (`# planner: ignore[...]`)
    message: str  # what was expected, without the key
    file: str | None = None  # where the comment is (a tag is located at its resource)
    line: int | None = None


def tags_of(props: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A resource's tags as (key, value): a map (most resources), or a list of `{key, value}` (an Auto
    Scaling group's `tags`, SageMaker's)."""
    tags = props.get("tags")
    if isinstance(tags, Mapping):
        return [(str(k), v) for k, v in tags.items()]
    out = []
    if isinstance(tags, list):
        for t in tags:
            if isinstance(t, Mapping):
                k, v = t.get("key", t.get("Key")), t.get("value", t.get("Value"))
                if isinstance(k, str):
                    out.append((k, v))
    return out


def from_tags(
    resources: Iterable[Resource], where: Mapping[str, tuple[str, int | None]] | None = None
) -> tuple[list[Suppression], list[Unusable]]:
    """The `planner:suppress:<rule-id>` tags of `resources`, as suppressions of that resource's findings;
    `where`: each URN's file and line (a program's), recorded with them."""
    found: list[Suppression] = []
    bad: list[Unusable] = []
    for r in resources:
        file, line = (where or {}).get(r.urn, (None, None))
        for key, value in sorted(tags_of(r.props), key=lambda kv: kv[0]):
            if key != TAG and not key.startswith(TAG + ":"):
                continue
            rule = key[len(TAG) + 1 :]
            reason = value.strip() if isinstance(value, str) else ""
            problem = _problem(rule, reason, tag=True)
            if problem:
                bad.append(Unusable(r.urn, f"tag {key}", problem, file, line))
            else:
                found.append(Suppression(rule, reason, resource=r.urn, via=f"tag {key}", file=file, line=line))
    return found, bad


def _problem(rule: str, reason: str, tag: bool) -> str | None:
    """Why a suppression of `rule` with `reason` (a tag's, else a comment's) cannot be used; None when it can."""
    from planner.core.planning.pipeline import unknown_rule_message

    if not rule:
        return (
            f"names no rule; expected one tag per rule, `{TAG}:<rule-id>`, with the reason as its value"
            if tag
            else f"names no rule; expected `# {COMMENT}[<rule-id>] <reason>`"
        )
    unknown = unknown_rule_message(rule)
    if unknown:
        return unknown
    if not reason:
        where = "as the tag's value" if tag else "after the brackets"
        return f"a suppression needs a reason; expected why '{rule}' does not apply to this resource, {where}"
    return None


def from_comments(
    resources: Iterable[Resource], sources: Mapping[str, tuple[str, int | None]]
) -> tuple[list[Suppression], list[Unusable]]:
    """The `# planner: ignore[...]` comments on each resource's declaration (`sources`: the file and line
    that declared each URN): on that line, or on the comment lines directly above it."""
    read: dict[str, _Comments] = {}
    found: list[Suppression] = []
    bad: list[Unusable] = []
    for r in resources:
        file, line = sources.get(r.urn, (None, None))
        if file is None or line is None:
            continue
        if file not in read:
            read[file] = _comments(file)
        comments = read[file]
        for at in comments.on_declaration(line):
            text = comments.text[at]
            rules, reason, problem = _parse(text)
            if problem:
                bad.append(Unusable(r.urn, text, problem, file, at))
                continue
            for rule in rules:
                why = _problem(rule, reason, tag=False)
                if why:
                    bad.append(Unusable(r.urn, text, why, file, at))
                else:
                    found.append(
                        Suppression(rule, reason, resource=r.urn, via=f"comment {COMMENT}[{rule}]", file=file, line=at)
                    )
    return found, bad


class _Comments(Struct, frozen=True):
    """A program file's comments by line, and the lines that hold nothing but a comment."""

    text: dict[int, str]
    whole: frozenset[int]

    def on_declaration(self, line: int) -> list[int]:
        """The lines of `planner: ignore` comments that belong to the declaration at `line`: its own,
        and those in the block of comment-only lines directly above it."""
        out = [line] if line in self.text and _COMMENT.match(self.text[line]) else []
        above = line - 1
        while above in self.whole:
            if _COMMENT.match(self.text[above]):
                out.append(above)
            above -= 1
        return sorted(out)


def _comments(file: str) -> _Comments:
    """The comments of a program's file; none when it cannot be read (the program ran from it, so
    only a file changed since it ran)."""
    from planner.core.reading.bounded_files import read_regular
    from planner.core.reading.problems import InputError

    text: dict[int, str] = {}
    whole: set[int] = set()
    try:
        source = read_regular(file, MAX_SOURCE_BYTES).decode("utf-8", errors="replace")
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                text[tok.start[0]] = tok.string.strip()
                if not tok.line[: tok.start[1]].strip():
                    whole.add(tok.start[0])
    except (InputError, tokenize.TokenError, SyntaxError):
        pass  # what was read so far stands
    return _Comments(text, frozenset(whole))


def _parse(comment: str) -> tuple[list[str], str, str | None]:
    """(rules, reason, problem) of a `# planner: ignore[a, b] reason` comment."""
    m = _COMMENT.match(comment)
    rest = m.group("rest").strip() if m else ""
    brackets = _RULES.match(rest)
    if not brackets:
        return [], "", f"expected `# {COMMENT}[<rule-id>] <reason>`: the rule ids in brackets, then the reason"
    rules = [r.strip() for r in brackets.group("rules").split(",") if r.strip()]
    reason = brackets.group("reason").strip().lstrip(":-").strip()
    if not rules:
        return [], reason, f"names no rule; expected `# {COMMENT}[<rule-id>] <reason>`"
    return rules, reason, None
