"""planner as a Pulumi CrossGuard policy pack: the same rules and price book at `pulumi preview`.

`policy/__main__.py` (the pack folder of docs/tasks/policy-pack.md) only builds the `PolicyPack`
from `POLICIES`, because the pack's constructor serves the engine forever; everything that
can be tested lives here. This package may import pulumi and pulumi_policy; the core
(model, rules, cost, reports) never imports it.
"""

from __future__ import annotations

from planner.policy.policies import POLICIES

PACK_NAME = "planner"

__all__ = ["PACK_NAME", "POLICIES"]
