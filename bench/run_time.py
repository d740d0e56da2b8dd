"""The step-time model's speed: one prediction (the layout search for one model on one cluster) under
5 ms, and `planner compare --model` over every training type, with the counts a deadline needs, under
1 s as a whole process.

A prediction is timed in process, its best of `runs` (the search is deterministic, so the fastest
run is the one least disturbed by a shared machine), for every preset on four clusters: 16 p5en,
four Trn2 UltraServers, 128 p5 and 64 p6-b200. Dense models search a few hundred layouts; MoE models
up to a thousand (every expert-parallel size), so they are reported apart.
"""

from __future__ import annotations

import time
from typing import Any

from msgspec.structs import replace

from bench.speed import target
from bench.timing import Sample, python, side_by_side

PREDICTION_MAX_MS = 5.0
COMPARE_MAX_S = 1.0
CLUSTERS = (
    ("p5en.48xlarge", 16, None),
    ("trn2u.48xlarge", 16, "u-trn2x64"),
    ("p5.48xlarge", 128, None),
    ("p6-b200.48xlarge", 64, None),
)
COMPARE_MODELS = ("llama3-70b", "deepseek-v3")


def predictions(runs: int) -> dict[str, dict[str, float]]:
    """Milliseconds of one prediction, per preset and cluster (best of `runs`)."""
    from planner.core.catalogue.model_configs import presets
    from planner.core.runtime_model.run_prediction import estimate
    from planner.core.runtime_model.step import Run

    run = Run(4096, 1024)
    estimate(presets()["llama3-8b"], "p5.48xlarge", 1, run, 1e9)  # data loaded once, outside the timing
    out: dict[str, dict[str, float]] = {}
    for name, model in presets().items():
        per: dict[str, float] = {}
        for instance_type, n, ultra in CLUSTERS:
            best = float("inf")
            for _ in range(max(1, runs)):
                fresh = replace(model)  # a new record: nothing the last search cached on the model
                start = time.perf_counter()
                estimate(fresh, instance_type, n, run, 2e12, ultra)
                best = min(best, time.perf_counter() - start)
            per[f"{n} x {instance_type}" + (f" ({ultra})" if ultra else "")] = round(best * 1000, 2)
        out[name] = per
    return out


def compare_processes(runs: int, env: dict[str, str]) -> dict[str, Sample]:
    """`planner compare --model M --tokens 2e12 --deadline-hours 720` over every type, whole processes."""
    commands = {
        m: python(
            "-m",
            "planner",
            "compare",
            "--model",
            m,
            "--tokens",
            "2e12",
            "--deadline-hours",
            "720",
            "--region",
            "us-east-1",
            "--format",
            "json",
        )  # fmt: skip
        for m in COMPARE_MODELS
    }
    return side_by_side(commands, runs, env)


def targets(found: dict[str, Any]) -> list[dict[str, Any]]:
    from planner.core.catalogue.model_configs import presets

    pred = found["prediction_ms"]
    dense = [ms for name, per in pred.items() if not presets()[name].moe for ms in per.values()]
    moe = [ms for name, per in pred.items() if presets()[name].moe for ms in per.values()]
    slowest = max(found["compare_s"].values())
    return [
        target(
            "prediction-dense",
            "one run-time prediction (layout search), dense presets on 4 clusters: slowest",
            max(dense),
            f"<= {PREDICTION_MAX_MS} ms",
            max(dense) <= PREDICTION_MAX_MS,
        ),
        target(
            "prediction-moe",
            "one run-time prediction (layout search), MoE presets on 4 clusters: slowest",
            max(moe),
            f"<= {PREDICTION_MAX_MS} ms",
            max(moe) <= PREDICTION_MAX_MS,
        ),
        target(
            "compare-model",
            f"`planner compare --model` over every type with a deadline ({', '.join(COMPARE_MODELS)}): slowest "
            "(whole process)",
            round(slowest, 3),
            f"<= {COMPARE_MAX_S} s",
            slowest <= COMPARE_MAX_S,
        ),
    ]


def measure(runs: int, env: dict[str, str]) -> dict[str, Any]:
    processes = compare_processes(runs, env)
    return {
        "prediction_ms": predictions(runs),
        "compare_s": {m: round(s.median, 3) for m, s in processes.items()},
        "compare": {m: s.to_json() for m, s in processes.items()},
    }
