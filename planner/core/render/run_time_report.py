"""The predicted run of a stack, in words: hours with the error band, speed and layout, where a
step's seconds go, and what the topology changes. One text for the table and the comment."""

from __future__ import annotations

from planner.core.document.run_time_section import RunTimePrediction, RunTimeReport
from planner.core.text.numbers import count, num


def headline(rt: RunTimeReport) -> str:
    p = rt.prediction
    what = f"{count(rt.tokens, 'tokens')} of {rt.model}"
    if p is None:
        return f"unknown for {what} on {rt.trained_on}: {rt.unfit}"
    return f"{num(p.run_hours)} h (+/-{p.error_band:.0%}) for {what}, predicted on {rt.trained_on}"


def speed(p: RunTimePrediction) -> str:
    lay = p.layout
    shape = f"tp {lay.tp}, pp {lay.pp}" + (f" (vp {lay.vp})" if lay.vp > 1 else "")
    shape += f", dp {lay.dp}" + (" fully sharded" if lay.fsdp else "") + f", cp {lay.cp}, ep {lay.ep}"
    return (
        f"{num(p.tokens_per_second, 0)} tokens/s, step {num(p.step_seconds)} s, MFU {p.mfu:.1%}; "
        f"layout {shape}, micro-batch {lay.micro_batch}, recompute {lay.recompute}"
    )


def breakdown(p: RunTimePrediction) -> str:
    b = p.breakdown_seconds
    parts = [
        ("compute", b.compute),
        ("recompute", b.recompute),
        ("exposed communication", b.exposed_communication),
        ("pipeline bubble", b.bubble),
        ("optimizer", b.optimizer),
        ("checkpoints", b.checkpoint),
    ]
    return "step: " + ", ".join(f"{name} {s:,.2f} s" for name, s in parts if s or name == "compute")


def lines(rt: RunTimeReport) -> list[str]:
    """Headline, then speed and layout, breakdown and notes (each a line of its own)."""
    out = [headline(rt)]
    if rt.prediction is not None:
        out += [speed(rt.prediction), breakdown(rt.prediction)]
    out += [f"note: {n}" for n in rt.notes]
    return out
