"""Is the account opted in to the Local Zones the cluster is declared in?

A Local Zone is enabled per zone group ("To use a Local Zone, you must first enable it", AWS
Local Zones User Guide); the group's name is AWS's, read from DescribeAvailabilityZones
(`GroupName`), never derived from the zone's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from planner.aws.checks import Preflight, aws_error, check
from planner.aws.errors import AwsCallError
from planner.core.model.cluster import Path
from planner.core.model.findings import Finding
from planner.core.rules import Rule, RuleContext
from planner.core.rules.network_placement import zone_places
from planner.core.rules.spec_rules import outside

LOCAL_ZONE = "local-zone"  # DescribeAvailabilityZones ZoneType of a Local Zone
NOT_OPTED_IN = "not-opted-in"  # its OptInStatus before the account opts in to the zone's group
# "For Availability Zones, this parameter always has the value of opt-in-not-required" (API_AvailabilityZone,
# OptInStatus): a zone named as the region and a letter (us-east-2b) is one; any other is asked about
_AZ = re.compile(r"[a-z]", re.ASCII)
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}", re.ASCII)  # a zone group name, printed into a shell command


@check("preflight-local-zone")
def local_zone(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    account, region = ctx.option(Preflight).asked()
    places: dict[str, Path] = {}
    for az, path in zone_places(ctx.cluster):
        if not _AZ.fullmatch(az.removeprefix(region)):  # an Availability Zone needs no opt-in: not asked
            places.setdefault(az, path)  # each zone once, at the first key that sets it
    if not places:
        return
    try:
        zones = account.zones(region)
    except AwsCallError as err:
        yield aws_error(ctx, next(iter(places.values()), ctx.cluster.path), err, "the Local Zones' opt-in status")
        return
    for az, path in places.items():
        z = zones.get(az)
        if z is None or z.get("ZoneType") != LOCAL_ZONE or z.get("OptInStatus") != NOT_OPTED_IN:
            continue
        group = z.get("GroupName")
        if isinstance(group, str) and _NAME.fullmatch(group):
            yield r.finding(
                ctx,
                path,
                f"{az} is a Local Zone of {region} in zone group {group}, which the account has not opted in to "
                f"(DescribeAvailabilityZones: OptInStatus {NOT_OPTED_IN})",
                fix=outside(
                    "opt-in",
                    f"opt in: `aws ec2 modify-availability-zone-group --region {region} --group-name {group} "
                    "--opt-in-status opted-in` (once per account), then run preflight again",
                ),
            )
        else:
            yield r.finding(
                ctx,
                path,
                f"{az} is a Local Zone of {region} that the account has not opted in to (DescribeAvailabilityZones: "
                f"OptInStatus {NOT_OPTED_IN}, and no zone group name)",
                fix=outside(
                    "opt-in",
                    f"opt in to the zone's group (`aws ec2 describe-availability-zones --region {region} "
                    f"--all-availability-zones --zone-names {az}` names it), then run preflight again",
                ),
            )
