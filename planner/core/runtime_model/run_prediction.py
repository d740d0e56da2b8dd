"""A training run's hours on one cluster, as `compare` and `plan` will use them: the best layout,
its step, the run's hours for its tokens, the error band, and where the figure is extrapolated.

The error band is the shipped leave-one-out median error; a type with no reference measured on
its accelerator says which references its constants come from.
"""

from __future__ import annotations

from msgspec import Struct

from planner.core.catalogue.instance_types import Catalogue, load
from planner.core.document.run_time_section import ParallelLayout, RunTimePrediction, StepBreakdown
from planner.core.model.transformer import Transformer
from planner.core.runtime_model import calibration, checkpoint, hardware, search
from planner.core.runtime_model.step import Breakdown, Layout, Run

SECONDS_PER_HOUR = 3600.0


class Estimate(Struct, frozen=True):
    system: str
    layout: Layout
    breakdown: Breakdown
    step_seconds: float
    tokens_per_second: float
    mfu: float
    run_hours: float
    error_band: float  # relative, +/-
    extrapolated_from: tuple[str, ...]  # reference ids, when none is measured on this accelerator

    def report(self) -> RunTimePrediction:
        """The document's form (rounded: the model is good to ~10 %, not to 6 digits)."""
        lay, b = self.layout, self.breakdown
        return RunTimePrediction(
            tokens_per_second=round(self.tokens_per_second, 1),
            step_seconds=round(self.step_seconds, 3),
            mfu=round(self.mfu, 3),
            run_hours=round(self.run_hours, 2),
            layout=ParallelLayout(
                tp=lay.tp,
                pp=lay.pp,
                dp=lay.dp,
                cp=lay.cp,
                ep=lay.ep,
                vp=lay.vp,
                micro_batch=lay.micro_batch,
                fsdp=lay.fsdp,
                recompute=recompute_words(lay),
                fused_dispatch=lay.fused_dispatch,
                a2a_overlap=lay.a2a_overlap,
            ),
            breakdown_seconds=StepBreakdown(
                compute=round(b.compute, 3),
                recompute=round(b.recompute, 3),
                exposed_communication=round(b.exposed_communication, 3),
                bubble=round(b.bubble, 3),
                optimizer=round(b.optimizer, 3),
                checkpoint=round(b.checkpoint, 3),
            ),
            error_band=round(self.error_band, 4),
            extrapolated_from=self.extrapolated_from,
        )


def recompute_words(lay: Layout) -> str:
    """ "none", "selective" (norms and activation functions), or the share of layers recomputed whole."""
    if lay.recompute:
        return f"{lay.recompute:g} of layers"
    return "selective" if lay.selective else "none"


def estimate(
    model: Transformer,
    instance_type: str,
    instances: int,
    run: Run,
    tokens: float,
    ultraserver: str | None = None,
    lustre_mb_s: float | None = None,
    checkpoint_interval_hours: float = 1.0,
    cat: Catalogue | None = None,
) -> Estimate | None:
    """The run's estimate on `instances` of `instance_type` (joined into `ultraserver`s when given);
    None when the model fits no layout there or the accelerator has no link figures."""
    cat = cat or load()
    t = cat.spec(instance_type)
    ultra = cat.ultraserver_types[ultraserver] if ultraserver else None
    system = hardware.for_instances(t, instances, ultra)
    return on_system(model, system, run, tokens, lustre_mb_s, checkpoint_interval_hours)


def on_system(
    model: Transformer,
    system: hardware.System | None,
    run: Run,
    tokens: float,
    lustre_mb_s: float | None = None,
    checkpoint_interval_hours: float = 1.0,
) -> Estimate | None:
    """The run's estimate on a system (`hardware.for_instances`, or `for_ultraservers` for an
    UltraServer whose members the EC2 API does not list yet)."""
    if system is None:
        return None
    constants = calibration.shipped_fit().for_stack(system.stack)
    best = search.best(model, system, run, constants)
    if best is None:
        return None
    if lustre_mb_s:
        write = checkpoint.write_seconds(model, lustre_mb_s)
        best = checkpoint.with_checkpoints(best, write, checkpoint_interval_hours * SECONDS_PER_HOUR)
    measured_here = calibration.references_for(system.accelerator)
    return Estimate(
        system=system.name,
        layout=best.layout,
        breakdown=best.breakdown,
        step_seconds=best.step_seconds,
        tokens_per_second=best.tokens_per_second,
        mfu=best.mfu,
        run_hours=tokens / best.tokens_per_second / SECONDS_PER_HOUR,
        error_band=calibration.error_band(),
        extrapolated_from=() if measured_here else calibration.stack_references(system.stack),
    )
