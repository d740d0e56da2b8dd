"""The preflight checks' functions, attached to the ids `planner.core.rules.preflight_declarations` declares.

Each check's metadata (id, severity, description, source, remediation, category) is declared
in the core (`planner.core.rules.preflight_declarations.PREFLIGHT`), so that `planner plan` and `planner rules`
know it without this adapter; the modules named in `_load` attach their functions with
`@check(id)`; `planner.aws.preflight_run.registry()` imports them and returns the checks with them. A check reads
its `Preflight` options (`ctx.option(Preflight)`: the `Account` and the region asked), and yields findings
through `r.finding(ctx, path, message)`, which point at the file and line of the value at
fault. Ids are a contract, like rule ids: never rename one.

Every finding carries a case-specific `fix` (the key to change in this stack and the value
to use, built from the account's answer and the stack's values), like the rules' findings;
the check's `remediation` is only the general advice `planner rules` lists.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

from planner.aws.account import Account
from planner.aws.errors import DENIED, REJECTED_CREDENTIALS, THROTTLED, AwsCallError
from planner.core.model.cluster import NodeGroup, Path
from planner.core.model.findings import Finding, outside
from planner.core.rules.preflight_declarations import AWS_ERROR, CATEGORY, PREFLIGHT
from planner.core.rules.rule_registry import Check, RuleContext

__all__ = [
    "AWS_ERROR",
    "CATEGORY",
    "CHECKS",
    "Preflight",
    "aws_error",
    "aws_error_fix",
    "check",
    "zone_key",
    "zone_path",
]

CHECKS = PREFLIGHT  # the one registry of preflight checks: declared in the core, functions attached here


class Preflight(Struct, frozen=True):
    """The options every preflight check reads: the account to ask, and the region asked."""

    account: Account | None = None
    region: str = ""

    def asked(self) -> tuple[Account, str]:
        """(account, region); a check run without an account is planner's own mistake."""
        if self.account is None:
            raise LookupError("a preflight check ran without its Preflight options (account, region)")
        return self.account, self.region


def check(id: str) -> Callable[[Check], Check]:
    """Attach a preflight check's function to the id `planner.core.rules.preflight_declarations` declares."""
    return CHECKS.attach(id)


def aws_error(ctx: RuleContext, path: Path, err: AwsCallError, what: str) -> Finding:
    """The finding for a check that could not run: `what` it wanted to know, and why it could not."""
    return CHECKS.all()[AWS_ERROR].finding(
        ctx,
        path,
        f"could not check {what}: {err.message}",
        fix=outside("account", aws_error_fix(err, ctx.option(Preflight).region or ctx.stack.region, what)),
    )


ACCEPT = "or suppress preflight-aws-error to accept a partial preflight"


def aws_error_fix(err: AwsCallError, region: str, what: str) -> str:
    """What to fix for this failure, from its error code: the IAM action to grant, the credentials to
    refresh, the timeout to raise; a failure planner cannot classify says so rather than guess."""
    action, code = err.action, err.code or ""
    if code == "OptInRequired":
        return f"subscribe the account to the service of {action} (OptInRequired), then run preflight again, {ACCEPT}"
    if code in DENIED:
        return (
            f"allow {action} for the role or user that runs preflight (the IAM policy in the preflight docs), {ACCEPT}"
        )
    if code in REJECTED_CREDENTIALS:
        return f"refresh the AWS credentials ({code}; for example aws sso login) or pass --profile, then run preflight again"
    if code == "NoCredentials":
        return "configure AWS credentials (AWS_PROFILE, ~/.aws/credentials, SSO) or pass --profile, then run preflight again"
    if code == "ProfileNotFound":
        return "pass --profile (or set AWS_PROFILE) to a profile of the AWS config, then run preflight again"
    if code in THROTTLED:
        return f"run preflight again later ({action} was throttled in {region}), {ACCEPT}"
    if code in ("Timeout", "EndpointConnectionError"):
        return f"check the network, proxy and AWS_ENDPOINT_URL (if set) for the {region} endpoint, then run preflight again"
    if code == "Deadline":
        return "raise --aws-timeout, or check the credential_process, proxy or endpoint that did not answer"
    if code == "NotAws":
        return "sign in to the network's portal or fix the proxy (the answer was not AWS's), then run preflight again"
    if code == "NoEndpoint":
        return f"run preflight in a region where {action} has an endpoint (--region), {ACCEPT}"
    if code == "NotImplementedError":
        return f"run preflight against AWS itself (the endpoint does not implement the API it needs), {ACCEPT}"
    if "is not available in" in err.message:
        return f"look up {what} in {region} another way (the AWS console, or AWS Support), {ACCEPT}"
    return f"run preflight again; if {code or 'the failure'} repeats, act on the message, {ACCEPT}"


def zone_key(g: NodeGroup) -> str:
    """How a fix names a group's Availability Zone key: its own (`in node group 'g', set
    availability_zone`) or the cluster's, which it inherits (`set availability_zone`)."""
    if "availability_zone" in g.declared:
        return f"in node group '{g.name}', set availability_zone"
    return "set availability_zone"


def zone_path(g: NodeGroup, ctx: RuleContext) -> Path:
    """Where a group's Availability Zone is written: in the group, or inherited from the cluster."""
    if "availability_zone" in g.declared:
        return g.path + ("availability_zone",)
    return ctx.cluster.path + ("availability_zone",)
