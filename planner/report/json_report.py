"""Machine output: stable key order and formatting so PR diffs of it are meaningful."""

from __future__ import annotations

import json
from typing import Any, Iterable

from planner.pipeline import StackPlan
from planner.report import json_text

VERSION = 1


def dumps(obj: Any) -> str:
    """Indented JSON; characters that are not printable (line separators, bidi overrides,
    C1 controls: json.dumps leaves them raw) are written as `\\uXXXX` escapes, so no
    reader splits a line inside a string and what a reviewer sees is what is there."""
    text = json_text.dumps(obj)  # = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False), faster
    if not text.replace("\n", "").isprintable():
        text = "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in text)
    return text + "\n"


def render(plans: Iterable[StackPlan]) -> str:
    return dumps({"version": VERSION, "stacks": [p.to_json() for p in plans]})
