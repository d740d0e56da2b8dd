"""YAML loading that keeps the line of every value and refuses hostile documents.

PyYAML's C composer gives node marks cheaply; we build plain Python data from the nodes
ourselves so that (a) each key path maps to the line a finding should point at, and
(b) alias expansion is counted, which stops "billion laughs" documents before they grow.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

import planner
from planner.core.reading.problems import InputError, Problem

try:  # the C loader is ~10x faster; fall back for Pythons built without libyaml
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the build
    _Loader = yaml.SafeLoader

Path = tuple[Any, ...]
Lines = dict[Path, int]

MAX_BYTES = 8 * 1024 * 1024
MAX_NODES = 200_000
MAX_DEPTH = 64
# Integers past this are no valid value of any key, and Python refuses to print integers
# of more than 4,300 digits (a YAML hex literal can reach that): keep such scalars as text.
MAX_INT = 10**100

# Below this size a document cannot hold MAX_NODES values without aliases (which `_build`
# counts as it expands them), so only larger files pay for `_precount`'s extra pass.
PRECOUNT_CHARS = 64 * 1024
_NODE_EVENTS = (yaml.ScalarEvent, yaml.AliasEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)

_constructor = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
# what `Resolver.resolve` said for short scalars: a pure function of its arguments (no path
# resolvers are registered), called for every scalar of every file
_RESOLVED: dict[tuple[Any, str, Any], str] = {}
_RESOLVED_MAX = 4096
_RESOLVED_CHARS = 64


class _ComposeLoader(_Loader):  # type: ignore[misc]  # libyaml's loader or PyYAML's, picked at import: typed Any
    """The safe loader, with the per-node work libyaml's composer calls back into Python cut down:
    no path resolvers are registered, so descending and ascending them is a no-op, and the tag a
    short scalar resolves to is remembered (a stack file repeats `true`, `count`, `us-east-2` ...)."""

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if not isinstance(value, str) or len(value) > _RESOLVED_CHARS:
            return str(super().resolve(kind, value, implicit))
        key = (kind, value, implicit)
        tag = _RESOLVED.get(key)
        if tag is None:
            tag = str(super().resolve(kind, value, implicit))
            if len(_RESOLVED) < _RESOLVED_MAX:
                _RESOLVED[key] = tag
        return tag


class _Limit(Exception):
    def __init__(self, line: int | None, message: str) -> None:
        self.line = line
        self.message = message


def _line_text(text: str, index: int) -> str:
    """Line `index` (0-based) of `text`, or ""."""
    lines = text.split("\n", index + 1)
    return lines[index] if index < len(lines) else ""


def load(text: str | bytes, file: str) -> tuple[Any, Lines]:
    """Parse one YAML document; return (data, lines) or raise InputError."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise InputError([Problem(file, None, "", f"file is {len(text)} bytes; expected at most {MAX_BYTES}")])
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                [Problem(file, None, "", f"not UTF-8 text (byte {exc.start}); expected a YAML file")]
            ) from None
    if len(text) > MAX_BYTES:
        raise InputError([Problem(file, None, "", f"file is {len(text)} characters; expected at most {MAX_BYTES}")])
    if "\x00" in text:
        raise InputError([Problem(file, None, "", "contains NUL bytes; expected a YAML text file")])
    try:
        if len(text) > PRECOUNT_CHARS:
            _precount(text)
        node = yaml.compose(text, Loader=_ComposeLoader)
    except _Limit as exc:
        raise InputError([Problem(file, exc.line, "", exc.message)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = exc.problem or exc.context or "invalid YAML"
        if mark is not None and "\t" in _line_text(text, mark.line)[: max(mark.column, 0) + 1]:
            what = "tabs cannot indent YAML; indent with spaces"
        raise InputError([Problem(file, line, "", f"YAML syntax error: {what}")]) from None
    except yaml.YAMLError as exc:
        raise InputError([Problem(file, None, "", f"YAML error: {str(exc).splitlines()[0]}")]) from None
    except RecursionError:
        raise InputError(
            [Problem(file, None, "", f"YAML nested too deeply; expected at most {MAX_DEPTH} levels")]
        ) from None
    lines: Lines = {}
    if node is None:
        return None, lines
    budget = [MAX_NODES]
    try:
        data = _build(node, (), lines, budget, 0)
    except _Limit as exc:
        raise InputError([Problem(file, exc.line, "", exc.message)]) from None
    finally:  # the shared constructor caches every node it built; drop them with the document
        _constructor.constructed_objects.clear()
        _constructor.recursive_objects.clear()
    return data, lines


def _precount(text: str) -> None:
    """Refuse a document with too many nodes before composing it.

    Composing builds every node before `_build` can count values: an 8 MiB flow list is
    four million nodes, 40 s and 1.2 GB on a 2-core machine. Counting parser events costs
    little memory and stops early. Every value has at most one key, so more than
    2 x MAX_NODES node events means more than MAX_NODES values: no valid document is refused.
    """
    events = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, _NODE_EVENTS):
            events += 1
            if events > 2 * MAX_NODES:
                line = event.start_mark.line + 1 if event.start_mark is not None else None
                raise _Limit(line, f"document has more than {MAX_NODES} values; refused")


def _scalar(node: yaml.ScalarNode) -> Any:
    """The scalar's value, or its text when its tag cannot build one (`!!bool maybe`, `!!int x`)."""
    if node.tag == _STR:  # most values and keys: what SafeConstructor would return, without its dispatch
        return node.value
    try:
        value = _constructor.construct_object(node)
    except Exception:  # noqa: BLE001 - SafeConstructor fails with KeyError, ValueError, ...; the text stays usable
        return node.value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return node.value
    return value


# planner/data/, found from the package itself so this module can live in any of its folders
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(planner.__file__)), "data")


