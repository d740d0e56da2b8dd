"""The preflight checks' declarations: ids, severities, sources and remediations, in the core.

A preflight check asks the AWS account, so its function lives in the AWS adapter
(`planner.aws.offerings`, `quotas`, `reservations`, `network`, attached with
`planner.aws.checks.check(id)`); its metadata is declared here, so that `planner plan`
accepts a suppression of it and `planner rules` lists it without importing that adapter
(or boto3). Ids are a contract, like rule ids: never rename one.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.findings import Finding
from planner.core.rules.rule_registry import Registry, Rule, RuleContext

PREFLIGHT = Registry("preflight check")
CATEGORY = "preflight"
AWS_ERROR = "preflight-aws-error"

OFFERINGS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html"
TYPES_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypes.html"
EFA_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types"
QUOTA_DOC = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-quotas.html"
RESERVATION_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html"
NETWORK_DOC = "https://docs.aws.amazon.com/vpc/latest/userguide/configure-subnets.html"
# "To use a Local Zone, you must first enable it." (AWS Local Zones User Guide, How Local Zones work);
# DescribeAvailabilityZones gives each zone's GroupName and OptInStatus (API_AvailabilityZone)
LOCAL_ZONE_DOC = "https://docs.aws.amazon.com/local-zones/latest/ug/how-local-zones-work.html"


def _no_check(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """preflight-aws-error has no check of its own: the other checks raise it."""
    return iter(())


PREFLIGHT.declare(
    AWS_ERROR,
    "error",
    "An AWS call a preflight check needs failed (no credentials, access denied, throttling, an API not in the "
    "region): that check's result is unknown.",
    "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_actions-resources-contextkeys.html",
    "Fix what the message names (grant the IAM action listed in the preflight docs, refresh credentials, retry later); "
    "suppress preflight-aws-error to accept a partial preflight.",
    category=CATEGORY,
    inspects="account",
    check=_no_check,
)

PREFLIGHT.declare(
    "preflight-offering",
    severity="error",
    description="An instance type is not offered in the Availability Zone its node group is declared in.",
    source=OFFERINGS_DOC,
    remediation="Move the node group to an Availability Zone the message lists, or to a region that offers the type; "
    "for Capacity Blocks, book the block in the declared zone and declare its capacity_reservation_id.",
    category=CATEGORY,
    inspects="account",
)

PREFLIGHT.declare(
    "preflight-efa",
    severity="error",
    description="The account's DescribeInstanceTypes does not confirm the EFA support or the network cards "
    "(one EFA interface per card for full bandwidth) that the catalogue and the declared group assume.",
    source=EFA_DOC,
    remediation="Set efa: false or choose an EFA-capable type; when the catalogue's card or interface count is "
    "stale, correct planner/data/catalogue.yaml with its source.",
    category=CATEGORY,
    inspects="account",
)

PREFLIGHT.declare(
    "preflight-catalogue",
    severity="warning",
    description="A figure of the catalogue (vCPUs, memory, accelerators, accelerator memory) differs from the "
    "account's DescribeInstanceTypes; info when the catalogue documents why it uses another source.",
    source=TYPES_DOC,
    remediation="Check the figure's sources (planner catalog --format json); correct planner/data/catalogue.yaml, "
    "or document the decision in the entry's notes and field_sources.",
    category=CATEGORY,
    inspects="account",
)

PREFLIGHT.declare(
    "preflight-quota",
    severity="error",
    description="The account's EC2 vCPU quota for an instance family (Service Quotas) is smaller than the declared "
    "on-demand or spot instances need (instances x vCPUs).",
    source=QUOTA_DOC,
    remediation="Request a quota increase in Service Quotas (the message names the quota code) before deploying, "
    "or reduce the node groups; instances already running count against the same quota.",
    category=CATEGORY,
    inspects="account",
)

PREFLIGHT.declare(
    "preflight-reservation",
    severity="error",
    description="A declared capacity_reservation_id does not exist in the region, is not a Capacity Block where the "
    "group buys one (or is one where it does not), is over or unusable, or does not match the group's "
    "instance type, Availability Zone or size.",
    source=RESERVATION_DOC,
    remediation="Declare the id of a reservation in the group's region, AZ and type that holds its instances "
    "(aws ec2 describe-capacity-reservations); for capacity-block groups, the Capacity Block's id.",
    category=CATEGORY,
    inspects="account",
)

PREFLIGHT.declare(
    "preflight-network",
    severity="error",
    description="A declared network.vpc_id or network.subnet_id does not exist in the region, or the subnet is in "
    "another VPC or Availability Zone than the cluster declares; or (a warning) a subnet, declared or a program's "
    "existing one, with fewer free IP addresses than the instances' interfaces need (EFA-only interfaces need none).",
    source=NETWORK_DOC,
    remediation="Declare a subnet of the declared VPC in the cluster's Availability Zone (aws ec2 describe-subnets), "
    "or drop `network` to let the components create the VPC.",
    category=CATEGORY,
    inspects="account",
)

PREFLIGHT.declare(
    "preflight-local-zone",
    severity="error",
    description="A node group or the file system is declared in a Local Zone whose zone group the account has not "
    "opted in to (DescribeAvailabilityZones: the zone's GroupName and OptInStatus).",
    source=LOCAL_ZONE_DOC,
    remediation="Opt in to the zone group DescribeAvailabilityZones names (`aws ec2 modify-availability-zone-group "
    "--group-name GROUP --opt-in-status opted-in`) before deploying.",
    category=CATEGORY,
    inspects="account",
)
