"""Checks of single resources (and of EFA security groups): the policy pack's resource policies.

A program's launch template or instance says things a stack file cannot (its IMDS options,
where it sets security groups, what its security groups allow), so these rules never fire
on a stack file. The checks themselves read resource properties (`planner.policy.resource_checks`,
`planner.readback.security_groups`): the pack runs them per resource (each is one policy, with its
own enforcement level), and `planner plan --program` runs them on the program's resources and
leaves their results as notes of the read-back, which these rules report with the same ids
(located at the resource, suppressible like any rule).
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.findings import Finding
from planner.core.rules.program_shapes import readback_notes
from planner.core.rules.spec_rules import RULES, Rule, RuleContext

# AWS Security Hub control [EC2.8] "EC2 instances should use Instance Metadata Service Version 2 (IMDSv2)": the
# standard planner's IMDSv2 policy follows (AWS does not require IMDSv2; EC2 leaves httpTokens optional by default)
SECURITY_HUB_EC2_8 = "https://docs.aws.amazon.com/securityhub/latest/userguide/ec2-controls.html#ec2-8"
# "Modifies the default instance metadata service (IMDS) settings at the account level in the specified AWS Region."
IMDS_DEFAULTS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyInstanceMetadataDefaults.html"
LAUNCH_TEMPLATE_DATA_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_RequestLaunchTemplateData.html"
EFA_SECURITY_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html#efa-start-security"
# "The file system cannot be created because the default security group in the subnet provided or the provided
# security groups do not permit Lustre LNET network traffic on port 988 ... You must set up the security group to
# allow inbound traffic on ports 988 and 1018-1023"
LUSTRE_PORTS_DOC = "https://docs.aws.amazon.com/fsx/latest/LustreGuide/cannot-create-fs.html"

IMDSV2 = "imdsv2-required"
INTERFACE_SECURITY_GROUPS = "interface-security-groups"
EFA_SECURITY_GROUP = "efa-security-group"
LUSTRE_SECURITY_GROUP = "lustre-security-group"


def _reported(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """What the read-back of a program's resources found under rule `r` (its notes)."""
    yield from readback_notes(r, ctx)


RULES.declare(
    IMDSV2,
    severity="warning",
    category="security",
    inspects="resource",
    description=(
        "planner's policy, following AWS Security Hub control EC2.8 (\"EC2 instances should use Instance Metadata "
        'Service Version 2 (IMDSv2)"); AWS does not require IMDSv2: a launch template or instance whose '
        "metadataOptions.httpTokens is 'optional', or unset (then the account's IMDS default for the Region, or the "
        "AMI, decides)."
    ),
    source=SECURITY_HUB_EC2_8,
    remediation=(
        "Set metadataOptions.httpTokens to 'required' on the launch template (or the instance); or, where it is "
        "unset and the account's IMDS default requires IMDSv2 (`aws ec2 get-instance-metadata-defaults`; set with "
        "`aws ec2 modify-instance-metadata-defaults --http-tokens required`), suppress the finding with that reason."
    ),
    check=_reported,
)

RULES.declare(
    INTERFACE_SECURITY_GROUPS,
    severity="error",
    category="network",
    inspects="resource",
    description="A launch template that declares network interfaces sets security groups at its top level, which EC2 "
    "does not take with network interfaces.",
    source=LAUNCH_TEMPLATE_DATA_DOC,
    remediation="Set the security groups on each network interface (networkInterfaces[].securityGroups) instead of "
    "vpcSecurityGroupIds or securityGroupNames.",
    check=_reported,
)

RULES.declare(
    EFA_SECURITY_GROUP,
    severity="error",
    category="network",
    inspects="resource",
    description="A security group of EFA interfaces does not allow all traffic in from and out to itself.",
    source=EFA_SECURITY_DOC,
    remediation="Add an all-traffic (protocol -1) inbound and outbound rule naming the security group itself.",
    check=_reported,
)

RULES.declare(
    LUSTRE_SECURITY_GROUP,
    severity="error",
    category="storage",
    inspects="resource",
    description="The security groups of an FSx for Lustre file system, together, do not let in TCP 988 and "
    "1018-1023 (AWS does not create a file system whose groups refuse port 988).",
    source=LUSTRE_PORTS_DOC,
    remediation="Add inbound TCP rules for port 988 and ports 1018-1023 to one of the file system's security groups "
    "(from the group itself and the clients' groups), as planner's LustreStorage component does.",
    check=_reported,
)
