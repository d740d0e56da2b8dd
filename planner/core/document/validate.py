"""A saved report is untrusted input: one check of the whole typed document, in one place.

`Report.from_json` builds the dataclasses from the JSON, then `check_document` walks them by
their type hints (`typing.get_type_hints`), so every field of every section is checked the same
way, and a new field is checked by its annotation with nothing to add here:

- each value has its annotated type (`str`, `int` but not `bool`, `float` (an `int` too),
  `bool`, `None`, a `Literal`'s values, `tuple[X, ...]`, a union, a nested dataclass);
- numbers are finite (no NaN or infinity) and within `MAX_NUMBER`; a field named `line` is an
  integer of at least 1 (a source line: nothing else may reach `line=` of an annotation or
  SARIF's `startLine`);
- strings hold at most `MAX_TEXT` characters and lists at most `MAX_ITEMS` items;
- a rule's `source` (SARIF's `helpUri`) is an https URL of plain characters.

The first value that fails is a `NotAReport` naming its key path as the JSON spells it
(`stacks[0].findings[1].line`) and what was expected, with the value cut to a short excerpt
(`excerpt`), which `planner render` prints as its one line (exit 2). A later codec that reads
and writes the document from the same type hints replaces the hand-written `from_json`s;
this check stays its validation.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

from planner.core.text.safe import excerpt

MAX_TEXT = 10_000  # characters in one string of a report (a message, a remediation, a path)
MAX_ITEMS = 100_000  # items in one list of a report (findings, line items, offerings)
MAX_NUMBER = 1e15  # the largest magnitude of a number (USD, hours, counts): finite and printable

# Field names that the JSON spells differently, and fields the JSON flattens into their parent.
_JSON_NAMES = {("StackReport", "name"): "stack"}
_FLATTENED = {("LineItem", "detail")}
# An https URL of characters that Markdown, SARIF viewers and HTML all leave as one link
# (no spaces, quotes, angle brackets, parentheses, brackets, backticks, backslashes or pipes).
_HTTPS_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#][A-Za-z0-9._~%/?#=&+:@!,;$-]*)?")


class Invalid(ValueError):
    """One value of a document that is not what its type says: its key path and what was expected."""

    def __init__(self, key: str, message: str):
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}" if key else message)


def kind(value: object) -> str:
    """What a JSON value is, in a word (`a string`, `a list`, `null`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def check_number(value: object, key: str, *, integer: bool = False, minimum: float | None = None) -> None:
    """Invalid unless `value` is a finite number (an integer when `integer`) within MAX_NUMBER and at least `minimum`."""
    want = "an integer" if integer else "a number"
    if minimum is not None:
        want += f" >= {minimum:g}"
    if isinstance(value, bool) or not isinstance(value, int | float) or (integer and not isinstance(value, int)):
        raise Invalid(key, f"expected {want}, got {kind(value)} {excerpt(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise Invalid(key, f"expected {want}, got {excerpt(value)} (not a finite number)")
    if abs(value) > MAX_NUMBER:
        raise Invalid(key, f"expected {want} of at most {MAX_NUMBER:.0e} in size, got {excerpt(value)}")
    if minimum is not None and value < minimum:
        raise Invalid(key, f"expected {want}, got {excerpt(value)}")


def check_text(value: object, key: str, limit: int = MAX_TEXT) -> None:
    if not isinstance(value, str):
        raise Invalid(key, f"expected a string, got {kind(value)} {excerpt(value)}")
    if len(value) > limit:
        raise Invalid(key, f"expected at most {limit:,} characters, got {len(value):,}: {excerpt(value)}")


def check_document(value: object, key: str = "") -> None:
    """Invalid (first problem found) unless every field of the dataclass `value`, and of every
    dataclass in it, holds what its type hint says (see the module's docstring)."""
    _check(value, type(value), key)


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


@typing.no_type_check
def _check(value: Any, hint: Any, key: str) -> None:  # noqa: C901, PLR0912 - one branch per kind of type
    if hint is Any or hint is object:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            _check_fields(value, key)  # a section typed Any: checked by its own class
        return
    origin = get_origin(hint)
    if origin is Literal:
        if value not in get_args(hint) or isinstance(value, bool) != any(isinstance(a, bool) for a in get_args(hint)):
            allowed = ", ".join(str(a) for a in get_args(hint))
            raise Invalid(key, f"expected one of {allowed}, got {excerpt(value)}")
        return
    if origin is Union or origin is types.UnionType:
        options = get_args(hint)
        if value is None and type(None) in options:
            return
        errors: list[Invalid] = []
        for option in options:
            if option is type(None):
                continue
            try:
                _check(value, option, key)
                return
            except Invalid as exc:
                errors.append(exc)
        if len(errors) == 1 or (errors and dataclasses.is_dataclass(value)):
            raise errors[0]  # `int | None`: say what the int should have been
        raise Invalid(key, f"expected {_hint_text(hint)}, got {kind(value)} {excerpt(value)}")
    if origin is tuple or origin is list:
        if not isinstance(value, tuple | list):
            raise Invalid(key, f"expected a list, got {kind(value)} {excerpt(value)}")
        if len(value) > MAX_ITEMS:
            raise Invalid(key, f"expected at most {MAX_ITEMS:,} items, got {len(value):,}")
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            for i, item in enumerate(value):
                _check(item, args[0], f"{key}[{i}]")
        elif args:
            if len(value) != len(args):
                raise Invalid(key, f"expected a list of {len(args)} items, got {len(value)}")
            for i, (item, arg) in enumerate(zip(value, args, strict=True)):
                _check(item, arg, f"{key}[{i}]")
        return
    if hint is type(None):
        if value is not None:
            raise Invalid(key, f"expected null, got {kind(value)} {excerpt(value)}")
        return
    if hint is bool:
        if not isinstance(value, bool):
            raise Invalid(key, f"expected true or false, got {kind(value)} {excerpt(value)}")
        return
    if hint is int:
        line = key.rsplit(".", 1)[-1] == "line"
        check_number(value, key, integer=True, minimum=1 if line else None)
        return
    if hint is float:
        check_number(value, key)
        return
    if hint is str:
        check_text(value, key)
        return
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, hint):
            raise Invalid(key, f"expected an object, got {kind(value)} {excerpt(value)}")
        _check_fields(value, key)
        return
    if getattr(hint, "_is_protocol", False) and dataclasses.is_dataclass(value) and not isinstance(value, type):
        _check_fields(value, key)  # a Protocol (diff's SideReport): the document it holds, by its own class
        return
    raise Invalid(key, f"no check for a value of type {hint!r}")  # a new kind of field: add its branch above


@typing.no_type_check
def _check_fields(value: Any, key: str) -> None:
    cls = type(value)
    hints = _hints(cls)
    for field in dataclasses.fields(cls):
        name = field.name
        if (cls.__name__, name) in _FLATTENED:
            sub = key
        else:
            sub = _join(key, _JSON_NAMES.get((cls.__name__, name), name))
        item = getattr(value, name)
        _check(item, hints[name], sub)
        if cls.__name__ == "RuleInfo" and name == "source" and not _HTTPS_URL.fullmatch(item):
            raise Invalid(sub, f"expected an https URL (the page the rule rests on), got {excerpt(item)}")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _hint_text(hint: Any) -> str:
    names = []
    for arg in get_args(hint):
        if arg is type(None):
            names.append("null")
        elif get_origin(arg) in (tuple, list):
            names.append("a list")
        elif arg is str:
            names.append("a string")
        elif arg in (int, float):
            names.append("a number")
        elif arg is bool:
            names.append("true or false")
        else:
            names.append("an object")
    return " or ".join(dict.fromkeys(names))
