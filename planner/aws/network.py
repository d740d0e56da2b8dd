"""Do the declared VPC and subnet exist, and do they fit the cluster?

The subnet decides the Availability Zone: an instance launches in its subnet's zone, EFA
traffic does not cross zones, and FSx for Lustre lives in exactly one subnet.

A `network` is a stack file's (or a component's) key: a program read back has none. The fixes are edits of
the cluster's `network` (a VPC or subnet id the account must give is written as `vpc-...`, `subnet-...`,
with the command that lists them in the edit's note), said in the stack file's keys by its adapter.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.aws.checks import Preflight, aws_error, check, zone_path
from planner.aws.errors import AwsCallError
from planner.core.model.cluster import NodeGroup, Path
from planner.core.model.findings import Edit, Finding
from planner.core.rules import Rule, RuleContext
from planner.core.rules.spec_rules import Fix, outside, remove, set_to, shrink

# "You can't assign an IP address to an EFA-only network interface." (EC2 User Guide, Create and attach an EFA)
EFA_ONLY_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-efa.html"


@check("preflight-network")
def network(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    account, region = ctx.option(Preflight).asked()
    net = ctx.cluster.network
    if net is None:
        yield from _program_subnets(r, ctx)
        return
    vpc_found = False
    if net.vpc_id:
        where = net.path + ("vpc_id",)
        try:
            if account.vpc(region, net.vpc_id) is None:
                yield r.finding(
                    ctx,
                    where,
                    f"VPC {net.vpc_id} does not exist in {region}",
                    fix=Fix(
                        edits=(
                            set_to(
                                ctx, where, "vpc-...", f"a VPC of {region}: aws ec2 describe-vpcs --region {region}"
                            ),
                        ),
                        alternatives=(remove(ctx, net.path, note="to let the components create one"),),
                    ),
                )
            else:
                vpc_found = True
        except AwsCallError as err:
            yield aws_error(ctx, where, err, f"VPC {net.vpc_id}")
    if not net.subnet_id:
        return
    where = net.path + ("subnet_id",)
    az = ctx.cluster.availability_zone
    try:
        subnet = account.subnet(region, net.subnet_id)
    except AwsCallError as err:
        yield aws_error(ctx, where, err, f"subnet {net.subnet_id}")
        return
    if subnet is None:
        of = f" of {net.vpc_id}" if vpc_found else ""
        yield r.finding(
            ctx,
            where,
            f"subnet {net.subnet_id} does not exist in {region}",
            fix=Fix(edits=(_subnet(ctx, where, f"a subnet{of} in {az}: aws ec2 describe-subnets --region {region}"),)),
        )
        return
    vpc = subnet.get("VpcId")
    if net.vpc_id and vpc != net.vpc_id:
        yield r.finding(
            ctx,
            where,
            f"subnet {net.subnet_id} belongs to {vpc}, not to the declared {net.vpc_id}",
            fix=Fix(
                edits=(set_to(ctx, net.path + ("vpc_id",), vpc, "the subnet's VPC"),) if isinstance(vpc, str) else (),
                alternatives=(_subnet(ctx, where, f"a subnet of {net.vpc_id} in {az}"),),
            ),
        )
    zone = subnet.get("AvailabilityZone")
    users = [(f"node group '{g.name}'", g.availability_zone, zone_path(g, ctx)) for g in ctx.cluster.node_groups]
    fs = ctx.cluster.lustre
    if fs is not None:
        key = (
            fs.path + ("availability_zone",)
            if "availability_zone" in fs.declared
            else ctx.cluster.path + ("availability_zone",)
        )
        users.append(("the FSx for Lustre file system", fs.availability_zone, key))
    of = f" of {net.vpc_id or vpc}" if (net.vpc_id or vpc) else ""
    for who, declared, key in users:
        if zone and declared != zone:
            yield r.finding(
                ctx,
                where,
                f"subnet {net.subnet_id} is in {zone}; {who} is declared in {declared}",
                fix=Fix(
                    edits=(set_to(ctx, key, zone, "the subnet's AZ"),) if isinstance(zone, str) else (),
                    alternatives=(_subnet(ctx, where, f"a subnet{of} in {declared}"),),
                ),
            )
    free = subnet.get("AvailableIpAddressCount")
    need = sum(g.count * g.addresses_per_instance for g in ctx.cluster.node_groups)
    if isinstance(free, int) and free < need:
        yield r.finding(
            ctx,
            where,
            f"subnet {net.subnet_id} has {free} free IP addresses; the cluster declares {ctx.cluster.instances} "
            "instances, each needing at least one",
            severity="warning",
            fix=Fix(
                f"or free {need - free} more in {net.subnet_id}",
                (_subnet(ctx, where, f"a subnet{of} in {zone or az} with at least {need} free IP addresses"),),
            ),
        )


def _subnet(ctx: RuleContext, where: Path, which: str) -> Edit:
    """Set the network's subnet id to one the account has (`which`: what it must be, and where to find it)."""
    return set_to(ctx, where, "subnet-...", which)


def _program_subnets(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """A program's node groups in existing subnets (`NodeGroup.subnet_ids`, read back): the groups that launch
    into the same subnets together, against the free IP addresses AWS counts in them. Each instance takes one
    address per interface that has one: an EFA-only interface has none ("You can't assign an IP address to an
    EFA-only network interface", EC2 User Guide, Create and attach an EFA)."""
    account, region = ctx.option(Preflight).asked()
    pools: dict[tuple[str, ...], list[NodeGroup]] = {}
    for g in ctx.cluster.node_groups:
        if g.subnet_ids:
            pools.setdefault(g.subnet_ids, []).append(g)
    for ids, groups in pools.items():
        free = 0
        for sid in ids:
            try:
                subnet = account.subnet(region, sid)
            except AwsCallError as err:
                yield aws_error(ctx, groups[0].path + ("count",), err, f"subnet {sid}")
                return
            count = None if subnet is None else subnet.get("AvailableIpAddressCount")
            if not isinstance(count, int):
                break  # a subnet that does not exist (the launch fails for that) or says no count: not judged
            free += count
        else:
            need = sum(g.count * g.addresses_per_instance for g in groups)
            if free >= need:
                continue
            names = ", ".join(f"'{g.name}' ({g.count} x {g.addresses_per_instance})" for g in groups)
            where = ", ".join(ids)
            yield r.finding(
                ctx,
                groups[0].path + ("count",),
                f"subnet {where} has {free} free IP addresses; node group(s) {names} launch into it and need "
                f"{need} (one per instance and interface that has one; EFA-only interfaces take none: {EFA_ONLY_DOC})",
                severity="warning",
                fix=_addresses_fix(ctx, groups, free, need, where, region),
            )


def _addresses_fix(ctx: RuleContext, groups: list[NodeGroup], free: int, need: int, where: str, region: str) -> Fix:
    """Size the groups to the addresses the subnet has free, or make room (another subnet, freed addresses,
    EFA-only interfaces), which the account holds."""
    fewer = shrink(ctx, groups, lambda g: g.addresses_per_instance, free, f"{free} free IP addresses in {where}")
    room = (
        f"launch into a subnet of {ctx.cluster.availability_zone or region} with at least {need} free "
        f"IP addresses, free {need - free} more in {where}, or use EFA-only interfaces beyond the primary one"
    )
    return outside("account", f"or {room}" if fewer else room, fewer)
