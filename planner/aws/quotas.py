"""Do the account's EC2 vCPU quotas cover the declared instances?

EC2 limits running instances by vCPUs per family group ("Running On-Demand P instances",
"All Trn Spot Instance Requests"): a cluster of 16 trn2.48xlarge needs 3,072 vCPUs of the
Trn quota, which new accounts do not have. Quota codes are data (data/aws-quotas.yaml).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from msgspec import Struct

from planner.aws.account import Quota
from planner.aws.checks import Preflight, aws_error, check
from planner.aws.errors import AwsCallError
from planner.core.catalogue import shipped_data as _data
from planner.core.model.cluster import NodeGroup, Purchase
from planner.core.model.findings import Finding
from planner.core.rules import Rule, RuleContext, count_path
from planner.core.rules.spec_rules import Fix, outside, set_to, shrink

COUNTED: tuple[Purchase, ...] = (
    "on-demand",
    "spot",
)  # capacity-block groups are bounded by their block (see the data file)


class QuotaRef(Struct, frozen=True):
    code: str
    name: str


@lru_cache(maxsize=1)
def quota_table() -> dict[tuple[str, Purchase], QuotaRef]:
    """(family letters, purchase) -> the quota that bounds it."""
    raw = _data.raw("aws-quotas.yaml")[0]
    return {
        (q["family"], purchase): QuotaRef(q[purchase]["code"], q[purchase]["name"])
        for q in raw["quotas"]
        for purchase in COUNTED
    }


def quota_for(family: str, purchase: Purchase) -> QuotaRef | None:
    letters = re.match(r"[a-z]+", family)
    return quota_table().get((letters.group(0) if letters else family, purchase))


@check("preflight-quota")
def vcpu_quota(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    account, region = ctx.option(Preflight).asked()
    needs: dict[QuotaRef, list[NodeGroup]] = {}
    for g in ctx.cluster.node_groups:
        ref = quota_for(ctx.catalogue.spec(g.instance_type).family, g.purchase)
        if ref is not None:
            needs.setdefault(ref, []).append(g)
    for ref, groups in needs.items():
        where = count_path(groups[0])
        vcpus = sum(g.count * ctx.catalogue.spec(g.instance_type).vcpus for g in groups)
        try:
            quota = account.quota(region, ref.code)
        except AwsCallError as err:
            yield aws_error(ctx, where, err, f"the vCPU quota {ref.code} ({ref.name})")
            continue
        if vcpus <= quota.value:
            continue
        parts = " + ".join(
            f"{g.count} x {g.instance_type} x {ctx.catalogue.spec(g.instance_type).vcpus}" for g in groups
        )
        names = ", ".join(f"'{g.name}'" for g in groups)
        kind = "applied" if quota.applied else "AWS default"
        yield r.finding(
            ctx,
            where,
            f"node group{'s' if len(groups) > 1 else ''} {names} need{'' if len(groups) > 1 else 's'} "
            f"{vcpus:,} vCPUs ({parts}) of '{quota.name}' ({ref.code}); the {kind} quota in "
            f"{region} is {quota.value:,.0f} vCPUs, and running instances count against it too",
            fix=_fix(ctx, ref, quota, groups, vcpus, region),
        )


def _fix(ctx: RuleContext, ref: QuotaRef, quota: Quota, groups: list[NodeGroup], vcpus: int, region: str) -> Fix:
    """The increase to request (code, name, numbers, region), or the size that fits the quota as it is."""
    ask = (
        f"request {ref.code} ({quota.name}) be raised to at least {vcpus:,} vCPUs (now {quota.value:,.0f}) in "
        f"Service Quotas, region {region}, plus what already runs there"
    )
    if len(groups) > 1:
        vcpus_of = {g.instance_type: ctx.catalogue.spec(g.instance_type).vcpus for g in groups}
        note = f"at most {quota.value:,.0f} vCPUs in all"
        fewer = shrink(ctx, groups, lambda g: vcpus_of[g.instance_type], int(quota.value), note)
        return outside("quota", f"or {ask}" if fewer else ask, fewer)
    g = groups[0]
    t = ctx.catalogue.spec(g.instance_type)
    fit = int(quota.value // t.vcpus)
    size = ctx.catalogue.unit_of(g)
    if g.ultraservers is not None and size > 1:
        units = fit // size
        if units >= 1:
            smaller = set_to(ctx, g.path + ("ultraservers",), units, f"{units * size * t.vcpus:,} vCPUs")
            return outside("quota", ask, alternatives=(smaller,))
        return outside("quota", ask)
    if fit >= 1:
        return outside("quota", ask, alternatives=(set_to(ctx, g.path + ("count",), fit, f"{fit * t.vcpus:,} vCPUs"),))
    return outside("quota", ask)
