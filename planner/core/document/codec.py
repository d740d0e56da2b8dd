"""One codec for the document: its records are its schema (Infracost's `output.Root`).

`dump(value)` writes a document value as JSON-ready data and `load(cls, data)` reads one back,
both walking the records (`msgspec.Struct`s) by their type hints, so a field added to a type is written, read and
checked with nothing else to write. Reading is validation: a saved report is untrusted input
(`planner render` of a pull request's artifact), so `load` checks as it builds:

- each value has its annotated type (`str`, `int` but not `bool`, `float` (an `int` too), `bool`,
  `None`, a `Literal`'s values, `tuple[X, ...]`, a union, a nested record);
- numbers are finite and within `MAX_NUMBER`; a field named `line` is an integer of at least 1
  (a source line: nothing else may reach SARIF's `startLine`);
- strings hold at most `MAX_TEXT` characters and lists at most `MAX_ITEMS` items;
- a field marked `url` (a rule's `source`, SARIF's `helpUri`) is an https URL of plain characters.

The first value that fails is `Invalid`, naming its key path as the JSON spells it
(`stacks[0].findings[1].line`) and what was expected, the value cut to an excerpt.

Where the JSON is not a plain dump of the fields, the field says so in its type (`Annotated[T, key(...)]`):
its JSON name, when it is left out (`omit`: None, empty, or as another field is set or not), a
nested record written into its parent (`flatten`), a shape (`pairs`: a tuple of pairs as an
object; `one`: a value as a list of one; `text`: a record that earlier documents wrote as its `text`
alone, a string read as the record with that text and its other fields' defaults). A class whose keys come in another order than its
fields (or with a computed key, such as a finding's `suppressed`) names them in `JSON_ORDER`.
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Literal, TypeVar, Union, get_args, get_origin

from msgspec import Struct

from planner.core.text.safe import excerpt

MAX_TEXT = 10_000  # characters in one string of a report (a message, a remediation, a path)
MAX_ITEMS = 100_000  # items in one list of a report (findings, line items, offerings)
MAX_NUMBER = 1e15  # the largest magnitude of a number (USD, hours, counts): finite and printable
# An https URL of characters that Markdown, SARIF viewers and HTML all leave as one link
# (no spaces, quotes, angle brackets, parentheses, brackets, backticks, backslashes or pipes).
HTTPS_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#][A-Za-z0-9._~%/?#=&+:@!,;$-]*)?")

T = TypeVar("T")
# when a field's key is left out: its value None, its value empty (or False), or another field of the
# record set (`("when", name)`: not None) or not set (`("unless", name)`)
Omit = Literal["none", "empty"] | tuple[Literal["when", "unless"], str] | None


class Invalid(ValueError):
    """One value of a document that is not what its type says: its key path and what was expected."""

    def __init__(self, key: str, message: str):
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}" if key else message)


def key(
    json: str | None = None,
    *,
    omit: Omit = None,
    flatten: bool = False,
    shape: Literal["pairs", "one", "text"] | None = None,
    url: bool = False,
) -> _Key:
    """A field's JSON, for `name: Annotated[T, key(...)]`: see the module's docstring."""
    return _Key(json, omit, flatten, shape, url)


class _Key(Struct, frozen=True):
    json: str | None
    omit: Omit
    flatten: bool
    shape: str | None
    url: bool


_PLAIN = _Key(None, None, False, None, False)


# --- writing ------------------------------------------------------------------------------


# written as they are; checked by exact type first, since most of a document's values are these
_SCALARS = frozenset({str, int, float, bool, type(None)})


def dump(value: object) -> object:
    """`value` (a document record, or a tuple, dict or scalar of them) as JSON-ready data."""
    if type(value) in _SCALARS or isinstance(value, str | int | float | bool) or value is None:
        return value
    if type(value) in _WRITERS:  # a record type written before
        return dump_record(value)  # type: ignore[arg-type]
    if isinstance(value, tuple | list):
        return [v if type(v) in _SCALARS else dump(v) for v in value]
    if isinstance(value, dict):  # a `pairs` field, as `entries` gives it
        return {k: v if type(v) in _SCALARS else dump(v) for k, v in value.items()}
    if isinstance(value, Struct):
        return dump_record(value)
    return value


def dump_record(value: Struct) -> dict[str, object]:
    """A document record as a JSON object."""
    return {k: v if type(v) in _SCALARS else dump(v) for k, v in shallow(value).items()}


# How a class is written, worked out once per class: (attribute, JSON key, its `_Key`) in order;
# the key None for a computed one (a property named in JSON_ORDER).
_WRITERS: dict[type, tuple[tuple[str, str, _Key | None], ...]] = {}


def _writer(cls: type) -> tuple[tuple[str, str, _Key | None], ...]:
    found = _WRITERS.get(cls)
    if found is None:
        keys = keys_of(cls)
        steps: list[tuple[str, str, _Key | None]] = []
        for name in getattr(cls, "JSON_ORDER", None) or tuple(keys):
            k = keys.get(name)  # None: a computed key
            steps.append((name, (k.json if k is not None else None) or name, k))
        found = _WRITERS[cls] = tuple(steps)
    return found


def shallow(value: Struct) -> dict[str, object]:
    """`value`'s JSON object one level deep: its keys in order, each with the value written there, which may
    still be a record or a tuple of them (`dump` goes on into those; the JSON text writer asks for them in turn,
    so a report becomes text without a tree of dicts built first)."""
    out: dict[str, object] = {}
    _shallow_into(value, out)
    return out


def _shallow_into(value: Struct, out: dict[str, object]) -> None:
    for name, json_key, k in _writer(type(value)):
        item = getattr(value, name)
        if k is None or k is _PLAIN:  # a computed key, or one written as it is
            out[json_key] = item
        elif _omitted(k.omit, value, item):
            continue
        elif k.flatten:
            if item is not None:
                _shallow_into(item, out)
        elif k.shape == "pairs":
            out[json_key] = dict(item)
        elif k.shape == "one":
            out[json_key] = (item,)
        else:
            out[json_key] = item


def _omitted(omit: Omit, record: object, item: object) -> bool:
    if omit is None:
        return False
    if omit == "none":
        return item is None
    if omit == "empty":
        return not item
    condition, other = omit
    is_set = getattr(record, other) is not None
    return is_set if condition == "when" else not is_set


# --- reading ------------------------------------------------------------------------------


def load(cls: type[T], data: object, path: str = "") -> T:
    """A `cls` read from JSON data, every value checked as its type says; `Invalid` for the first that is not."""
    value: T = _load(data, cls, path)
    return value


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


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


@typing.no_type_check
def _load(value: object, hint: object, path: str) -> object:  # noqa: C901, PLR0911, PLR0912 - one branch per kind of type
    origin = get_origin(hint)
    if origin is Literal:
        options = get_args(hint)
        if value not in options or isinstance(value, bool) != any(isinstance(a, bool) for a in options):
            raise Invalid(path, f"expected one of {', '.join(str(a) for a in options)}, got {excerpt(value)}")
        return value
    if origin is Union or origin is types.UnionType:
        options = get_args(hint)
        if value is None and type(None) in options:
            return None
        errors: list[Invalid] = []
        if isinstance(value, dict):  # records: the one whose keys are there first, so its error is the one said
            options = tuple(sorted(options, key=lambda o: _missing_keys(o, value)))
        for option in options:
            if option is type(None):
                continue
            try:
                return _load(value, option, path)
            except Invalid as exc:
                errors.append(exc)
        if len(errors) == 1 or (errors and isinstance(value, dict)):
            raise errors[0]  # `int | None`: say what the int should have been
        raise Invalid(path, f"expected {_hint_text(hint)}, got {kind(value)} {excerpt(value)}")
    if origin is tuple or origin is list:
        if not isinstance(value, list | tuple):
            raise Invalid(path, f"expected a list, got {kind(value)} {excerpt(value)}")
        if len(value) > MAX_ITEMS:
            raise Invalid(path, f"expected at most {MAX_ITEMS:,} items, got {len(value):,}")
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(item, args[0], f"{path}[{i}]") for i, item in enumerate(value))
        if len(value) != len(args):
            raise Invalid(path, f"expected a list of {len(args)} items, got {len(value)}")
        return tuple(_load(item, arg, f"{path}[{i}]") for i, (item, arg) in enumerate(zip(value, args, strict=True)))
    if hint is type(None):
        if value is not None:
            raise Invalid(path, f"expected null, got {kind(value)} {excerpt(value)}")
        return None
    if hint is bool:
        if not isinstance(value, bool):
            raise Invalid(path, f"expected true or false, got {kind(value)} {excerpt(value)}")
        return value
    if hint is int:
        check_number(value, path, integer=True, minimum=1 if path.rsplit(".", 1)[-1] == "line" else None)
        return value
    if hint is float:
        check_number(value, path)
        return value
    if hint is str:
        check_text(value, path)
        return value
    if isinstance(hint, type) and issubclass(hint, Struct):
        if not isinstance(value, dict):
            raise Invalid(path, f"expected an object, got {kind(value)} {excerpt(value)}")
        return _record(hint, value, path)
    raise Invalid(path, f"no reading for a value of type {hint!r}")  # a new kind of field: add its branch above


@typing.no_type_check
def _record(cls: type, data: Mapping[str, object], path: str) -> object:
    hints = hints_of(cls)
    keys = keys_of(cls)
    required = _required(cls)
    kwargs: dict[str, object] = {}
    for field_name in cls.__struct_fields__:
        k = keys[field_name]
        hint = hints[field_name]
        if k.flatten:
            kwargs[field_name] = _flattened(hint, data, path)
            continue
        name = k.json or field_name
        where = _join(path, name)
        if name not in data:
            if field_name not in required:
                continue
            if k.omit is not None:  # left out when empty or None: read back as None
                kwargs[field_name] = None
                continue
            raise Invalid(where, f"missing key {name!r}")
        raw = data[name]
        if k.shape == "pairs":
            if not isinstance(raw, dict):
                raise Invalid(where, f"expected an object, got {kind(raw)} {excerpt(raw)}")
            raw = [[a, b] for a, b in raw.items()]
        elif k.shape == "one":
            if not isinstance(raw, list) or len(raw) != 1:
                raise Invalid(where, f"expected a list of one item, got {kind(raw)} {excerpt(raw)}")
            raw = raw[0]
        elif k.shape == "text" and isinstance(raw, str):
            raw = {"text": raw}
        kwargs[field_name] = _load(raw, hint, where)
        if k.url and kwargs[field_name] is not None and not HTTPS_URL.fullmatch(kwargs[field_name]):
            raise Invalid(
                where, f"expected an https URL (the page the rule rests on), got {excerpt(kwargs[field_name])}"
            )
    return cls(**kwargs)


@typing.no_type_check
def _flattened(hint: object, data: Mapping[str, object], path: str) -> object:
    """A record written into its parent's keys: the first option (of `X | Y | None`) whose first
    field's key is there; None when none is."""
    options = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    for option in options:
        if option is type(None):
            continue
        first = option.__struct_fields__[0]
        name = keys_of(option)[first].json or first
        if name in data:
            return _record(option, data, path)
    if type(None) in options:
        return None
    raise Invalid(path, f"expected the keys of {options[0].__name__}")


