"""Write `planner/data/prebuilt/`: the shipped YAML data files as JSON, one file each.

PyYAML takes about 60 ms to construct the shipped data (price book, catalogue, regions, ...)
on every `planner` start, more than planning the bundled stacks; the C JSON parser builds the
same values in about a millisecond. The YAML files stay the source of truth: each JSON file is
generated from one of them, its first line records the YAML file's length and CRC-32, and
`planner.core.catalogue.shipped_data.raw` reads the YAML instead whenever the file beside it no
longer matches (an edited checkout). The rest of the file is the value, indented, so a data
change is a small diff; a YAML date is `{"$date": "YYYY-MM-DD"}` (JSON has no dates) and a
mapping with numbers for keys `{"$pairs": [[key, value], ...]}` (JSON keys are text).
`tests/test_prebuilt_data.py` regenerates the files and fails when they drift: run
`.venv/bin/python -m tools.gen_prebuilt_data` after editing a file in `planner/data/`.

Data, not code: nothing generated here is imported or executed, and nothing is cached at run time.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import sys
import zlib
from pathlib import Path
from typing import Any

import yaml

from planner.core.reading.yaml_lines import DATA_DIR  # the shipped data folder, as the loaders find it

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(DATA_DIR).resolve()
OUT = DATA / "prebuilt"
DATE = "$date"  # the one key of an object that stands for a date
PAIRS = "$pairs"  # the one key of an object that stands for a mapping with keys that are not text (FSx throughputs)


def data_files() -> list[str]:
    """Every YAML file under planner/data/, relative and with forward slashes, sorted."""
    return sorted(p.relative_to(DATA).as_posix() for p in DATA.rglob("*.yaml"))


def fingerprint(text: bytes) -> tuple[int, int]:
    """(length, CRC-32) of a file's bytes: enough to notice an edited file (not a security check)."""
    return len(text), zlib.crc32(text)


def plain(value: Any) -> Any:
    """`value` as JSON can hold it: dates as `{"$date": ...}`; refuses what the data must not hold."""
    if isinstance(value, dict):
        if DATE in value or PAIRS in value:
            raise TypeError(f"a key {DATE!r} or {PAIRS!r} in shipped data: they have a meaning in the prebuilt files")
        if all(isinstance(k, str) for k in value):
            return {k: plain(v) for k, v in value.items()}
        return {PAIRS: [[_key(k), plain(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, _dt.datetime):
        raise TypeError(f"a timestamp ({value!r}) in shipped data; write dates as YYYY-MM-DD")
    if isinstance(value, _dt.date):
        return {DATE: value.isoformat()}
    if isinstance(value, float) and not math.isfinite(value):
        raise TypeError(f"a non-finite number ({value!r}) in shipped data")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"unexpected {type(value).__name__} in shipped data: {value!r}")


def _key(k: Any) -> Any:
    """A mapping key that is not text: a number (JSON keeps its type inside `$pairs`), or refused."""
    if isinstance(k, bool) or not isinstance(k, (int, float, str)):
        raise TypeError(f"a key of type {type(k).__name__} ({k!r}) in shipped data")
    return k


def target(relpath: str) -> Path:
    """`prices/current.yaml` -> `planner/data/prebuilt/prices/current.yaml.json`."""
    return OUT / f"{relpath}.json"


def render(relpath: str) -> str:
    """The prebuilt file of `relpath` as committed: its fingerprint line, then its value."""
    raw = (DATA / relpath).read_bytes()
    value = yaml.load(raw.decode("utf-8"), Loader=yaml.CSafeLoader)  # noqa: S506 - a safe loader
    size, crc = fingerprint(raw)
    head = json.dumps({"source": relpath, "length": size, "crc32": crc})
    return head + "\n" + json.dumps(plain(value), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def main() -> int:
    wanted = {target(rel): render(rel) for rel in data_files()}
    for old in OUT.rglob("*.json") if OUT.exists() else ():
        if old not in wanted:
            old.unlink()
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(wanted)} files to {os.path.relpath(OUT, ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
