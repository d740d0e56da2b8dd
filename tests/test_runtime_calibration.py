"""The step-time model's calibration: the references are complete and sourced, the shipped constants
and the docs' table are what the fit writes, and the error stays within its stated bounds."""

from __future__ import annotations

from collections import Counter

from planner.core.catalogue.instance_types import load
from planner.core.catalogue.model_configs import presets
from planner.core.runtime_model import calibration
from planner.core.runtime_model.step import fitting
from tests.conftest import ROOT
from tools import fit_runtime_model


def test_every_reference_is_sourced_and_complete() -> None:
    refs = calibration.references()
    assert len({r.id for r in refs}) == len(refs) >= 15
    cat = load()
    for r in refs:
        assert r.url.startswith("https://") and r.published
        assert r.model in presets()
        assert r.instance_type in cat.instance_types
        assert r.ultraserver is None or r.ultraserver in cat.ultraserver_types
        assert r.layout.size == r.accelerators, r.id
        assert r.run.global_batch % (r.layout.dp * r.layout.micro_batch) == 0, r.id
        assert r.run.precision in ("bf16", "fp8")


def test_every_published_layout_fits_in_memory() -> None:
    """The memory model and its usable fraction admit every layout the publishers ran, and every MoE layout
    without recomputing whole layers, as their recipes run them (none, or selective modules)."""
    fit = calibration.shipped_fit()
    for r in calibration.references():
        constants = fit.for_stack(r.stack)
        fits = fitting(calibration.model_of(r), calibration.system_of(r), r.layout, r.run, constants)
        assert fits, r.id
        assert not calibration.model_of(r).moe or fits.recompute == 0, r.id


def test_no_constant_is_fitted_to_one_reference_alone() -> None:
    per_stack = Counter(r.stack for r in calibration.references())
    assert set(per_stack) == set(calibration.STACKS)
    assert min(per_stack.values()) >= 2


def test_shipped_constants_and_docs_table_are_what_the_fit_writes() -> None:
    constants, table = fit_runtime_model.fitted()
    shipped = fit_runtime_model.OUT.read_text(encoding="utf-8")
    assert shipped == constants, "stale: run `.venv/bin/python -m tools.fit_runtime_model`"
    doc = (ROOT / "docs" / "runtime-model.md").read_text(encoding="utf-8")
    assert fit_runtime_model.with_table(doc, table) == doc, "stale: run `.venv/bin/python -m tools.fit_runtime_model`"


def test_the_error_stays_within_its_stated_bounds() -> None:
    """Issue 36's bounds: median within 15 % and worst within 30 % in sample, median within 15 % left out; the
    worst left out (the two Trainium references, each predicted from the other: docs/runtime-model.md) within 25 %."""
    checks = calibration.check()
    stats = calibration.stats(checks)
    assert stats.median_abs <= 0.15 and stats.worst_abs <= 0.30
    assert stats.loo_median_abs <= 0.15 and stats.loo_worst_abs <= 0.25
    dense = [c for c in checks if not calibration.model_of(c.reference).moe and c.reference.stack == "nvidia"]
    assert dense and max(abs(c.loo_error) for c in dense) <= 0.15
    assert calibration.error_band() == round(stats.loo_median_abs, 4)


def test_types_without_a_reference_are_named() -> None:
    assert calibration.references_for("H100") and calibration.references_for("Trainium")
    for accelerator in ("H200", "Trainium2", "Trainium3", "B300"):
        assert calibration.references_for(accelerator) == ()
