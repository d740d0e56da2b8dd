"""A fix's edits applied to the model: `msgspec.structs.replace` along each edit's model path.

A fix is data (`planner.core.model.findings.Fix`), so whether it fixes anything is shown by
applying its edits and planning again (`tests/test_fixes_agree.py`), not by parsing its words.
A model path walks the `Cluster` by field name for a record and by index for a tuple
(`("node_groups", 0, "count")`); a record that is None is made from the edit's value when the
edit sets its only missing field (`("schedule", "hours")` on a cluster without a schedule). The stack's region (`REGION`) is the one
path outside the cluster: `apply_to_stack` applies it with the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from msgspec import NODEFAULT, Struct
from msgspec.structs import fields, replace

from planner.core.model.cluster import Stack
from planner.core.model.findings import REGION, Edit, EditValue

T = TypeVar("T")


def _step(node: Any, key: Any) -> Any:
    if isinstance(node, Struct) and isinstance(key, str):
        return getattr(node, key)
    if isinstance(node, tuple) and isinstance(key, int) and -len(node) <= key < len(node):
        return node[key]
    raise KeyError(f"no {key!r} in {type(node).__name__}")


def _with(node: Any, key: Any, value: Any) -> Any:
    if isinstance(node, Struct) and isinstance(key, str):
        return replace(node, **{key: value})
    if isinstance(node, tuple) and isinstance(key, int):
        return (*node[:key], value, *node[key + 1 :])
    raise KeyError(f"no {key!r} in {type(node).__name__}")


def _default(node: Any, key: str) -> Any:
    for f in fields(node):
        if f.name == key:
            if f.default is not NODEFAULT:
                return f.default
            if f.default_factory is not NODEFAULT:
                return f.default_factory()
    raise KeyError(f"{type(node).__name__}.{key} has no default to remove to")


def _items(value: EditValue) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def _leaf(node: Any, key: Any, edit: Edit) -> Any:
    if edit.op == "set":
        return edit.value
    if edit.op == "add":
        return (*_step(node, key), *_items(edit.value))
    if edit.value is None:
        return _default(node, key)
    return tuple(v for v in _step(node, key) if v not in _items(edit.value))


def apply_edit(root: T, edit: Edit) -> T:
    """`root` with `edit` applied at its path (a new frozen value; `root` is unchanged)."""
    if edit.resource:
        raise KeyError("an edit of a program's resource is no edit of the model")
    if not edit.path:
        raise KeyError("an edit needs a model path")
    if edit.path == REGION:
        raise KeyError("the region is the stack's, not the cluster's: apply_to_stack applies it")

    def walk(node: Any, path: tuple[Any, ...]) -> Any:
        key, rest = path[0], path[1:]
        if not rest:
            return _with(node, key, _leaf(node, key, edit))
        return _with(node, key, walk(_step(node, key), rest))

    result: T = walk(root, edit.path)
    return result


def apply_edits(cluster: T, edits: Iterable[Edit]) -> T:
    """`cluster` (or any model record) with every edit applied in order."""
    for edit in edits:
        cluster = apply_edit(cluster, edit)
    return cluster


def apply_to_stack(stack: Stack, edits: Iterable[Edit]) -> Stack:
    """`stack` with every edit applied: the region's (`REGION`) to the stack, the others to its cluster."""
    region, rest = stack.region, []
    for edit in edits:
        if edit.path == REGION and not edit.resource and edit.op == "set" and isinstance(edit.value, str):
            region = edit.value
        else:
            rest.append(edit)
    return replace(stack, region=region, cluster=apply_edits(stack.cluster, rest))
