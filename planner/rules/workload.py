"""Does the declared workload fit the cluster: its training state in memory, its checkpoints on Lustre.

Bytes per parameter for mixed-precision training with Adam, from the ZeRO paper (Rajbhandari
et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
arXiv:1910.02054, section 3.1): 2 bytes of 16-bit weights + 2 of 16-bit gradients + 12 of
optimizer state (32-bit master weights, momentum, variance) = 16 bytes. A checkpoint keeps
the weights and the optimizer state, not the gradients: 14 bytes.
"""

from __future__ import annotations

from typing import Iterator

from planner.findings import Finding
from planner.rules import Rule, RuleContext, rule
from planner.rules.lustre import aggregate_throughput_mbps, per_unit_throughput

ZERO_PAPER = "https://arxiv.org/abs/1910.02054"
TRAINING_STATE_BYTES_PER_PARAM = 16  # weights 2 + gradients 2 + Adam state 12 (ZeRO, mixed precision)
CHECKPOINT_BYTES_PER_PARAM = 14  # weights 2 + Adam state 12
CHECKPOINT_MAX_MINUTES = 15.0  # default threshold; `workload.checkpoint_max_minutes` overrides it
GIB = 2**30
MB = 10**6  # FSx throughput is in MB/s (decimal)


@rule(
    id="lustre-checkpoint-time",
    severity="warning",
    category="workload",
    description=(f"Writing one full checkpoint ({CHECKPOINT_BYTES_PER_PARAM} bytes per parameter: weights and Adam state, ZeRO paper) "
                 f"at the Lustre file system's aggregate throughput takes longer than `workload.checkpoint_max_minutes` "
                 f"(default {CHECKPOINT_MAX_MINUTES:g})."),
    source=ZERO_PAPER,
    remediation="Raise `per_unit_storage_throughput` or `storage_capacity_gib` (throughput = TiB x MB/s/TiB), or checkpoint asynchronously.",
)
def checkpoint_time(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    w, fs = ctx.cluster.workload, ctx.cluster.lustre
    if w is None or fs is None:
        return
    mbps = aggregate_throughput_mbps(fs)
    if not mbps:
        return  # lustre-throughput reports the missing or invalid throughput
    limit = w.checkpoint_max_minutes or CHECKPOINT_MAX_MINUTES
    size = w.parameters * CHECKPOINT_BYTES_PER_PARAM
    minutes = size / (mbps * MB) / 60
    if minutes > limit:
        yield r.finding(
            ctx, w.path + ("parameters",),
            f"one checkpoint of {w.parameters:,.0f} parameters x {CHECKPOINT_BYTES_PER_PARAM} bytes = {size / 1e9:,.0f} GB "
            f"takes {minutes:,.1f} minutes at {mbps:,.0f} MB/s ({fs.storage_capacity_gib:,} GiB x "
            f"{per_unit_throughput(fs)} MB/s/TiB); the limit is {limit:g} minutes",
        )


@rule(
    id="workload-memory",
    severity="warning",
    category="workload",
    description=(f"The training state ({TRAINING_STATE_BYTES_PER_PARAM} bytes per parameter for mixed-precision Adam, ZeRO paper) "
                 "does not fit in the cluster's accelerator memory, even fully sharded."),
    source=ZERO_PAPER,
    remediation="Add instances, use a type with more accelerator memory, or plan for offloading state to host memory or NVMe (much slower).",
)
def memory(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    w = ctx.cluster.workload
    if w is None:
        return
    have = sum(g.count * ctx.catalogue.instance_types[g.instance_type].accelerator_memory_gib for g in ctx.cluster.node_groups)
    need = w.parameters * TRAINING_STATE_BYTES_PER_PARAM / GIB
    if need > have:
        yield r.finding(
            ctx, w.path + ("parameters",),
            f"{w.parameters:,.0f} parameters x {TRAINING_STATE_BYTES_PER_PARAM} bytes = {need:,.0f} GiB of training state "
            f"(before activations) but the cluster has {have:,.0f} GiB of accelerator memory",
        )
