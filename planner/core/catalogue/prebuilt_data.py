# ruff: noqa
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


# file under planner/data/ -> (length in bytes, CRC-32, its values)
FILES: dict[str, tuple[int, int, Callable[[], Any]]] = {
}
