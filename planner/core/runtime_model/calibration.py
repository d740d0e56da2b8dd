"""The published measurements (runtime_references.yaml), the constants fitted on them
(runtime_constants.yaml), and how well the model predicts each one.

Fitting minimises the squared log error of tokens per second over every reference. Each software
stack (NVIDIA's Megatron, AWS Neuron) gets its own GEMM efficiency; attention efficiency and the
exposed share of tensor/expert traffic are shared by all, so no constant is fitted to one reference
alone. Leave-one-out refits without each reference and predicts it: that error, not the in-sample
one, is the error band planner prints.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from planner.core.catalogue import shipped_data as _data
from planner.core.catalogue.instance_types import Catalogue, load
from planner.core.catalogue.model_configs import presets
from planner.core.model.transformer import Transformer
from planner.core.runtime_model import hardware
from planner.core.runtime_model.step import Constants, Layout, Run, fitting, predict

STACKS = ("nvidia", "neuron")
MEMORY_USABLE = 0.92  # not fitted: see runtime_constants.yaml
# Where fitting starts (so a refit is the same whatever the shipped file holds)
START = Constants(
    gemm_efficiency=0.6,
    attention_efficiency=0.5,
    exposed_comm=0.5,
    moe_layer_seconds=0.005,
    routed_bytes=24.0,
    memory_usable=MEMORY_USABLE,
)


class Reference(Struct, frozen=True):
    id: str
    source: str
    url: str
    published: str
    model: str
    measured_on: str
    instance_type: str
    ultraserver: str | None
    accelerators: int
    run: Run
    layout: Layout
    measured_tokens_per_accelerator: float
    measured_as_published: str
    mtp_layers: int = 0  # multi-token-prediction modules trained with the model in this run

    @property
    def stack(self) -> str:
        return stack_of_type(self.instance_type)


class Fit(Struct, frozen=True):
    """Constants by stack."""

    by_stack: Mapping[str, Constants]

    def for_stack(self, stack: str) -> Constants:
        return self.by_stack[stack]


class Check(Struct, frozen=True):
    reference: Reference
    predicted: float  # tokens per second per accelerator
    loo_predicted: float
    recompute: float

    @property
    def error(self) -> float:
        return self.predicted / self.reference.measured_tokens_per_accelerator - 1

    @property
    def loo_error(self) -> float:
        return self.loo_predicted / self.reference.measured_tokens_per_accelerator - 1


def stack_of_type(instance_type: str, cat: Catalogue | None = None) -> str:
    t = (cat or load()).spec(instance_type)
    found = hardware.stack_of(t.accelerator_name)
    assert found is not None, instance_type
    return found


@lru_cache(maxsize=1)
def references() -> tuple[Reference, ...]:
    raw = _data.raw("runtime_references.yaml")[0]
    sources = raw["sources"]
    out = []
    for r in raw["references"]:
        lay = r["layout"]
        n = r["accelerators"]
        dp = n // (lay["tp"] * lay["pp"] * lay["cp"])
        measured = float(r["measured"])
        if r["unit"] == "sequences_per_second":
            per_acc = measured * r["sequence"] / n
            shown = f"{measured:g} sequences/s"
        else:
            per_acc = measured
            shown = f"{measured:,.0f} tokens/s per accelerator"
        out.append(
            Reference(
                id=r["id"],
                source=r["source"],
                url=sources[r["source"]]["url"],
                published=str(sources[r["source"]]["published"]),
                model=r["model"],
                measured_on=r["measured_on"],
                instance_type=r["instance_type"],
                ultraserver=r.get("ultraserver"),
                accelerators=n,
                run=Run(r["sequence"], r["global_batch"], r["precision"]),
                layout=Layout(
                    tp=lay["tp"],
                    pp=lay["pp"],
                    dp=dp,
                    cp=lay["cp"],
                    ep=lay["ep"],
                    vp=lay["vp"],
                    micro_batch=lay["micro_batch"],
                    fsdp=bool(lay["fsdp"]),
                    fused_dispatch=bool(lay.get("fused_dispatch", False)),
                    a2a_overlap=bool(lay.get("a2a_overlap", False)),
                ),
                measured_tokens_per_accelerator=per_acc,
                measured_as_published=shown,
                mtp_layers=int(r.get("mtp_layers", 0)),
            )
        )
    return tuple(out)


def system_of(ref: Reference) -> hardware.System:
    cat = load()
    t = cat.spec(ref.instance_type)
    ultra = cat.ultraserver_types[ref.ultraserver] if ref.ultraserver else None
    s = hardware.for_instances(t, max(1, ref.accelerators // t.accelerator_count), ultra)
    assert s is not None, ref.id
    return s


def model_of(ref: Reference) -> Transformer:
    """The reference's model, with the multi-token-prediction modules its run trained."""
    model = presets()[ref.model]
    return replace(model, mtp_layers=ref.mtp_layers) if ref.mtp_layers else model


