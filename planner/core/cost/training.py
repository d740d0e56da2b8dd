"""How long a training run takes: 6 x parameters x tokens FLOPs at a fraction (MFU) of dense peak.

Kaplan et al. (2020) and Chinchilla (2022) put training compute at ~6 N D FLOPs. Only
dense peaks are used: sparse FP8 figures (headline figures such as 5.2 PFLOPS per Trainium2 or 3.96 per
H200) assume structured zeros that dense training does not have.
"""

from __future__ import annotations

import math

from planner.core.catalogue.instance_types import InstanceType

PEAK_KEY = {"bf16": "bf16_dense", "fp8": "fp8_dense"}
FLOPS_PER_PARAMETER_TOKEN = 6
SECONDS_PER_HOUR = 3600
PFLOPS = 1e15


def training_flops(parameters: float, tokens: float) -> float:
    return FLOPS_PER_PARAMETER_TOKEN * parameters * tokens


def run_hours(parameters: float, tokens: float, peak_pflops: float, mfu: float) -> float:
    """Hours to train on hardware whose dense peak (all instances together) is `peak_pflops`."""
    return hours_for_flops(training_flops(parameters, tokens), peak_pflops, mfu)


def hours_for_flops(flops: float, peak_pflops: float, mfu: float) -> float:
    """Hours to compute `flops` at a fraction `mfu` of `peak_pflops`."""
    return flops / (peak_pflops * PFLOPS * mfu) / SECONDS_PER_HOUR


def dense_peak(t: InstanceType, precision: str) -> float | None:
    """Dense peak PFLOPS of one instance at a workload precision (bf16 | fp8)."""
    return t.peak_pflops(PEAK_KEY[precision])


def count_for_deadline(flops: float, per_instance_pflops: float, mfu: float, hours: float, unit: int = 1) -> int:
    """The fewest instances (a multiple of `unit`) that compute `flops` within `hours`."""
    needed = flops / (per_instance_pflops * PFLOPS * mfu * SECONDS_PER_HOUR * hours)
    n = max(1, math.ceil(needed - 1e-9))
    return math.ceil(n / unit) * unit
