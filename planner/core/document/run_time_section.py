"""The run time a workload's model predicts on a cluster: the step, its parallel layout and where
its seconds go, the error band, and what the declared topology changes (`planner.core.runtime_model`).

A stack whose workload names a model carries one (`StackReport.run_time`); so does each `compare`
candidate asked with `--model`. Figures are as the producer rounded them: the model is good to
about ten percent, so more digits would only make diffs noisy.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Struct

from planner.core.document.codec import key


class ParallelLayout(Struct, frozen=True):
    """Megatron-style sizes: tensor, pipeline (with `vp` interleaved stages), data, context and expert
    parallelism; the micro-batch in sequences; fully sharded data parallelism; how much is recomputed."""

    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    vp: int
    micro_batch: int
    fsdp: bool
    recompute: str  # "none", "selective", or the share of layers recomputed whole ("0.25 of layers")
    # MoE only: tokens sent to their experts by one fused kernel (HybridEP, inside an NVL72 domain), and
    # the expert all-to-all hidden behind another micro-batch's compute (Megatron's moe_a2a_overlap)
    fused_dispatch: Annotated[bool, key(omit="empty")] = False
    a2a_overlap: Annotated[bool, key(omit="empty")] = False


class StepBreakdown(Struct, frozen=True):
    """Seconds of one optimizer step by where they go (they add up to the step)."""

    compute: float
    recompute: float
    exposed_communication: float
    bubble: float
    optimizer: float
    checkpoint: float


class RunTimePrediction(Struct, frozen=True):
    """The predicted training speed on one cluster, the run's hours for its tokens, and the error band:
    the leave-one-out median error of the calibration (docs/runtime-model.md)."""

    tokens_per_second: float  # the cluster's, not per accelerator
    step_seconds: float
    mfu: float
    run_hours: float
    layout: ParallelLayout
    breakdown_seconds: StepBreakdown
    error_band: float  # relative, +/-
    # the references whose constants the figure rests on, when none is measured on this accelerator
    extrapolated_from: Annotated[tuple[str, ...], key(omit="empty")] = ()


class RunTimeReport(Struct, frozen=True):
    """A stack's predicted run: the model and run asked, the node groups it trains on, the prediction
    (None when the model fits no layout there, `unfit` says why) and what the topology changes."""

    model: str
    model_source: str
    tokens: float
    sequence_length: int
    global_batch_tokens: int
    precision: str
    trained_on: str  # "16 x p5en.48xlarge (node group 'gpu')"
    prediction: Annotated[RunTimePrediction | None, key(omit="none")] = None
    unfit: Annotated[str | None, key(omit="none")] = None
    notes: tuple[str, ...] = ()
    # the stack's own limits, drawn on the comment's chart: schedule.hours and budget.total_usd
    schedule_hours: Annotated[float | None, key(omit="none")] = None
    budget_usd: Annotated[float | None, key(omit="none")] = None