def load_data(relpath: str) -> tuple[Any, Lines]:
    """A data file shipped in `planner/data/` (catalogue, price books, FSx limits).

    Read from beside the package rather than through importlib.resources, which costs
    several milliseconds of imports on every `planner` start. These files ship with
    planner and are checked by its tests, so they skip the guards and line bookkeeping that
    user files get (`load`): libyaml builds them about twice as fast, which every
    `planner` start pays for. No lines: a problem in them is planner's, not the user's.
    """
    with open(os.path.join(DATA_DIR, relpath), encoding="utf-8") as fh:
        text = fh.read()
    return yaml.load(text, Loader=_Loader), {}  # noqa: S506 - a safe loader (CSafeLoader or SafeLoader)


def load_path(path: str, what: str = "") -> tuple[Any, Lines]:
    """Read and parse one YAML file; unreadable files are input problems like bad YAML."""
    from planner.core.reading.bounded_files import read_regular

    return load(read_regular(path, MAX_BYTES, what), path)


def _build(node: yaml.Node, path: Path, lines: Lines, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    line = node.start_mark.line + 1
    if budget[0] < 0:
        raise _Limit(line, f"document expands to more than {MAX_NODES} values (YAML aliases?); refused")
    if depth > MAX_DEPTH:
        raise _Limit(line, f"nested more than {MAX_DEPTH} levels deep; refused")
    lines.setdefault(path, line)
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), lines, budget, depth + 1) for i, item in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        merged: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for src in sources:
                    value = _build(src, path, {}, budget, depth + 1)
                    if not isinstance(value, dict):
                        raise _Limit(key_node.start_mark.line + 1, "merge key '<<' expects a mapping")
                    for k, v in value.items():
                        merged.setdefault(k, v)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise _Limit(key_node.start_mark.line + 1, "mapping keys must be plain scalars")
            key = _scalar(key_node) if key_node.tag != _STR else key_node.value
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                key = key_node.value
            if key in out:
                raise _Limit(key_node.start_mark.line + 1, f"duplicate key {key!r}")
            lines[path + (key,)] = key_node.start_mark.line + 1
            out[key] = _build(value_node, path + (key,), lines, budget, depth + 1)
            # the key's own line is the useful one for findings on a nested mapping
            lines[path + (key,)] = key_node.start_mark.line + 1
        for k, v in merged.items():
            out.setdefault(k, v)
        return out
    raise _Limit(line, f"unsupported YAML node {node.tag}")  # pragma: no cover


def line_of(lines: Lines, path: Path) -> int | None:
    """The line of `path`, or of its nearest declared ancestor (a missing key's parent)."""
    while True:
        if path in lines:
            return lines[path]
        if not path:
            return None
        path = path[:-1]
