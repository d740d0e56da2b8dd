"""Provider-facing arguments: TypedDicts Pulumi's analyzer infers the package schema from.

Why a second set of argument types: `planner.components.args` holds frozen records with
postponed annotations (strings at run time), which the analyzer of
`pulumi.provider.experimental` cannot follow. These TypedDicts have real annotations and a
docstring under every field (the analyzer reads them from the source), so TypeScript, Go,
C#, Java and YAML programs get typed, documented inputs. `planner.provider.components`
turns them into the records, and the components plan them with the same parser and
rules as a stack file. Keys are the `planner:cluster` keys (camelCase in the schema).

No `from __future__ import annotations` here: the analyzer needs the types, not strings.
"""

from typing import Any, NotRequired, TypedDict

import pulumi


class NodeGroup(TypedDict):
    """One node group: instances of one type, bought one way, in one Availability Zone (`planner:cluster.node_groups[]`)."""

    name: str
    """Lower-case letters, digits and dashes; names the group's launch template and Auto Scaling group."""
    instance_type: NotRequired[str]
    """An instance type from `planner catalog`; the single-type cluster components fill in their own when left out."""
    count: NotRequired[int]
    """Number of instances; for an UltraServer member type `ultraservers` may be given instead."""
    ultraservers: NotRequired[int]
    """Whole UltraServers (instead of `count`), such as four trn2u.48xlarge per u-trn2x64."""
    ultraserver_type: NotRequired[str]
    """The UltraServer type (`planner catalog`), such as u-p6e-gb200x72; needed for a member type of several."""
    purchase: NotRequired[str]
    """on-demand (default), capacity-block or spot."""
    efa: NotRequired[bool]
    """One EFA interface per network card; default true where the type supports EFA."""
    availability_zone: NotRequired[str]
    """Overrides the cluster's Availability Zone (the components build one subnet, so it must be the same)."""
    public_ip: NotRequired[bool]
    """A public IP at launch (default false; impossible on types with several network cards)."""
    capacity_reservation_id: NotRequired[str]
    """The Capacity Block's (or On-Demand Capacity Reservation's) id, cr-..., that the group launches into."""
    capacity_reservation_ids: NotRequired[list[str]]
    """UltraServer Capacity Blocks: one reservation id per UltraServer (instead of `capacity_reservation_id`); one launch template and Auto Scaling group each."""
    capacity_reservation_resource_group_arn: NotRequired[str]
    """UltraServer Capacity Blocks: the ARN of a resource group of them to launch into (instead of a reservation id)."""


class Lustre(TypedDict):
    """The shared FSx for Lustre file system (`planner:cluster.lustre`)."""

    deployment_type: str
    """SCRATCH_1, SCRATCH_2, PERSISTENT_1 or PERSISTENT_2."""
    storage_capacity_gib: NotRequired[int]
    """Capacity in GiB; the valid values depend on the deployment type (the `lustre-capacity` rule). Required but for INTELLIGENT_TIERING."""
    per_unit_storage_throughput: NotRequired[int]
    """MB/s per TiB of storage; PERSISTENT_1 and PERSISTENT_2 SSD and HDD only."""
    storage_type: NotRequired[str]
    """SSD (the default) or INTELLIGENT_TIERING (PERSISTENT_2 only): elastic storage, billed by what is stored."""
    throughput_capacity_mbps: NotRequired[int]
    """INTELLIGENT_TIERING only: the file system's throughput capacity in MBps (1,000, 2,000 or multiples of 4,000)."""
    read_cache_sizing_mode: NotRequired[str]
    """INTELLIGENT_TIERING only: NO_CACHE, USER_PROVISIONED or PROPORTIONAL_TO_THROUGHPUT_CAPACITY."""
    read_cache_size_gib: NotRequired[int]
    """INTELLIGENT_TIERING only, with USER_PROVISIONED: the SSD read cache in GiB."""
    availability_zone: NotRequired[str]
    """Defaults to the cluster's Availability Zone."""
    efa_enabled: NotRequired[bool]
    """An EFA-enabled file system (PERSISTENT_2 only, set at creation)."""
    s3_import_path: NotRequired[str]
    """s3://bucket/prefix linked to the file system (a data repository association on PERSISTENT_2)."""


