"""The fastest parallel layout that fits: what a Megatron-style recipe would choose for the cluster.

Recipes keep tensor parallelism inside the scale-up domain (NVLink, NeuronLink: an instance, or
the whole UltraServer), add pipeline stages when the model does not fit, context parallelism for
long sequences, and expert parallelism for MoE layers; data parallelism takes the rest. The search
tries those sizes (powers of two, dividing the layers, experts and batch) and keeps the one with
the shortest step, recomputing only as far as memory needs.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.transformer import Transformer
from planner.core.runtime_model.hardware import System
from planner.core.runtime_model.step import (
    Constants,
    Layout,
    Prediction,
    Run,
    faster_than,
    fitting_memory,
    micro_batch_compute,
)

MAX_TP = 64  # tensor parallelism beyond 64 ranks has no published recipe
MICRO_BATCHES = (1, 2, 4)


def _powers(limit: int) -> Iterator[int]:
    n = 1
    while n <= limit:
        yield n
        n *= 2


def fused_dispatch(system: System, tp: int, cp: int, ep: int) -> bool:
    """Whether a recipe sends MoE tokens with Megatron's fused HybridEP dispatcher: NVIDIA's recipes for GB200
    and GB300 NVL72 do (DeepSeek-V3, Qwen3; Megatron Bridge r0.2.0), when the expert group stays inside the
    NVLink domain; NVL8 systems (HGX, DGX H100/B200) have no HybridEP support yet (Megatron Bridge issue 1731)."""
    return system.stack == "nvidia" and system.domain > system.per_instance and ep * tp * cp <= system.domain


def a2a_overlap(system: System, pp: int, vp: int) -> bool:
    """Whether Megatron can hide one micro-batch's expert all-to-all behind another's compute
    (overlap_moe_expert_parallel_comm, Megatron Bridge's moe_a2a_overlap): with expert parallelism, and with
    interleaved stages when the model is pipelined (Megatron-Core's TransformerConfig checks both)."""
    return system.stack == "nvidia" and (pp == 1 or vp > 1)


# a layout as `_shapes` yields it: tp, pp, dp, cp, ep, vp, micro-batch, fused dispatch, all-to-all overlap, FSDP
Shape = tuple[int, int, int, int, int, int, int, bool, bool, bool]


def layouts(model: Transformer, system: System, run: Run) -> Iterator[Layout]:
    """Every candidate layout covering the cluster's accelerators (before the memory check). Tensor parallelism
    splits the heads over the accelerators' ranks (two NeuronCores per Trainium chip)."""
    for shape in _shapes(model, system, run):
        yield _layout(shape)


def _layout(shape: Shape) -> Layout:
    tp, pp, dp, cp, ep, vp, mb, fused, overlap, fsdp = shape
    return Layout(
        tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, vp=vp, micro_batch=mb, fsdp=fsdp, fused_dispatch=fused, a2a_overlap=overlap
    )


def _shapes(model: Transformer, system: System, run: Run) -> Iterator[Shape]:
    """`layouts` as plain tuples: the search orders a thousand of them and builds a Layout for the few it times."""
    n = system.accelerators
    for tp in _powers(min(system.domain, MAX_TP, model.heads // system.ranks)):
        if n % tp or model.heads % (tp * system.ranks):
            continue
        for cp in _powers(8 if run.sequence >= 8192 else 1):
            for pp in _powers(min(model.layers, n // (tp * cp))):
                if n % (tp * cp * pp):
                    continue
                dp = n // (tp * cp * pp)
                per_stage = model.layers // pp
                vps = (1,) if pp == 1 else tuple(v for v in (1, 2, 4, 8) if per_stage % v == 0 and per_stage // v >= 1)
                eps = (1,) if not model.moe else tuple(e for e in _powers(model.experts) if (dp * cp * tp) % e == 0)
                for ep in eps:
                    fused = model.moe and ep > 1 and fused_dispatch(system, tp, cp, ep)
                    for mb in MICRO_BATCHES:
                        if run.global_batch % (dp * mb):
                            continue
                        for vp in vps:
                            overlap = model.moe and ep > 1 and a2a_overlap(system, pp, vp)
                            yield (tp, pp, dp, cp, ep, vp, mb, fused, overlap, False)
                        if pp == 1 and tp == 1 and not model.moe and dp > 1:
                            yield (tp, pp, dp, cp, ep, 1, mb, False, False, True)


def best(
    model: Transformer, system: System, run: Run, constants: Constants, checkpoint_seconds_per_step: float = 0.0
) -> Prediction | None:
    """The layout with the shortest step that fits memory (the first in `layouts`' order among equal
    steps); None when no layout fits.

    Layouts are timed in the order of their compute floor (`compute_floor`: compute and bubble, which
    no recomputation or communication can shorten), so once a floor reaches the best step found no later
    layout can beat it and the search stops: the same answer as timing every layout, in a fraction."""
    computed: dict[tuple[object, ...], tuple[float, float, float, float]] = {}  # compute shared by layouts
    per_key: dict[tuple[int, int, int, int, bool], float] = {}  # one micro-batch's compute, before / pp
    ordered = []
    for i, shape in enumerate(_shapes(model, system, run)):
        tp, pp, dp, cp, ep, vp, mb, fused = shape[:8]
        key = (tp, cp, ep, mb, fused)
        compute = per_key.get(key)
        if compute is None:
            dense_t, moe_t, attention, head = micro_batch_compute(
                model, system, _layout(shape), run, constants, computed
            )
            compute = per_key[key] = model.dense_blocks * dense_t + model.moe_layers * moe_t + attention + head
        # compute_floor's arithmetic on the tuple: micro-batches' compute and the bubble of that compute
        micro_batches = max(1, run.global_batch // (dp * mb))
        ordered.append((compute / pp * (micro_batches + ((pp - 1) / vp if pp > 1 else 0)), i, shape))
    ordered.sort()
    found: Prediction | None = None
    found_at = -1
    for floor, i, shape in ordered:
        if found is not None and (floor, i) >= (found.step_seconds, found_at):
            break  # every later layout's floor is at least this one's: none is faster (nor as fast and earlier)
        fits = fitting_memory(model, system, _layout(shape), run, constants)
        if fits is None:
            continue
        try:
            p = faster_than(
                model, system, fits[0], run, constants, None, checkpoint_seconds_per_step, fits[1], computed
            )
        except ZeroDivisionError:  # its traffic crosses EFA on a system without an EFA figure (Trn3): not timed
            continue
        if p is not None and (found is None or (p.step_seconds, i) < (found.step_seconds, found_at)):
            found, found_at = p, i
    return found
