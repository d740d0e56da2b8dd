"""Machine output: the document as its codec writes it (`planner.core.document.codec`, version 2), with stable
key order and formatting so PR diffs of it are meaningful and `planner render` reads it back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from planner.core.document import RenderContext, Report, codec
from planner.core.render import json_text


def dumps(obj: Any, default: Callable[[Any], Any] | None = None) -> str:
    """Indented JSON; characters that are not printable (line separators, bidi overrides,
    C1 controls: json.dumps leaves them raw) are written as `\\uXXXX` escapes, so no
    reader splits a line inside a string and what a reviewer sees is what is there."""
    # = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False, default=default), faster
    text = json_text.dumps(obj) if default is None else json_text.dumps(obj, default)
    if not text.replace("\n", "").isprintable():
        text = "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in text)
    return text + "\n"


def record_text(record: Struct) -> str:
    """A document record (a `Report`, the rules or catalogue listing) as JSON text: each record written as the
    codec gives it, one level at a time."""
    return dumps(record, codec.shallow)


def render(report: Report, context: RenderContext = RenderContext()) -> str:
    return record_text(report)