def predicted(ref: Reference, constants: Constants) -> tuple[float, float]:
    """(tokens per second per accelerator, fraction of layers recomputed) at the published layout."""
    system, model = system_of(ref), model_of(ref)
    lay = fitting(model, system, ref.layout, ref.run, constants) or replace(
        ref.layout, selective=True, recompute=1.0, a2a_overlap=False
    )
    p = predict(model, system, lay, ref.run, constants)
    return p.tokens_per_second / system.accelerators, lay.recompute


@lru_cache(maxsize=1)
def _constants_file() -> Any:
    return _data.raw("runtime_constants.yaml")[0]


def shipped_fit() -> Fit:
    """The constants planner predicts with (fitted by `fit` and written to runtime_constants.yaml)."""
    raw = _constants_file()
    shared = raw["shared"]
    return Fit(
        {
            stack: Constants(
                gemm_efficiency=float(raw["gemm_efficiency"][stack]),
                attention_efficiency=float(shared["attention_efficiency"]),
                exposed_comm=float(shared["exposed_comm"]),
                moe_layer_seconds=float(shared["moe_layer_seconds"]),
                routed_bytes=float(shared["routed_bytes"]),
                memory_usable=float(shared["memory_usable"]),
            )
            for stack in STACKS
        }
    )


def _loss(refs: Sequence[Reference], fit: Fit) -> float:
    total = 0.0
    for ref in refs:
        tps, _ = predicted(ref, fit.for_stack(ref.stack))
        total += math.log(tps / ref.measured_tokens_per_accelerator) ** 2
    return total


def _golden(f: Callable[[float], float], lo: float, hi: float, steps: int = 18) -> float:
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (a + b) / 2


def fit(refs: Sequence[Reference], start: Fit | None = None, rounds: int = 3) -> Fit:
    """Constants minimising the squared log error over `refs` (coordinate descent, golden sections)."""
    current = start or Fit({stack: START for stack in STACKS})
    stacks = sorted({r.stack for r in refs})

    def with_value(f: Fit, key: str, stack: str | None, value: float) -> Fit:
        by = dict(f.by_stack)
        for s in STACKS if stack is None else (stack,):
            by[s] = replace(by[s], **{key: value})
        return Fit(by)

    def loss_of(key: str, stack: str | None, base: Fit) -> Callable[[float], float]:
        return lambda v: _loss(refs, with_value(base, key, stack, v))

    for _ in range(rounds):
        for stack in stacks:
            best = _golden(loss_of("gemm_efficiency", stack, current), 0.2, 1.0)
            current = with_value(current, "gemm_efficiency", stack, best)
        for key, lo, hi in (
            ("attention_efficiency", 0.1, 1.0),
            ("exposed_comm", 0.0, 1.0),
            ("moe_layer_seconds", 0.0, 0.05),
            ("routed_bytes", 0.0, 2000.0),
        ):
            best = _golden(loss_of(key, None, current), lo, hi)
            current = with_value(current, key, None, best)
    return current


def check(fit_all: Fit | None = None) -> tuple[Check, ...]:
    """Every reference predicted with the shipped constants and with constants refitted without it."""
    refs = references()
    shipped = fit_all or shipped_fit()
    out = []
    for ref in refs:
        tps, recompute = predicted(ref, shipped.for_stack(ref.stack))
        others = [r for r in refs if r.id != ref.id]
        loo = fit(others, shipped, rounds=1)
        loo_tps, _ = predicted(ref, loo.for_stack(ref.stack))
        out.append(Check(ref, tps, loo_tps, recompute))
    return tuple(out)


class Stats(Struct, frozen=True):
    median_abs: float
    worst_abs: float
    loo_median_abs: float
    loo_worst_abs: float


def stats(checks: Sequence[Check]) -> Stats:
    errs = [abs(c.error) for c in checks]
    loo = [abs(c.loo_error) for c in checks]
    return Stats(statistics.median(errs), max(errs), statistics.median(loo), max(loo))


def error_band() -> float:
    """The relative error planner prints with a prediction: the shipped leave-one-out median."""
    return float(_constants_file()["error"]["loo_median_abs"])


def references_for(accelerator: str) -> tuple[str, ...]:
    """Ids of the references measured on `accelerator` (none: the prediction is extrapolated)."""
    cat = load()
    return tuple(r.id for r in references() if cat.spec(r.instance_type).accelerator_name == accelerator)


def stack_references(stack: str) -> tuple[str, ...]:
    return tuple(r.id for r in references() if r.stack == stack)