class Workload(TypedDict):
    """What the cluster will train (`planner:cluster.workload`): sets the run time and the memory and checkpoint checks."""

    model: NotRequired[str]
    """The architecture: a preset (llama3-70b) or a Hugging Face config.json; without mfu, its hours are predicted on the cluster."""
    parameters: NotRequired[float]
    """Model parameters, e.g. 70e9 (with mfu, without model)."""
    tokens: float
    """Training tokens, e.g. 2e12."""
    mfu: NotRequired[float]
    """Model FLOPs utilisation expected, between 0 and 1; with model, it overrides the prediction."""
    sequence_length: NotRequired[int]
    """Tokens per sequence, with model (default 4096)."""
    global_batch_tokens: NotRequired[int]
    """Tokens per optimizer step, a multiple of sequence_length, with model (default 4194304)."""
    precision: NotRequired[str]
    """bf16 (default) or fp8: which dense peak the run time uses."""


class Suppression(TypedDict):
    """A finding that does not apply to this cluster (`planner:cluster.suppress[]`)."""

    rule: str
    """The rule id (`planner rules` lists them)."""
    reason: str
    """Why the finding does not apply; required, and shown wherever the finding is reported."""


class ClusterArgs(TypedDict):
    """A training cluster: the `planner:cluster` topology, then how to deploy it."""

    availability_zone: str
    """The Availability Zone of the cluster (and of its subnet, EFA fabric and file system)."""
    node_groups: list[NodeGroup]
    """At least one node group."""
    placement_group: NotRequired[str]
    """cluster or none; default: cluster when an on-demand group uses EFA."""
    lustre: NotRequired[Lustre]
    """An FSx for Lustre file system shared by the node groups."""
    schedule_hours: NotRequired[float]
    """How long the cluster runs (schedule.hours in a stack file); Capacity Blocks are billed for the next bookable duration."""
    workload: NotRequired[Workload]
    """The training job, when its run time should set the hours."""
    budget_total_usd: NotRequired[float]
    """Fail (budget-exceeded) when the estimated total is above this."""
    budget_monthly_usd: NotRequired[float]
    """Fail (budget-exceeded) when the estimated monthly cost is above this."""
    suppress: NotRequired[list[Suppression]]
    """Findings that do not apply, each with its reason."""
    vpc_id: NotRequired[pulumi.Input[str]]
    """Build in this existing VPC (give its subnet too) instead of a new one."""
    subnet_id: NotRequired[pulumi.Input[str]]
    """The existing subnet, in the cluster's Availability Zone."""
    root_volume_gib: NotRequired[int]
    """Size of each instance's gp3 root volume in GiB, 1 to 16384 (default 500); the estimate prices it."""
    region: NotRequired[str]
    """Default: the stack's `aws:region`."""
    image_id: NotRequired[pulumi.Input[str]]
    """AMI of the nodes; default: the AWS Deep Learning AMI for the accelerator (required for a node group of a type with no accelerator)."""
    root_device_name: NotRequired[str]
    """Root device of `imageId`'s AMI, where each instance's root volume is mapped (its RootDeviceName, such as /dev/xvda); default /dev/sda1, the Deep Learning AMIs'."""
    instance_profile: NotRequired[pulumi.Input[str]]
    """IAM instance profile name for the nodes."""
    security_group_ids: NotRequired[list[pulumi.Input[str]]]
    """Extra security groups on each node's primary interface."""
    key_name: NotRequired[pulumi.Input[str]]
    """EC2 key pair name."""
    user_data: NotRequired[pulumi.Input[str]]
    """Base64-encoded user data, as EC2 expects it."""
    tags: NotRequired[dict[str, str]]
    """Tags on every resource the cluster creates."""