def _missing_keys(option: object, data: Mapping[str, object]) -> int:
    """How many keys a record type requires that `data` lacks (0 for a type that is no record)."""
    if not (isinstance(option, type) and issubclass(option, Struct)):
        return 0
    keys = keys_of(option)
    required = [keys[name].json or name for name in _required(option) if not keys[name].flatten]
    return sum(1 for name in required if name not in data)


def _required(cls: type[Struct]) -> tuple[str, ...]:
    """The fields of `cls` with no default (a record's defaults are those of its last fields)."""
    names = cls.__struct_fields__
    return names[: len(names) - len(cls.__struct_defaults__)]


_HINTS: dict[type, dict[str, object]] = {}
_KEYS: dict[type, dict[str, _Key]] = {}
_NAMESPACE: dict[str, object] = {}


def register(*classes: type, **names: type) -> None:
    """Names a type hint may use without its module importing it: classes by their name, and a
    name given to another class (the diff's `SideReport` is the `Report` that holds the diff)."""
    _NAMESPACE.update({c.__name__: c for c in classes}, **names)


_RESOLVERS: list[Callable[[], None]] = []


def resolves_names(resolver: Callable[[], None]) -> Callable[[], None]:
    """A function that `register`s the names a hint uses (the report's sections, loaded only when a
    report holds one): run the first time a hint names a type not registered yet."""
    _RESOLVERS.append(resolver)
    return resolver


def hints_of(cls: type) -> dict[str, object]:
    """The type of each of `cls`'s fields, resolved once (without its `key(...)`)."""
    if cls not in _HINTS:
        _resolve(cls)
    return _HINTS[cls]


def keys_of(cls: type) -> dict[str, _Key]:
    """How each of `cls`'s fields is written (its `key(...)`, or written as it is), worked out once."""
    if cls not in _KEYS:
        _resolve(cls)
    return _KEYS[cls]


def _resolve(cls: type) -> None:
    try:
        raw = typing.get_type_hints(cls, localns=_NAMESPACE, include_extras=True)
    except NameError:
        for resolver in _RESOLVERS:
            resolver()
        raw = typing.get_type_hints(cls, localns=_NAMESPACE, include_extras=True)
    hints: dict[str, object] = {}
    keys: dict[str, _Key] = {}
    for name in getattr(cls, "__struct_fields__", ()):
        hint, k = raw[name], _PLAIN
        if get_origin(hint) is Annotated:
            hint, *extras = get_args(hint)
            k = next((e for e in extras if isinstance(e, _Key)), _PLAIN)
        hints[name], keys[name] = hint, k
    _HINTS[cls], _KEYS[cls] = hints, keys


def _hint_text(hint: object) -> str:
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
