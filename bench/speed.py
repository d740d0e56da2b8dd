"""The start-up and per-stack targets: the installed wheel within 2x what its imports alone cost
(`python -c "import yaml, argparse, dataclasses, typing"` in the same virtualenv: the floor no
Python command line with typed records can go below), and in-process planning with
`--format json` at most 0.6 ms a stack.

Kept apart from `bench.run` (which calls these) so that each measurement's targets, results
and table rows are read in one place.
"""

from __future__ import annotations

from typing import Any

from bench.timing import Sample
from bench.wheel import DEPENDENCIES, STANDARD_LIBRARY

WHEEL_RATIO_MAX = 2.0  # `planner plan stacks` from the installed wheel, over its imports alone (`DEPENDENCIES`)
JSON_PER_STACK_MAX_MS = 0.6  # in-process `planner plan DIR --format json`, 1,000 stacks, per stack


def target(id_: str, what: str, measured: Any, limit: str, ok: bool | None) -> dict[str, Any]:
    """One judged target of results.json: `ok` None when it could not be measured."""
    return {
        "id": id_,
        "target": what,
        "measured": measured,
        "limit": limit,
        "result": "n/a" if ok is None else ("pass" if ok else "FAIL"),
    }


def targets(wheel: dict[str, Sample] | None, json_inproc: Sample | None, stacks: int) -> list[dict[str, Any]]:
    """The wheel start-up ratio and the JSON time per stack, for what was measured."""
    out = []
    if wheel:
        ratio = wheel["wheel-bundled"].median / wheel["wheel-dependencies"].median
        out.append(
            target(
                "wheel-startup-ratio",
                f"bundled-stack plan, installed wheel in a fresh virtualenv, within "
                f'{WHEEL_RATIO_MAX:g}x its `python -c "{DEPENDENCIES}"`',
                round(ratio, 2),
                f"<= {WHEEL_RATIO_MAX}",
                ratio <= WHEEL_RATIO_MAX and set(wheel["wheel-bundled"].exit_codes) <= {0, 1},
            )
        )
    if json_inproc is not None:
        ms = json_inproc.median / stacks * 1000
        out.append(
            target(
                "json-per-stack",
                f"in-process `planner plan --format json`, {stacks:,} stacks: time per stack",
                round(ms, 3),
                f"<= {JSON_PER_STACK_MAX_MS} ms",
                ms <= JSON_PER_STACK_MAX_MS and set(json_inproc.exit_codes) <= {0, 1},
            )
        )
    return out


def results(wheel: dict[str, Sample] | None, json_inproc: Sample | None, stacks: int) -> dict[str, Any]:
    """What results.json holds of these measurements."""
    out: dict[str, Any] = {}
    if wheel:
        out["wheel_startup"] = {
            "how": "the wheel built offline, installed with --no-deps into a fresh virtualenv with PyYAML; bytecode "
            "compiled; no PYTHONDONTWRITEBYTECODE, PYTHONPYCACHEPREFIX or PYTHONPATH; the `planner` script",
            "floor_python_c_pass": wheel["wheel-floor"].to_json(),
            "bundled_plan": wheel["wheel-bundled"].to_json(),
            "bundled_plan_json": wheel["wheel-bundled-json"].to_json(),
            **{k: wheel[f"wheel-{k}"].to_json() for k in ("yaml", "stdlib", "dependencies") if f"wheel-{k}" in wheel},
            "ratio_to_floor": round(wheel["wheel-bundled"].median / wheel["wheel-floor"].median, 2),
            "ratio_to_imports": round(wheel["wheel-bundled"].median / wheel["wheel-dependencies"].median, 2),
        }
    if json_inproc is not None:
        out["json_in_process"] = {
            "stacks": stacks,
            "in_process": json_inproc.to_json(),
            "per_stack_ms": round(json_inproc.median / stacks * 1000, 3),
        }
    return out


def rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Table rows (measurement, seconds, notes) for what `results` wrote."""
    out = []
    w = r.get("wheel_startup")
    if w:
        floor = w["floor_python_c_pass"]["median_s"]
        out.append(("installed wheel: python -c pass (floor)", f"{floor:.3f}", "fresh virtualenv"))
        out += [
            (
                f"installed wheel: python -c '{code}'",
                f"{w[k]['median_s']:.3f}",
                f"{round(w[k]['median_s'] / floor, 2)}x floor",
            )
            for k, code in (("yaml", "import yaml"), ("stdlib", STANDARD_LIBRARY), ("dependencies", DEPENDENCIES))
            if k in w
        ]
        out += [
            (
                "installed wheel: planner plan stacks",
                f"{w['bundled_plan']['median_s']:.3f}",
                f"{w['ratio_to_floor']}x floor, {w['ratio_to_imports']}x the imports",
            ),
            (
                "installed wheel: planner plan stacks --format json",
                f"{w['bundled_plan_json']['median_s']:.3f}",
                f"{round(w['bundled_plan_json']['median_s'] / floor, 2)}x floor",
            ),
        ]
    j = r.get("json_in_process")
    if j:
        out.append(
            (
                f"planner plan --format json: {j['stacks']:,} generated stacks, in-process",
                f"{j['in_process']['median_s']:.3f}",
                f"{j['per_stack_ms']:.2f} ms per stack",
            )
        )
    return out