class EfaNetworkArgs(TypedDict):
    """The network of an EFA cluster: VPC and subnet (or existing ones), EFA and Lustre security groups, placement group."""

    availability_zone: str
    """The Availability Zone of the subnet."""
    placement_group: NotRequired[bool]
    """Create a cluster placement group (default false)."""
    vpc_id: NotRequired[pulumi.Input[str]]
    """An existing VPC (give its subnet too) instead of a new one."""
    subnet_id: NotRequired[pulumi.Input[str]]
    """An existing subnet in `availability_zone`."""
    lustre: NotRequired[bool]
    """Create a security group for FSx for Lustre, reachable from the EFA group (default true)."""
    vpc_cidr: NotRequired[str]
    """CIDR of a new VPC (default 10.0.0.0/16)."""
    subnet_cidr: NotRequired[str]
    """CIDR of a new subnet (default 10.0.0.0/19)."""
    region: NotRequired[str]
    """Default: the stack's `aws:region`."""


class LustreStorageArgs(TypedDict):
    """An FSx for Lustre file system, checked against the FSx rules before it is created."""

    lustre: Lustre
    """The file system, as in `planner:cluster.lustre`."""
    subnet_id: pulumi.Input[str]
    """The subnet of the file system (one subnet: it lives in one Availability Zone)."""
    security_group_ids: list[pulumi.Input[str]]
    """The Lustre security group (and the EFA group when `efa_enabled`)."""
    availability_zone: NotRequired[str]
    """The subnet's Availability Zone, checked when `lustre.availability_zone` is not given."""
    file_system_path: NotRequired[str]
    """Where the S3 data repository appears in the file system (PERSISTENT_2; default /)."""
    region: NotRequired[str]
    """Default: the stack's `aws:region`."""


class FindingSuppression(TypedDict):
    """How and why a finding is suppressed."""

    kind: str
    """inSource (the cluster's own `suppress` list) or external (`planner plan --suppress`)."""
    reason: str
    """Why the finding does not apply, as the suppression gives it."""


class FindingEdit(TypedDict):
    """One edit of a finding's fix: a change to the cluster at a key path."""

    path: str
    """The key path, as a finding's `path` (planner:cluster.node_groups[0].count)."""
    op: str
    """set, add or remove."""
    value: NotRequired[Any]
    """The value to set, add or remove (a string, number, boolean or list; null for a removal to the default)."""
    note: NotRequired[str]
    """Words said after the change (why this value)."""
    resource: NotRequired[str]
    """The URN of a program's resource when the edit is of its property (`path`, as the engine names it)."""


class FindingFix(TypedDict):
    """A finding's fix: the edits to make, and the words for people."""

    reason: str
    """Why, or the whole fix when no edit of the cluster can say it (a quota increase); may be empty."""
    edits: list[FindingEdit]
    """The edits to make, all of them."""
    alternatives: NotRequired[list[FindingEdit]]
    """Single edits that would do instead."""
    outside: NotRequired[str]
    """When the reason is an action outside the cluster's declaration, its kind: quota, purchase, opt-in, price,
    confirm, catalogue, account, record, run or workload."""
    text: str
    """The fix said in the terms of where the cluster was declared."""


class Finding(TypedDict):
    """One finding of planner's rules on the cluster, as `planner plan --format json` prints it (`stacks[].findings[]`)."""

    rule: str
    """The rule id."""
    severity: str
    """error, warning or info."""
    message: str
    """What is wrong, with the figures involved."""
    file: str
    """Where the cluster was declared (the component, e.g. Trn2Cluster('train'))."""
    line: int | None
    """The line, when declared in a file."""
    path: str
    """The key path of the value at fault, as written under `config:` (planner:cluster.node_groups[0].count); empty for the cluster as a whole."""
    suppressed: bool
    """Suppressed findings are reported but never fail."""
    suppression: NotRequired[FindingSuppression]
    """How and why, when the finding is suppressed."""
    resource: NotRequired[str]
    """The Pulumi URN of the resource at fault, when the finding is about a resource."""
    fix: NotRequired[FindingFix]
    """The change to make in this cluster, when the rule can name one: as edits, and in words."""
    parts: NotRequired[list[int]]
    """Indexes of the node groups (then the file system) whose keys are on the finding's line, when declared in a file."""
