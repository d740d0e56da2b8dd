"""A declared cluster's training run: which node groups the workload's model trains on, its step
and hours there, and what the declared topology changes about them.

A job trains on one kind of accelerator: the node groups of the instance type with the most dense
peak between them (a CPU system pool or a smaller second accelerated group is named, not counted).
UltraServer groups train as UltraServers (their NeuronLink or NVLink domain spans the members),
other groups as separate instances. The notes say what only the topology shows: tensor parallelism
spanning an UltraServer against the same count as separate instances, communication EFA leaves
exposed, a pipeline bubble, checkpoints the file system makes a visible share of the run.
"""

from __future__ import annotations

from functools import lru_cache

from msgspec import Struct

from planner.core.catalogue.instance_types import Catalogue
from planner.core.catalogue.lustre_deployments import aggregate_throughput_mbps
from planner.core.model.cluster import Cluster
from planner.core.model.transformer import Transformer
from planner.core.runtime_model import checkpoint
from planner.core.runtime_model.hardware import link_figures
from planner.core.runtime_model.run_prediction import Estimate, estimate
from planner.core.runtime_model.step import Run

CHECKPOINT_INTERVAL_HOURS = 1.0  # one checkpoint an hour of training (the estimate's default)
# when a part of the step is worth a note: a share people would act on
EXPOSED_SHARE = 0.10
BUBBLE_SHARE = 0.15
CHECKPOINT_SHARE = 0.05
SAME = 0.01  # two predictions within 1 % are the same answer
MAX_TRIES = 256  # counts `smallest_fitting` tries above the declared one


class ClusterRun(Struct, frozen=True):
    """The predicted run on the groups it trains on; `estimate` None when the model fits no layout
    there (`unfit` says why)."""

    instance_type: str
    instances: int
    ultraserver: str | None
    groups: tuple[str, ...]
    estimate: Estimate | None
    unfit: str | None
    notes: tuple[str, ...]
    out_of_memory: bool = False  # unfit because no layout fits in memory (not for want of figures)

    @property
    def run_hours(self) -> float | None:
        return None if self.estimate is None else self.estimate.run_hours

    def trained_on(self) -> str:
        names = ", ".join(f"'{g}'" for g in self.groups)
        what = f"{self.instances:,} x {self.instance_type}" + (f" in {self.ultraserver}" if self.ultraserver else "")
        return f"{what} (node group{'s' if len(self.groups) > 1 else ''} {names})"


