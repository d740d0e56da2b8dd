"""The preflight checks: a registry of metadata plus functions, like the spec rules.

Each check is a `planner.rules.Rule` record (id, severity, description, source,
remediation, function), kept in its own registry so that `planner plan` never runs them
(they need the account) while `planner rules` can list them (`registry()`). A check reads
`ctx.options["account"]` (an `Account`) and `ctx.options["region"]`, and yields findings
through `r.finding(ctx, path, message)`, which point at the file and line of the value at
fault. Ids are a contract, like rule ids: never rename one.
"""

from __future__ import annotations

import importlib
from typing import Callable, Iterator, Mapping

from planner.aws.errors import AwsCallError
from planner.findings import Finding
from planner.model import NodeGroup, Path
from planner.rules import Check, Rule, RuleContext, rule

MODULES = ("offerings", "quotas", "reservations", "network")
AWS_ERROR = "preflight-aws-error"

_REGISTRY: dict[str, Rule] = {}
_LOADED = False


def check(id: str, severity: str, description: str, source: str, remediation: str) -> Callable[[Check], Check]:
    """Register a preflight check under `id`: the `@rule` decorator, into this registry."""
    return rule(id, severity, description, source, remediation, into=_REGISTRY)


def _no_check(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """preflight-aws-error has no check of its own: the other checks raise it."""
    return iter(())


_REGISTRY[AWS_ERROR] = Rule(
    AWS_ERROR, "error",
    "An AWS call a preflight check needs failed (no credentials, access denied, throttling, an API not in the "
    "region): that check's result is unknown.",
    "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_actions-resources-contextkeys.html",
    "Fix what the message names (grant the IAM action listed in the preflight docs, refresh credentials, retry later); "
    "suppress preflight-aws-error to accept a partial preflight.",
    _no_check,
)


def registry() -> Mapping[str, Rule]:
    """Every preflight check, by id, sorted by id."""
    global _LOADED
    if not _LOADED:
        for name in MODULES:
            importlib.import_module(f"planner.aws.{name}")
        _LOADED = True
    return dict(sorted(_REGISTRY.items()))


def aws_error(ctx: RuleContext, path: Path, err: AwsCallError, what: str) -> Finding:
    """The finding for a check that could not run: `what` it wanted to know, and why it could not."""
    return _REGISTRY[AWS_ERROR].finding(ctx, path, f"could not check {what}: {err.message}")


def zone_path(g: NodeGroup, ctx: RuleContext) -> Path:
    """Where a group's Availability Zone is written: in the group, or inherited from the cluster."""
    if "availability_zone" in g.declared:
        return g.path + ("availability_zone",)
    return ctx.cluster.path + ("availability_zone",)


def run(ctx: RuleContext) -> list[Finding]:
    """Every check on one stack, each isolated: one check's AWS failure never hides another's result."""
    out: list[Finding] = []
    for r in registry().values():
        try:
            out.extend(r.run(ctx))
        except AwsCallError as err:
            out.append(aws_error(ctx, ctx.cluster.path, err, r.id.removeprefix("preflight-")))
        except Exception as exc:  # noqa: BLE001 - an endpoint that answers oddly must not stop the other checks
            err = AwsCallError(r.id, f"{type(exc).__name__}: {exc}")
            out.append(aws_error(ctx, ctx.cluster.path, err, r.id.removeprefix("preflight-")))
    unique = {(f.rule, f.line, f.message): f for f in out}  # one AWS failure seen by two checks is one finding
    return list(unique.values())
