"""planner as a Pulumi CrossGuard policy pack: the same rules and price book at `pulumi preview`.

`policy/__main__.py` (the pack folder of docs/tasks/policy-pack.md) only builds the `PolicyPack`
from `POLICIES`, because the pack's constructor serves the engine forever; everything that
can be tested lives here. This package may import pulumi and pulumi_policy; the core
(model, rules, cost, reports) never imports it.
"""

from __future__ import annotations

from typing import Any

PACK_NAME = "planner"


def __getattr__(name: str) -> Any:
    """`POLICIES` loads pulumi_policy: only when asked for, so the read-back in
    `planner.readback.topology` serves `planner plan --program` without it."""
    if name == "POLICIES":
        from planner.policy.policies import POLICIES

        return POLICIES
    raise AttributeError(name)


__all__ = ["PACK_NAME", "POLICIES"]
