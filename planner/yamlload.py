"""YAML loading that keeps the line of every value and refuses hostile documents.

PyYAML's C composer gives node marks cheaply; we build plain Python data from the nodes
ourselves so that (a) each key path maps to the line a finding should point at, and
(b) alias expansion is counted, which stops "billion laughs" documents before they grow.
"""

from __future__ import annotations

from typing import Any

import yaml

from planner.errors import InputError, Problem

try:  # the C loader is ~10x faster; fall back for Pythons built without libyaml
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the build
    _Loader = yaml.SafeLoader

Path = tuple[Any, ...]
Lines = dict[Path, int]

MAX_BYTES = 8 * 1024 * 1024
MAX_NODES = 200_000
MAX_DEPTH = 64

_constructor = yaml.constructor.SafeConstructor()


class _Limit(Exception):
    def __init__(self, line: int, message: str):
        self.line = line
        self.message = message


def load(text: str | bytes, file: str) -> tuple[Any, Lines]:
    """Parse one YAML document; return (data, lines) or raise InputError."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise InputError([Problem(file, None, "", f"file is {len(text)} bytes; expected at most {MAX_BYTES}")])
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError([Problem(file, None, "", f"not UTF-8 text (byte {exc.start}); expected a YAML file")]) from None
    if len(text) > MAX_BYTES:
        raise InputError([Problem(file, None, "", f"file is {len(text)} characters; expected at most {MAX_BYTES}")])
    if "\x00" in text:
        raise InputError([Problem(file, None, "", "contains NUL bytes; expected a YAML text file")])
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = exc.problem or exc.context or "invalid YAML"
        raise InputError([Problem(file, line, "", f"YAML syntax error: {what}")]) from None
    except yaml.YAMLError as exc:
        raise InputError([Problem(file, None, "", f"YAML error: {str(exc).splitlines()[0]}")]) from None
    except RecursionError:
        raise InputError([Problem(file, None, "", f"YAML nested too deeply; expected at most {MAX_DEPTH} levels")]) from None
    lines: Lines = {}
    if node is None:
        return None, lines
    budget = [MAX_NODES]
    try:
        data = _build(node, (), lines, budget, 0)
    except _Limit as exc:
        raise InputError([Problem(file, exc.line, "", exc.message)]) from None
    return data, lines


def load_path(path: str, what: str = "") -> tuple[Any, Lines]:
    """Read and parse one YAML file; unreadable files are input problems like bad YAML."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        label = f"cannot read{' ' + what if what else ''}"
        raise InputError([Problem(path, None, "", f"{label}: {exc.strerror or exc}")]) from None
    return load(raw, path)


def _build(node: yaml.Node, path: Path, lines: Lines, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    line = node.start_mark.line + 1
    if budget[0] < 0:
        raise _Limit(line, f"document expands to more than {MAX_NODES} values (YAML aliases?); refused")
    if depth > MAX_DEPTH:
        raise _Limit(line, f"nested more than {MAX_DEPTH} levels deep; refused")
    lines.setdefault(path, line)
    if isinstance(node, yaml.ScalarNode):
        try:
            return _constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, OverflowError):
            return node.value
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
            key = _constructor.construct_object(key_node) if key_node.tag != "tag:yaml.org,2002:str" else key_node.value
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
