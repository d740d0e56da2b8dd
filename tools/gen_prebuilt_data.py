"""Write `planner/core/catalogue/prebuilt_data.py`: the shipped YAML data files as Python literals.

PyYAML takes about 60 ms to construct the shipped data (price book, catalogue, regions, ...)
on every `planner` start, more than planning the bundled stacks. The same values written as
Python literals are compiled to bytecode when the wheel is installed and load in about a
millisecond. The YAML files stay the source of truth: each function here is generated from
one of them and records the file's length and CRC-32, and `planner.core.reading.yaml_lines.load_data` reads
the YAML instead whenever the file beside it no longer matches (an edited checkout).
`tests/test_prebuilt_data.py` regenerates the module and fails when it drifts:
run `.venv/bin/python -m tools.gen_prebuilt_data` after editing a file in `planner/data/`.

Nothing is cached at run time: the module is part of the package, written by this generator
and reviewed like any other source file.
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
import zlib
from pathlib import Path
from typing import Any

import yaml

from planner.core.reading.yaml_lines import DATA_DIR  # the shipped data folder, as the loaders find it

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(DATA_DIR).resolve()
OUT = ROOT / "planner" / "core" / "catalogue" / "prebuilt_data.py"
_INDENT = "    "

_HEADER = '''# ruff: noqa
# fmt: off
"""The shipped data files of `planner/data/` as Python literals (GENERATED: do not edit).

Written by `python -m tools.gen_prebuilt_data` from the YAML files, which stay the source of
truth: `planner.core.reading.yaml_lines.load_data` uses a function here only while the file's length and
CRC-32 match the ones recorded in `FILES`, and reads the YAML otherwise. Each call builds
new objects, as parsing the file would, so callers may change what they get.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any
'''


def data_files() -> list[str]:
    """Every YAML file under planner/data/, relative and with forward slashes, sorted."""
    return sorted(p.relative_to(DATA).as_posix() for p in DATA.rglob("*.yaml"))


def fingerprint(text: bytes) -> tuple[int, int]:
    """(length, CRC-32) of a file's bytes: enough to notice an edited file (not a security check)."""
    return len(text), zlib.crc32(text)


def literal(value: Any, depth: int = 1) -> str:
    """`value` as Python source: one key or item per line, so a data change is a small diff."""
    pad, end = _INDENT * depth, _INDENT * (depth - 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = "".join(f"{pad}{literal(k, depth + 1)}: {literal(v, depth + 1)},\n" for k, v in value.items())
        return "{\n" + items + end + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + "".join(f"{pad}{literal(v, depth + 1)},\n" for v in value) + end + "]"
    if isinstance(value, _dt.datetime):
        raise TypeError(f"a timestamp ({value!r}) in shipped data; write dates as YYYY-MM-DD")
    if isinstance(value, _dt.date):
        return f"date({value.year}, {value.month}, {value.day})"
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise TypeError(f"a non-finite number ({value!r}) in shipped data")
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    raise TypeError(f"unexpected {type(value).__name__} in shipped data: {value!r}")


def function_name(relpath: str) -> str:
    """`prices/not-sold.yaml` -> `_prices_not_sold`."""
    stem = relpath.removesuffix(".yaml")
    return "_" + "".join(c if c.isalnum() else "_" for c in stem)


def render() -> str:
    """The module as committed (deterministic: files sorted, keys in file order)."""
    out = [_HEADER]
    table = []
    for rel in data_files():
        raw = (DATA / rel).read_bytes()
        value = yaml.load(raw.decode("utf-8"), Loader=yaml.CSafeLoader)  # noqa: S506 - a safe loader
        name = function_name(rel)
        size, crc = fingerprint(raw)
        out.append(f"\n\ndef {name}() -> Any:\n{_INDENT}return {literal(value, 2)}\n")
        table.append(f"{_INDENT}{rel!r}: ({size}, {crc}, {name}),\n")
    out.append("\n\n# file under planner/data/ -> (length in bytes, CRC-32, its values)\n")
    out.append("FILES: dict[str, tuple[int, int, Callable[[], Any]]] = {\n" + "".join(table) + "}\n")
    return "".join(out)


def main() -> int:
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {os.path.relpath(OUT, ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
