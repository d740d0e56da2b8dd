"""Model records as plain JSON and back, for the one message a program's child process sends.

`planner plan --program` runs the user's program in a child process (see
`planner.runtime.offline_run`); the clusters its planner components declared come back as JSON,
never as pickles, so the parent only ever reads data. Every record of `planner.core.model.cluster` is
a frozen record (a `msgspec.Struct`): fields are written by name and rebuilt from the type hints.
"""

from __future__ import annotations

import types
import typing
from functools import cache
from typing import Any

from msgspec import Struct

from planner.core.model import cluster as model
from planner.core.model.cluster import Stack


def encode(value: Any) -> Any:
    """A model record (or anything inside one) as JSON-ready data."""
    if isinstance(value, Stack):
        return {
            "name": value.name,
            "file": value.file,
            "region": value.region,
            "cluster": encode(value.cluster),
            "lines": [[encode(path), line] for path, line in value.lines.items()],
        }
    if isinstance(value, Struct):
        # the fields a record is built from (a derived or cached value is rebuilt by its class)
        return {name: encode(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    return value


def decode_stack(data: dict[str, Any]) -> Stack:
    """The inverse of `encode` for a Stack; raises ValueError/TypeError/KeyError on a malformed message."""
    lines = {tuple(path): int(line) for path, line in data["lines"]}
    return Stack(
        str(data["name"]), str(data["file"]), str(data["region"]), _decode(model.Cluster, data["cluster"]), lines
    )


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(model))


def _decode(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        return _decode(inner[0], value) if len(inner) == 1 else value
    if isinstance(hint, type) and issubclass(hint, Struct):  # a record's class (hints hold no instances)
        if not isinstance(value, dict):
            raise TypeError(f"expected a mapping for {hint.__name__}")
        hints = _hints(hint)
        return hint(**{name: _decode(hints[name], value[name]) for name in hint.__struct_fields__ if name in value})
    if origin is tuple:
        args = typing.get_args(hint)
        item = args[0] if args and (len(args) == 2 and args[1] is Ellipsis) else Any
        return tuple(_decode(item, v) for v in value)
    if origin is frozenset:
        return frozenset(value)
    return value