def run_for(cluster: Cluster, cat: Catalogue) -> ClusterRun | None:
    """The predicted run of the cluster's workload; None when its hours do not come from a model
    (no workload, no model, or an MFU the user gave) or no node group has an accelerator."""
    w = cluster.workload
    if w is None or w.model is None or not w.predicted:
        return None
    peaks: dict[str, float] = {}
    for g in cluster.node_groups:
        peak = cat.spec(g.instance_type).peak_pflops(f"{w.precision}_dense")
        if peak:
            peaks[g.instance_type] = peaks.get(g.instance_type, 0.0) + peak * g.count
    if not peaks:
        return None
    chosen = max(sorted(peaks), key=lambda name: peaks[name])
    groups = [g for g in cluster.node_groups if g.instance_type == chosen]
    ultras = {u.name for g in groups if (u := cat.ultraserver_of(g)) is not None}
    ultra = next(iter(ultras)) if len(ultras) == 1 and all(cat.ultraserver_of(g) for g in groups) else None
    others = tuple(sorted({g.name for g in cluster.node_groups if g.instance_type != chosen}))
    fs = cluster.lustre
    lustre = aggregate_throughput_mbps(fs) if fs is not None else None
    run = Run(w.sequence_length, max(1, w.global_batch_tokens // w.sequence_length), w.precision)
    return _run(
        w.model,
        w.tokens,
        run,
        chosen,
        sum(g.count for g in groups),
        ultra,
        tuple(g.name for g in groups),
        others,
        lustre,
    )


@lru_cache(maxsize=256)
def _run(
    model: Transformer,
    tokens: float,
    run: Run,
    instance_type: str,
    instances: int,
    ultra: str | None,
    groups: tuple[str, ...],
    others: tuple[str, ...],
    lustre_mb_s: float | None,
) -> ClusterRun:
    """Cached: the rules, the cost and the document ask for the same run of one stack."""
    from planner.core.catalogue.instance_types import load

    cat = load()
    t = cat.spec(instance_type)
    est = estimate(model, instance_type, instances, run, tokens, ultra, lustre_mb_s, CHECKPOINT_INTERVAL_HOURS, cat)
    notes: list[str] = []
    if others:
        notes.append(
            f"the run is predicted on the {instance_type} groups; "
            f"{', '.join(repr(o) for o in others)} (other types) not counted"
        )
    unfit = None
    if est is None:
        per_chip = t.accelerator.memory_gib if t.accelerator is not None else 0.0
        unfit = _unfit(model, t.accelerator_name, t.accelerator_count * instances, per_chip, run)
        memory = link_figures(t.accelerator_name) is not None
        return ClusterRun(instance_type, instances, ultra, groups, None, unfit, tuple(notes), memory)
    notes += _topology_notes(model, est, run, tokens, instance_type, instances, ultra, lustre_mb_s, cat)
    return ClusterRun(instance_type, instances, ultra, groups, est, None, tuple(notes))


def smallest_fitting(cluster: Cluster, cat: Catalogue, tries: int = MAX_TRIES) -> int | None:
    """The fewest instances of the run's type (whole UltraServers) on which a layout of the model
    fits, counting up from the declared count; None when none of the next `tries` counts does.
    Counted one by one: a count whose accelerators divide neither the layers nor the batch may not
    fit where a smaller one does (72 H200 hold no layout of a 405B model that 64 hold)."""
    found = run_for(cluster, cat)
    if found is None or found.estimate is not None:
        return None if found is None else found.instances
    w = cluster.workload
    assert w is not None and w.model is not None
    run = Run(w.sequence_length, max(1, w.global_batch_tokens // w.sequence_length), w.precision)
    u = cat.ultraserver_types.get(found.ultraserver) if found.ultraserver else None
    unit = u.members if u is not None else 1
    n = found.instances
    for _ in range(tries):
        n = (n // unit + 1) * unit
        if estimate(w.model, found.instance_type, n, run, w.tokens, found.ultraserver, cat=cat) is not None:
            return n
    return None


def _unfit(model: Transformer, accelerator: str, accelerators: int, memory_gib: float, run: Run) -> str:
    if link_figures(accelerator) is None:
        return (
            f"planner has no step-time figures for {accelerator} (HBM and link bandwidth): "
            "give workload.mfu for this cluster's hours"
        )
    return (
        f"{model.name} ({model.total_params() / 1e9:,.1f}B parameters) fits no parallel layout on "
        f"{accelerators:,} {accelerator} of {memory_gib:,.0f} GiB at {run.sequence:,}-token sequences, "
        "even fully sharded and recomputing every layer"
    )


def _topology_notes(
    model: Transformer,
    est: Estimate,
    run: Run,
    tokens: float,
    instance_type: str,
    instances: int,
    ultra: str | None,
    lustre_mb_s: float | None,
    cat: Catalogue,
) -> list[str]:
    t = cat.spec(instance_type)
    lay, b, step = est.layout, est.breakdown, est.step_seconds
    notes = []
    if ultra is not None:
        alone = estimate(
            model, instance_type, instances, run, tokens, None, lustre_mb_s, CHECKPOINT_INTERVAL_HOURS, cat
        )
        span = lay.tp * lay.cp
        if alone is None:
            notes.append(
                f"only the UltraServers make it fit: as {instances:,} separate {instance_type} "
                f"(tensor parallelism within {t.accelerator_count} accelerators) no layout fits in memory"
            )
        elif abs(alone.run_hours / est.run_hours - 1) <= SAME:
            notes.append(
                f"the {ultra} link changes nothing here: the best layout keeps tensor parallelism "
                f"({lay.tp}) inside one instance, as {instances:,} separate {instance_type} would"
            )
        else:
            where = (
                f"tensor parallelism of {lay.tp} spans {span // t.accelerator_count} instances of each {ultra}"
                if span > t.accelerator_count
                else f"the {ultra} link carries the layout's traffic"
            )
            notes.append(
                f"{where}: as {instances:,} separate {instance_type} the run would take "
                f"{alone.run_hours:,.1f} h ({alone.run_hours / est.run_hours - 1:+.0%})"
            )
    if b.exposed_communication > EXPOSED_SHARE * step:
        efa = f"{t.network_bandwidth_gbps:,.0f} Gbps EFA per instance" if t.network_bandwidth_gbps else "EFA"
        notes.append(
            f"communication left exposed: {b.exposed_communication / step:.0%} of each step "
            f"(tensor and expert traffic beyond the scale-up link and data-parallel collectives over {efa})"
        )
    if b.bubble > BUBBLE_SHARE * step:
        notes.append(
            f"pipeline bubble: {b.bubble / step:.0%} of each step ({lay.pp} stages, "
            f"{lay.vp} interleaved, {run.global_batch // (lay.dp * lay.micro_batch)} micro-batches)"
        )
    if lustre_mb_s and b.checkpoint > CHECKPOINT_SHARE * step:
        write = checkpoint.write_seconds(model, lustre_mb_s)
        notes.append(
            f"checkpoints take {b.checkpoint / step:.0%} of the run: one write of "
            f"{model.total_params() * checkpoint.CHECKPOINT_BYTES_PER_PARAMETER / 1e9:,.0f} GB every "
            f"{CHECKPOINT_INTERVAL_HOURS:g} h takes {write / 60:,.1f} min at {lustre_mb_s:,.0f} MB/s of FSx for Lustre"
        )
    if est.extrapolated_from:
        from planner.core.runtime_model.calibration import references

        on = sorted({cat.spec(r.instance_type).accelerator_name for r in references() if r.id in est.extrapolated_from})
        notes.append(
            f"extrapolated: no published measurement on {t.accelerator_name}; its constants come from "
            f"{len(est.extrapolated_from)} references on {', '.join(on)} (docs/runtime-model.md)"
        )
    return notes
