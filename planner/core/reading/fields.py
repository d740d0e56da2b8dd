"""Reading a mapping tree against a table of fields, collecting every problem, one line each.

The stack parser (`planner.core.input.stack_files`, its `SCHEMA`) and the price book reader
(`planner.core.cost.book`) both read user YAML through `Reader`, so both name a bad key the same
way (`planner:cluster.node_groups[0].count`, with its line) and accept numbers, booleans and
choices alike. `key_path` is how findings and problems spell a key path.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from msgspec import Struct

from planner.core.reading.problems import Problem
from planner.core.reading.yaml_lines import Lines, Path, line_of
from planner.core.text.safe import escape_char, first_control, one_line

_REGION = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d$", re.ASCII)
_NUMBER = re.compile(r"^[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?$", re.ASCII)
REGION = _REGION  # an AWS region name's shape
NUMBER = _NUMBER  # a number written as a string
MAX_MAGNITUDE = 1e30  # parameters, tokens, any other positive number
_one_line = one_line  # one problem, one line (planner.core.text)

SHOWN_CHARS = 24  # at most this much of a wrong value is echoed: enough to spot a typo, not to leak a secret


def _kind(v: Any, echo: bool = True) -> str:
    """What a wrong value is, for a message. `echo=False` for values that may not be ours
    (a whole file that is not a mapping: a symlink to a token, a key file)."""
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return f"boolean {str(v).lower()}"
    if isinstance(v, int) and abs(v) >= 10**20:
        return f"a {len(str(abs(v)))}-digit integer"
    if isinstance(v, (int, float)):
        return f"{v!r}" if echo else "a number"
    if isinstance(v, str):
        if not echo:
            return "a string"
        shown = v if len(v) <= SHOWN_CHARS else v[: SHOWN_CHARS - 3] + "..."
        return f"'{shown}'".encode("unicode_escape").decode("ascii")
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a mapping"
    return type(v).__name__


def _closest(word: str, options: Iterable[str]) -> str:
    import difflib

    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.75)
    return f" (did you mean '{match[0]}'?)" if match else ""


kind = _kind
closest = _closest


def key_path(path: Path) -> str:
    """`planner:cluster.node_groups[0].count`: a key path as written under `config:` (or `config` itself);
    a very long key is shortened, as messages show it."""
    if path == ("config",):
        return "config"
    out = ""
    for part in path[1:] if path and path[0] == "config" else path:
        text = str(part) if len(str(part)) <= 2 * SHOWN_CHARS else str(part)[: 2 * SHOWN_CHARS - 3] + "..."
        out += f"[{part}]" if isinstance(part, int) and not isinstance(part, bool) else (f".{text}" if out else text)
    return out


class Field(Struct, frozen=True):
    """One key of the stack schema: how it is read, and the text editors show for it."""

    kind: str  # string | boolean | positive_int | positive_number | choice | pattern | mapping | list
    doc: str
    options: tuple[str, ...] = ()  # choice: the accepted values
    pattern: re.Pattern[str] | None = None  # pattern: what the value must match
    what: str = ""  # pattern: the expected value, as error messages say it
    default: Any = None  # applied when the key is absent
    maximum: float | None = None  # positive_number/positive_int: the largest value accepted (`what` says the range)
    minimum: float | None = None  # positive_number: the smallest value accepted (`what` says the range)
    of: str = ""  # mapping / list: the name of the nested table in the schema
    many: bool = False  # pattern: one value, or a non-empty list of distinct ones (read as a tuple)


class Table(Struct, frozen=True):
    """The keys a mapping accepts, from which the parser reads and the editor schema is generated."""

    doc: str
    fields: dict[str, Field]
    required: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self.fields)


class Reader:
    """Collects problems while reading one mapping tree, so the user sees all of them."""

    def __init__(self, file: str, lines: Lines, schema: Mapping[str, Table] | None = None):
        self.file = file
        self.lines = lines
        self.schema: Mapping[str, Table] = schema or {}
        self.problems: list[Problem] = []

    def key(self, path: Path) -> str:
        """`planner:cluster.node_groups[0].count`: the key as written under `config:` (or `config` itself)."""
        return key_path(path)

    def fail(self, path: Path, message: str) -> None:
        self.problems.append(
            Problem(self.file, line_of(self.lines, path), _one_line(self.key(path)), _one_line(message))
        )

    def mapping(
        self, value: Any, path: Path, allowed: Iterable[str], required: Iterable[str] = ()
    ) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            # the document itself (or `config`) not a mapping: it may be any file, so show no part of it
            self.fail(path, f"expected a mapping, got {_kind(value, echo=len(path) > 1)}")
            return None
        allowed = tuple(allowed)
        for k in value:
            if k not in allowed:
                hint = _closest(str(k), allowed)
                self.fail(path + (k,), f"unknown key{hint}; expected one of: {', '.join(allowed)}")
        for k in required:
            if k not in value or value[k] is None:
                self.fail(path, f"missing required key '{k}'")
        return value

    def get(self, m: dict[str, Any], k: str, path: Path, conv: Callable[[Any, Path], Any], default: Any = None) -> Any:
        """`m[k]` converted; `default` when the key is absent. A key written without a value
        (`count:`) is a type error, not "absent": it would silently drop what it declares."""
        if k not in m:
            return default
        return conv(m[k], path + (k,))

    def table(self, value: Any, path: Path, name: str) -> dict[str, Any] | None:
        """`value` as the mapping self.schema[name] describes: unknown and missing keys are problems."""
        t = self.schema[name]
        return self.mapping(value, path, t.keys, t.required)

    def field(self, m: dict[str, Any], name: str, k: str, path: Path) -> Any:
        """Key `k` of a mapping read through its self.schema[name] field (its converter and default)."""
        f = self.schema[name].fields[k]
        conv = self.converter(f)
        value = self.get(m, k, path, self.one_or_list(conv, f.what) if f.many else conv, f.default)
        if f.maximum is not None and value is not None and value > f.maximum:
            self.fail(path + (k,), f"expected {f.what}, got {value!r}")
            return None
        if f.minimum is not None and value is not None and value < f.minimum:
            self.fail(path + (k,), f"expected {f.what}, got {value!r}")
            return None
        return value

    def converter(self, f: Field) -> Callable[[Any, Path], Any]:
        if f.kind == "choice":
            return self.choice(f.options)
        if f.kind == "pattern":
            assert f.pattern is not None
            return self.pattern(f.pattern, f.what)
        if f.kind in ("string", "boolean", "positive_int", "positive_number"):
            named: Callable[[Any, Path], Any] = getattr(self, f.kind)
            return named
        raise ValueError(f"field kind {f.kind!r} is read by its own code, not by a converter")

    def one_or_list(self, conv: Callable[[Any, Path], Any], what: str) -> Callable[[Any, Path], tuple[Any, ...] | None]:
        """A field that takes one value or a list of them (`capacity_reservation_id: cr-...` or
        `[cr-..., cr-...]`): read as a tuple either way; an empty list or a repeated value is a problem."""

        def read(v: Any, path: Path) -> tuple[Any, ...] | None:
            if not isinstance(v, list):
                one = conv(v, path)
                return None if one is None else (one,)
            if not v:
                self.fail(path, f"expected {what}, or a non-empty list of them, got an empty list")
                return None
            out = [conv(item, path + (i,)) for i, item in enumerate(v)]
            if any(x is None for x in out):
                return None
            for i, x in enumerate(out):
                if x in out[:i]:
                    self.fail(path + (i,), f"repeats {_kind(x)} (also [{out.index(x)}]); expected each value once")
                    return None
            return tuple(out)

        return read

    # --- converters: return a value, or record a problem and return None -------------
    def string(self, v: Any, path: Path) -> str | None:
        if isinstance(v, str) and v.strip():
            return self.printable(v, path)
        self.fail(path, f"expected a non-empty string, got {_kind(v)}")
        return None

    def printable(self, v: str, path: Path) -> str | None:
        """`v`, unless it holds a control character, a line separator or a bidi override.

        Every string the schema accepts ends up in a report (a PR comment, an annotation,
        a terminal): a line break there forges lines, a bidi override reorders them.
        """
        bad = first_control(v)
        if bad is None:
            return v
        self.fail(path, f"contains the control character {escape_char(bad)}; expected printable text on one line")
        return None

    def boolean(self, v: Any, path: Path) -> bool | None:
        if isinstance(v, bool):
            return v
        if isinstance(v, str) and v.lower() in ("true", "false"):
            return v.lower() == "true"
        self.fail(path, f"expected true or false, got {_kind(v)}")
        return None

    def positive_int(self, v: Any, path: Path) -> int | None:
        if isinstance(v, str) and _NUMBER.fullmatch(v.strip()):
            try:
                f = float(v.replace("_", ""))
                v = int(f) if f.is_integer() and abs(f) < 1e18 else v
            except (ValueError, OverflowError):
                pass
        if isinstance(v, float) and v.is_integer() and abs(v) < 1e18:
            v = int(v)
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 10**9:
            return v
        if isinstance(v, int) and not isinstance(v, bool) and v > 10**9:
            self.fail(path, f"expected a positive integer up to 1,000,000,000, got {v}")
        else:
            self.fail(path, f"expected a positive integer, got {_kind(v)}")
        return None

    def positive_number(self, v: Any, path: Path) -> float | None:
        if isinstance(v, str) and _NUMBER.fullmatch(v.strip()):
            try:
                v = float(v.replace("_", ""))
            except (ValueError, OverflowError):
                pass
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_MAGNITUDE:
            v = float(MAX_MAGNITUDE) * 10  # a 400-digit integer is out of range, not an OverflowError
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 < v <= MAX_MAGNITUDE:
            return float(v)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > MAX_MAGNITUDE:
            self.fail(path, f"expected a positive number up to {MAX_MAGNITUDE:g}, got {_kind(v)}")
            return None
        self.fail(path, f"expected a positive number, got {_kind(v)}")
        return None

    def choice(self, options: tuple[str, ...]) -> Callable[[Any, Path], str | None]:
        def conv(v: Any, path: Path) -> str | None:
            if isinstance(v, str) and v in options:
                return v
            hint = _closest(str(v), options) if isinstance(v, str) else ""
            self.fail(path, f"expected one of {', '.join(options)}, got {_kind(v)}{hint}")
            return None

        return conv

    def pattern(self, rx: re.Pattern[str], what: str) -> Callable[[Any, Path], str | None]:
        def conv(v: Any, path: Path) -> str | None:
            if isinstance(v, str) and rx.fullmatch(v):
                return self.printable(v, path)
            self.fail(path, f"expected {what}, got {_kind(v)}")
            return None

        return conv


def edits(a: str, b: str) -> int:
    """Edit distance with adjacent swaps counted once (optimal string alignment): region names differ
    by a letter or two, or two letters swapped (us-esat-2), which difflib's ratio ranks poorly."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]
