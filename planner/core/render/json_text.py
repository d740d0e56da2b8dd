"""Indented JSON text, byte for byte what `json.dumps(obj, indent=2, ensure_ascii=False,
allow_nan=False)` writes, two to three times faster.

With `indent` set, the standard library leaves its C encoder unused and walks the document
with nested Python generators, each piece of text passing up through every level: for
planner's JSON report that walk cost more than planning the stacks. Here one function
appends pieces to a list; strings are still escaped by the C `encode_basestring`. Same
rules as `json`: dict keys in insertion order, str/int/float/bool/None keys turned into
text, tuples written as lists, a NaN or an infinity refused with ValueError; any other value
is passed to `default` (as `json.dumps` does), which returns what to write instead, or raises
TypeError (the default when none is given).
"""

from __future__ import annotations

from collections.abc import Callable
from json import JSONEncoder
from json.encoder import encode_basestring
from typing import Any

_INDENT = "  "
# a container holding only values of these exact types is written by the C encoder in one call
_SCALARS = frozenset({str, int, float, bool, type(None)})
_JSON_TYPES = frozenset({dict, list, tuple, str, int, float, bool, type(None)})
_JSON_TYPES_AND_SUBCLASSES = (dict, list, tuple, str, int, float)
_FLAT: dict[str, Callable[[Any], str]] = {}  # line break + indent of the items -> their C encoder


def _unknown(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def dumps(obj: Any, default: Callable[[Any], Any] = _unknown) -> str:
    """`obj` as JSON indented by two spaces, non-ASCII characters kept (no final newline); a value of
    any other type is written as what `default` returns for it."""
    out: list[str] = []
    _value(obj, "\n", out, default)
    return "".join(out)


def _value(o: Any, newline: str, out: list[str], default: Callable[[Any], Any]) -> None:
    """Append `o`; `newline` is a line break plus the indent of the line `o` starts on."""
    if type(o) not in _JSON_TYPES and not isinstance(o, _JSON_TYPES_AND_SUBCLASSES):
        o = default(o)  # a record of the caller's (a report's): written as the JSON value it gives
    if isinstance(o, str):
        out.append(encode_basestring(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float(o))
    elif isinstance(o, dict):
        if not o:
            out.append("{}")
            return
        inner = newline + _INDENT
        if _SCALARS.issuperset(map(type, o.values())):  # its keys: the C encoder takes and refuses the same as `_key`
            out.append("{" + inner + _flat(inner)(o)[1:-1] + newline + "}")
            return
        sep = "{" + inner
        for k, v in o.items():  # the commonest values written here, without a call each
            t = type(v)
            out.append(sep + (encode_basestring(k) if type(k) is str else _key(k)) + ": ")
            if t is str:
                out.append(encode_basestring(v))
            elif t is int:
                out.append(int.__repr__(v))
            elif v is None:
                out.append("null")
            elif t is float:
                out.append(_float(v))
            elif t is bool:
                out.append("true" if v else "false")
            else:
                _value(v, inner, out, default)
            sep = "," + inner
        out.append(newline + "}")
    elif isinstance(o, (list, tuple)):
        if not o:
            out.append("[]")
            return
        inner = newline + _INDENT
        if _SCALARS.issuperset(map(type, o)):
            out.append("[" + inner + _flat(inner)(o)[1:-1] + newline + "]")
            return
        sep = "[" + inner
        for v in o:
            out.append(sep)
            if isinstance(v, str):
                out.append(encode_basestring(v))
            else:
                _value(v, inner, out, default)
            sep = "," + inner
        out.append(newline + "]")
    else:  # `default` gave something JSON cannot say either
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _flat(inner: str) -> Callable[[Any], str]:
    """The C encoder for a container of scalars whose items start on lines indented as `inner`:
    the separator between items carries the line break and indent, so none is added later."""
    encode = _FLAT.get(inner)
    if encode is None:
        encode = _FLAT[inner] = JSONEncoder(
            ensure_ascii=False, allow_nan=False, check_circular=False, separators=("," + inner, ": ")
        ).encode
    return encode


def _float(o: float) -> str:
    if o != o or o in (float("inf"), float("-inf")):
        raise ValueError("Out of range float values are not JSON compliant: " + repr(o))
    return float.__repr__(o)


def _key(k: Any) -> str:
    """A dict key as `json` writes it: text as is, true/false/null, numbers as their repr."""
    if isinstance(k, str):
        return encode_basestring(k)
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return '"' + int.__repr__(k) + '"'
    if isinstance(k, float):
        return '"' + _float(k) + '"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")
