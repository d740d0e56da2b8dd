"""Machine output: stable key order and formatting so PR diffs of it are meaningful."""

from __future__ import annotations

import json
from typing import Any, Iterable

from planner.pipeline import StackPlan

VERSION = 1


def dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def render(plans: Iterable[StackPlan]) -> str:
    return dumps({"version": VERSION, "stacks": [p.to_json() for p in plans]})
