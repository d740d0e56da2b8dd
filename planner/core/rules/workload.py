"""Does the declared workload fit the cluster: its training state in memory, its checkpoints on Lustre.

Bytes per parameter for mixed-precision training with Adam, from the ZeRO paper (Rajbhandari
et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
arXiv:1910.02054, section 3.1): 2 bytes of 16-bit weights + 2 of 16-bit gradients + 12 of
optimizer state (32-bit master weights, momentum, variance) = 16 bytes. A checkpoint keeps
the weights and the optimizer state, not the gradients: 14 bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from planner.core.catalogue.lustre_deployments import (
    aggregate_throughput_mbps,
    deployment_types,
    intelligent_tiering,
    per_unit_throughput,
)
from planner.core.model.cluster import Lustre, NodeGroup
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Edit, Fix, Rule, RuleContext, outside, rule, set_to

if TYPE_CHECKING:
    from planner.core.runtime_model.cluster_run import ClusterRun

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
    description=(
        f"Writing one full checkpoint ({CHECKPOINT_BYTES_PER_PARAM} bytes per parameter: weights and Adam state, ZeRO paper) "
        f"at the Lustre file system's aggregate throughput takes longer than `workload.checkpoint_max_minutes` "
        f"(default {CHECKPOINT_MAX_MINUTES:g})."
    ),
    source=ZERO_PAPER,
    remediation=(
        "Raise `per_unit_storage_throughput` or `storage_capacity_gib` (throughput = TiB x MB/s/TiB; Intelligent-Tiering: "
        "`throughput_capacity_mbps`), or checkpoint asynchronously."
    ),
)
def checkpoint_time(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    w, fs = ctx.cluster.workload, ctx.cluster.lustre
    if w is None or fs is None:
        return
    mbps = aggregate_throughput_mbps(fs)
    if not mbps:
        return  # lustre-throughput reports the missing or invalid throughput
    limit = w.checkpoint_max_minutes or CHECKPOINT_MAX_MINUTES
    size = w.parameter_count * CHECKPOINT_BYTES_PER_PARAM
    minutes = size / (mbps * MB) / 60
    if minutes > limit:
        yield r.finding(
            ctx,
            w.path + (w.size_key,),
            f"one checkpoint of {w.parameter_count:,.0f} parameters x {CHECKPOINT_BYTES_PER_PARAM} bytes = {size / 1e9:,.0f} GB "
            f"takes {minutes:,.1f} minutes at {mbps:,.0f} MB/s ({_throughput_words(fs)}); the limit is {limit:g} minutes",
            fix=_checkpoint_fix(ctx, fs, size / MB / (limit * 60), minutes),
        )


def _checkpoint_fix(ctx: RuleContext, fs: Lustre, need_mbps: float, minutes: float) -> Fix:
    """The lowest offered throughput tier that writes the checkpoint in time at the declared
    capacity; else the smallest valid capacity that does at the throughput in force. An Intelligent-Tiering
    file system: the smallest throughput capacity offered that does."""
    longer = (set_to(ctx, ctx.cluster.path + ("workload", "checkpoint_max_minutes"), math.ceil(minutes)),)
    if fs.storage_capacity_gib is None:
        it = intelligent_tiering()
        mbps = it.nearest(math.ceil(need_mbps))
        if mbps < need_mbps:
            return Fix(edits=longer)
        note = f"the smallest throughput capacity offered of at least {need_mbps:,.0f} MB/s"
        return Fix(edits=(set_to(ctx, fs.path + ("throughput_capacity_mbps",), mbps, note),), alternatives=longer)
    dt = deployment_types()[fs.deployment_type]
    gib = fs.storage_capacity_gib
    tib = gib / 1024
    tiers = [
        t
        for t, (_, storage) in sorted(dt.throughputs.items())
        if t * tib >= need_mbps and storage.accepts(gib) and t > (per_unit_throughput(fs) or 0)
    ]
    if dt.fixed_throughput is None and tiers:
        note = f"{tiers[0] * tib:,.0f} MB/s at {gib:,} GiB; {need_mbps:,.0f} MB/s needed"
        return Fix(
            edits=(set_to(ctx, fs.path + ("per_unit_storage_throughput",), tiers[0], note),), alternatives=longer
        )
    unit = per_unit_throughput(fs)
    storage = dt.storage_for(fs.per_unit_storage_throughput)
    if not unit or storage is None:
        return Fix(edits=longer)
    gib = storage.nearest(math.ceil(need_mbps / unit * 1024))
    note = f"{gib / 1024 * unit:,.0f} MB/s at {unit} MB/s/TiB; {need_mbps:,.0f} MB/s needed"
    return Fix(edits=(set_to(ctx, fs.path + ("storage_capacity_gib",), gib, note),), alternatives=longer)


def _throughput_words(fs: Lustre) -> str:
    """`4,800 GiB x 125 MB/s/TiB`, or an Intelligent-Tiering file system's `throughput capacity`."""
    if fs.storage_capacity_gib is None:
        return "its throughput capacity"
    return f"{fs.storage_capacity_gib:,} GiB x {per_unit_throughput(fs)} MB/s/TiB"


