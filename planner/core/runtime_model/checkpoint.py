"""Checkpoint writes to the cluster's FSx for Lustre file system, amortised over the steps between them.

A checkpoint holds what a restart needs: BF16 weights plus the FP32 master weights and Adam's two
moments (2 + 12 bytes per parameter). Written synchronously (the training waits), it costs its
bytes over the file system's throughput (capacity x per-unit throughput, AWS FSx for Lustre
performance page), once per interval.
"""

from __future__ import annotations

from msgspec.structs import replace

from planner.core.model.transformer import Transformer
from planner.core.runtime_model.step import ADAM_STATE_BYTES, Prediction

CHECKPOINT_BYTES_PER_PARAMETER = 2 + ADAM_STATE_BYTES


def write_seconds(model: Transformer, throughput_mb_s: float) -> float:
    """Seconds to write one checkpoint at `throughput_mb_s` (MB/s, 10^6 bytes)."""
    return model.total_params() * CHECKPOINT_BYTES_PER_PARAMETER / (throughput_mb_s * 1e6)


def with_checkpoints(p: Prediction, write: float, interval_seconds: float) -> Prediction:
    """`p` with one write of `write` seconds every `interval_seconds` of training, spread over its steps."""
    b = p.breakdown
    per_step = (b.step - b.checkpoint) * write / interval_seconds
    breakdown = replace(b, checkpoint=per_step)
    tokens = p.tokens_per_second * b.step / breakdown.step
    return replace(p, breakdown=breakdown, tokens_per_second=tokens, mfu=p.mfu * b.step / breakdown.step)
