"""Preflight one stack: run every check against the account, shaped like a plan.

The result is a `StackPlan` (summary, findings, no cost), so `planner preflight` prints
through the same renderers, formats and exit codes as `planner plan`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from planner.aws.account import Account, Clients
from planner.aws.checks import CHECKS, Preflight, aws_error
from planner.aws.errors import NO_CREDENTIALS, AwsCallError, cut, explain
from planner.core.catalogue import instance_types as _catalogue
from planner.core.model.cluster import Stack
from planner.core.model.findings import Finding
from planner.core.planning.pipeline import StackPlan, settle, unused_suppressions
from planner.core.planning.summary import summarize
from planner.core.rules import RuleContext
from planner.core.rules.rule_registry import Rule


def _load() -> None:
    """The modules that attach the checks' functions (explicit imports: import-linter and the import graph see them)."""
    from planner.aws import network, offerings, quotas, reservations, zones  # noqa: F401 - imported for their @check


CHECKS.loads_with(_load)


def registry() -> Mapping[str, Rule]:
    """Every preflight check, by id, sorted by id, with its function attached."""
    return CHECKS.all()


def run(ctx: RuleContext) -> list[Finding]:
    """Every check on one stack, each isolated: one check's AWS failure never hides another's result."""
    out: list[Finding] = []
    for r in registry().values():
        try:
            out.extend(r.run(ctx))
        except AwsCallError as err:
            out.append(aws_error(ctx, ctx.cluster.path, err, r.id.removeprefix("preflight-")))
        except Exception as exc:  # noqa: BLE001 - an endpoint that answers oddly must not stop the other checks
            odd = AwsCallError(r.id, f"{type(exc).__name__}: {cut(exc)}", type(exc).__name__)
            out.append(aws_error(ctx, ctx.cluster.path, odd, r.id.removeprefix("preflight-")))
    unique = {(f.rule, f.line, f.message): f for f in out}  # one AWS failure seen by two checks is one finding
    return list(unique.values())


class SetupError(Exception):
    """Preflight cannot start at all (no credentials, unknown profile): one line, exit 2."""


def open_clients(profile: str | None = None) -> Clients:
    """Clients on boto3's credential chain (or `profile`); SetupError when there is nothing to ask with."""
    from botocore.exceptions import BotoCoreError

    from planner.aws.deadline import DeadlineExceeded, calling

    try:
        with calling():
            clients = Clients(profile)
            found = clients.has_credentials()
        if not found:
            raise SetupError(f"{NO_CREDENTIALS}; configure them or pass --profile")
    except (BotoCoreError, DeadlineExceeded) as exc:
        raise SetupError(explain(exc, "sts:GetCallerIdentity").message) from None
    except (ValueError, OSError) as exc:  # a credential_process printing non-JSON, or one that cannot run
        raise SetupError(
            f"cannot load AWS credentials ({type(exc).__name__}: {cut(exc)}); check credential_process "
            "in the AWS config, or pass --profile"
        ) from None
    return clients


def open_account(profile: str | None = None) -> Account:
    """An `Account` on boto3's credential chain (or `profile`); SetupError when there is nothing to ask with."""
    return Account(open_clients(profile).client)


def preflight_stack(
    stack: Stack, account: Account, region: str | None = None, suppress: Iterable[str] = ()
) -> StackPlan:
    """Every preflight check on `stack`, asking `region` (default: the stack's aws:region)."""
    cat = _catalogue.load()
    ctx = RuleContext(stack, cat, None, (Preflight(account, region or stack.region),))
    findings = settle(run(ctx), stack, suppress)
    # only `--suppress` is judged: the stack's own suppressions are for `planner plan`'s rules
    unused = unused_suppressions(findings, stack, suppress, in_source=False)
    return StackPlan(stack, summarize(stack.cluster, cat), findings, None, unused)