@rule(
    id="workload-memory",
    severity="warning",
    category="workload",
    description=(
        f"The training state ({TRAINING_STATE_BYTES_PER_PARAM} bytes per parameter for mixed-precision Adam, ZeRO paper) "
        "does not fit in the cluster's accelerator memory, even fully sharded; for a workload naming a model, "
        "no parallel layout fits its weights, optimizer state and activations (planner's step-time model)."
    ),
    source=ZERO_PAPER,
    remediation="Add instances, use a type with more accelerator memory, or plan for offloading state to host memory or NVMe (much slower).",
)
def memory(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    w = ctx.cluster.workload
    if w is None:
        return
    have = sum(g.count * ctx.catalogue.spec(g.instance_type).accelerator_memory_gib for g in ctx.cluster.node_groups)
    run = None
    if w.predicted:  # the run-time model is imported only for a workload it times
        from planner.core.runtime_model.cluster_run import run_for

        run = run_for(ctx.cluster, ctx.catalogue)
    if run is not None and run.unfit is not None and run.out_of_memory:
        yield _layout_finding(r, ctx, run)
        return
    if run is not None and run.estimate is not None:
        return  # a layout fits, activations included: the model's answer is the finer one
    need = w.parameter_count * TRAINING_STATE_BYTES_PER_PARAM / GIB
    if need > have:
        yield r.finding(
            ctx,
            w.path + (w.size_key,),
            f"{w.parameter_count:,.0f} parameters x {TRAINING_STATE_BYTES_PER_PARAM} bytes = {need:,.0f} GiB of training state "
            f"(before activations) but the cluster has {have:,.0f} GiB of accelerator memory",
            fix=_memory_fix(ctx, need, have),
        )


def _layout_finding(r: Rule, ctx: RuleContext, run: ClusterRun) -> Finding:
    """No parallel layout of the workload's model fits the groups it trains on: with the fewest
    instances on which one does."""
    from planner.core.runtime_model.cluster_run import smallest_fitting

    w = ctx.cluster.workload
    assert w is not None
    g = next(g for g in ctx.cluster.node_groups if g.name == run.groups[0])
    fits = smallest_fitting(ctx.cluster, ctx.catalogue)
    size = ctx.catalogue.unit_of(g)
    if fits is None:
        fix = outside(
            "workload",
            "train a smaller model or a shorter sequence, or use an instance type with more accelerator memory",
        )
    else:
        count = g.count + fits - run.instances
        note = f"{fits:,} {run.instance_type} in all: the fewest on which a layout fits, by planner's step-time model"
        fix = Fix("or use an instance type with more accelerator memory", (_size(ctx, g, count, size, note),))
    return r.finding(ctx, w.path + ("model",), f"{run.unfit} ({run.trained_on()})", fix=fix)


def _size(ctx: RuleContext, g: NodeGroup, count: int, size: int, note: str) -> Edit:
    """The edit that sizes `g` to `count` instances: by its UltraServers when it declares them."""
    if g.ultraservers is not None:
        return set_to(ctx, g.path + ("ultraservers",), count // size, note)
    return set_to(ctx, g.path + ("count",), count, note)


def _memory_fix(ctx: RuleContext, need: float, have: float) -> Fix:
    """How many more instances (whole UltraServers) of the group with the most memory per
    instance hold the training state, before activations."""
    spec = ctx.catalogue.spec
    g = max(ctx.cluster.node_groups, key=lambda g: spec(g.instance_type).accelerator_memory_gib)
    t = spec(g.instance_type)
    if t.accelerator_memory_gib <= 0:  # no accelerators at all (CPU types only): nothing to add more of
        return outside(
            "record", "add a node group of an accelerated instance type (`planner catalog`), or train fewer parameters"
        )
    size = ctx.catalogue.unit_of(g)
    units = math.ceil((need - have) / (t.accelerator_memory_gib * size))
    count = g.count + units * size
    note = (
        f"{units * size:,} more {g.instance_type} for {need:,.0f} GiB, {t.accelerator_memory_gib:,.0f} GiB each, "
        "before activations"
    )
    return Fix("or train fewer parameters", (_size(ctx, g, count, size, note),))
