"""Fit the step-time model's constants on the published references and write them, with the
model's error (in sample and leave-one-out), to `planner/data/runtime_constants.yaml`.

Run `.venv/bin/python -m tools.fit_runtime_model` after editing runtime_references.yaml or the
model, then `.venv/bin/python -m tools.gen_prebuilt_data`. tests/test_runtime_calibration.py
refits and fails when the shipped file drifts from what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from msgspec.structs import replace

from planner.core.reading.yaml_lines import DATA_DIR
from planner.core.runtime_model import calibration

OUT = Path(DATA_DIR) / "runtime_constants.yaml"
DOC = Path(__file__).resolve().parent.parent / "docs" / "runtime-model.md"
START, END = "<!-- references:start -->", "<!-- references:end -->"
HEADER = """\
# The step-time model's constants, fitted on runtime_references.yaml by
# `python -m tools.fit_runtime_model` (which rewrites this file); tests/test_runtime_calibration.py
# refits them and fails when this file drifts. See docs/runtime-model.md.
version: 1
"""


def render(fit: calibration.Fit, stats: calibration.Stats) -> str:
    nv, ne = fit.for_stack("nvidia"), fit.for_stack("neuron")
    return (
        HEADER
        + "gemm_efficiency:\n"
        + f"  nvidia: {nv.gemm_efficiency:.4f}\n"
        + f"  neuron: {ne.gemm_efficiency:.4f}\n"
        + "shared:\n"
        + f"  attention_efficiency: {nv.attention_efficiency:.4f}\n"
        + f"  exposed_comm: {nv.exposed_comm:.4f}\n"
        + f"  moe_layer_seconds: {nv.moe_layer_seconds:.5f}\n"
        + f"  routed_bytes: {nv.routed_bytes:.1f}\n"
        + "  # Fraction of HBM a framework can fill: CUDA/Neuron runtime context, communication buffers and\n"
        + "  # allocator fragmentation take the rest. An engineering margin, not fitted; checked by the\n"
        + "  # references (tests/test_runtime_calibration.py: every published layout fits, recomputing as needed).\n"
        + f"  memory_usable: {nv.memory_usable}\n"
        + "error:\n"
        + f"  median_abs: {stats.median_abs:.4f}\n"
        + f"  worst_abs: {stats.worst_abs:.4f}\n"
        + f"  loo_median_abs: {stats.loo_median_abs:.4f}\n"
        + f"  loo_worst_abs: {stats.loo_worst_abs:.4f}\n"
    )


def table(checks: tuple[calibration.Check, ...], stats: calibration.Stats) -> str:
    """The docs' table: every reference, predicted with the shipped constants and refitted without it."""
    rows = [
        "| reference | measured on (timed as) | layout (tp/pp/cp/vp/ep, micro-batch) | measured | predicted | error | left out |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in checks:
        r, lay = c.reference, c.reference.layout
        hw = f"{r.accelerators} accelerators, {r.measured_on} (as {r.ultraserver or r.instance_type})"
        shape = f"{lay.tp}/{lay.pp}/{lay.cp}/{lay.vp}/{lay.ep}, {lay.micro_batch}" + (" FSDP" if lay.fsdp else "")
        rows.append(
            f"| [{r.id}]({r.url}) | {hw} | {shape} | {r.measured_tokens_per_accelerator:,.0f} | "
            f"{c.predicted:,.0f} | {c.error:+.0%} | {c.loo_error:+.0%} |"
        )
    rows.append("")
    rows.append(
        f"Tokens per second per accelerator. In sample: median absolute error {stats.median_abs:.1%}, worst "
        f"{stats.worst_abs:.1%}. Leave-one-out: median {stats.loo_median_abs:.1%}, worst {stats.loo_worst_abs:.1%}."
    )
    return "\n".join(rows)


def rounded(fit: calibration.Fit) -> calibration.Fit:
    """The constants as `render` writes them, so the errors shown are the shipped constants' errors."""
    digits = {"moe_layer_seconds": 5, "routed_bytes": 1}
    return calibration.Fit(
        {
            stack: replace(
                c,
                **{
                    key: round(getattr(c, key), digits.get(key, 4))
                    for key in (
                        "gemm_efficiency",
                        "attention_efficiency",
                        "exposed_comm",
                        "moe_layer_seconds",
                        "routed_bytes",
                    )
                },
            )
            for stack, c in fit.by_stack.items()
        }
    )


def fitted() -> tuple[str, str]:
    """(runtime_constants.yaml, the docs' reference table) as the fit writes them."""
    fit = rounded(calibration.fit(calibration.references(), rounds=4))
    checks = calibration.check(fit)
    stats = calibration.stats(checks)
    return render(fit, stats), table(checks, stats)


def with_table(doc: str, text: str) -> str:
    head, rest = doc.split(START, 1)
    return head + START + "\n" + text + "\n" + END + rest.split(END, 1)[1]


def main() -> int:
    constants, text = fitted()
    OUT.write_text(constants, encoding="utf-8")
    DOC.write_text(with_table(DOC.read_text(encoding="utf-8"), text), encoding="utf-8")
    print(f"wrote {OUT} and {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
