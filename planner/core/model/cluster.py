"""The declared cluster: typed, immutable, and every value traceable to its file and line.

Each record keeps `path`, its key path inside the stack file (for example
`("config", "planner:cluster", "node_groups", 0)`); `Stack.line(path)` turns a path into
the line a finding should point at. Values are the declared ones with defaults applied;
`declared` says which keys the user actually wrote, for rules that care about intent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from msgspec import Struct, field

from planner.core.model.findings import Fix, Severity
from planner.core.model.provenance import Provenance
from planner.core.model.transformer import Transformer
from planner.core.reading.yaml_lines import Lines, line_of

# How a node group's instances are bought (the stack's `purchase`, a price book's key).
Purchase = Literal["on-demand", "capacity-block", "spot"]
PURCHASES: tuple[Purchase, ...] = get_args(Purchase)
PLACEMENTS = ("cluster", "none")
# The FSx for Lustre deployment types (the API's DeploymentType values).
DeploymentType = Literal["SCRATCH_1", "SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"]
LUSTRE_DEPLOYMENTS: tuple[DeploymentType, ...] = get_args(DeploymentType)
# An FSx for Lustre file system's storage class as planner models it (the API's StorageType): SSD, the
# default (PERSISTENT_1's HDD tiers are told apart by their per-unit throughput, 12 or 40 MB/s/TiB), or
# Intelligent-Tiering, elastic storage with a throughput capacity for the whole file system.
LustreStorageType = Literal["SSD", "INTELLIGENT_TIERING"]
LUSTRE_STORAGE_TYPES: tuple[LustreStorageType, ...] = get_args(LustreStorageType)
INTELLIGENT_TIERING: LustreStorageType = "INTELLIGENT_TIERING"
# How an Intelligent-Tiering file system's SSD read cache is sized (the API's LustreReadCacheConfiguration
# SizingMode).
ReadCacheSizingMode = Literal["NO_CACHE", "USER_PROVISIONED", "PROPORTIONAL_TO_THROUGHPUT_CAPACITY"]
READ_CACHE_SIZING_MODES: tuple[ReadCacheSizingMode, ...] = get_args(ReadCacheSizingMode)
PRECISIONS = ("bf16", "fp8")
# The gp3 root volume of each instance the components launch: the size they create when the
# stack leaves `root_volume_gib` out, and the range gp3 accepts (1 GiB to 16 TiB, Amazon EBS
# User Guide, "General Purpose SSD volumes": https://docs.aws.amazon.com/ebs/latest/userguide/general-purpose.html).
ROOT_VOLUME_GIB = 500
ROOT_VOLUME_RANGE = (1, 16384)
ROOT_VOLUME_TYPE = "gp3"  # what the components create (planner.components.accelerated_cluster.launch_template_args)
# EBS volume types as the EC2 API names them (VolumeType); planner prices every one but `standard`
# (magnetic, a previous generation), which also bills each I/O request, a figure no program declares.
VOLUME_TYPES = ("gp2", "gp3", "io1", "io2", "st1", "sc1", "standard")
PRICED_VOLUME_TYPES = ("gp2", "gp3", "io1", "io2", "st1", "sc1")

Path = tuple[Any, ...]


class LaunchInterface(Struct, frozen=True):
    """One network interface of a read-back launch, where the program declared it: a fix names the
    element of the resource's `networkInterfaces` list to change, not only its network card."""

    position: int  # its index in the resource's `networkInterfaces` list, as declared
    card: int  # networkCardIndex
    device: int  # deviceIndex
    kind: str  # interfaceType: efa, efa-only, or interface (ENA)
    # True: an instance's interface, a network interface resource attached at `position`, whose own
    # `interfaceType` sets the kind; False: a launch template's, whose element sets it
    attached: bool = False


class Volume(Struct, frozen=True):
    """One EBS volume each instance of a node group gets, as its launch declares it: what the estimate bills.

    `size_gib`, `volume_type`, `iops` (gp3, io1, io2) and `throughput` (MiB/s, gp3) are as declared, None
    when not. `unknown` says why the volume cannot be priced (its size is the AMI's default mapping's, or a
    snapshot's; its type is not declared), in a few words the estimate's `left_out` repeats; `basis`, where a
    value the program does not write comes from (a documented default), said on its line items.
    """

    device: str  # the device name as mapped ("/dev/sda1"); "" when the resource names none (EKS `diskSize`)
    volume_type: str | None = None
    size_gib: int | None = None
    iops: int | None = None
    throughput: int | None = None
    root: bool = False
    unknown: str | None = None
    basis: str | None = None


ROOT_SIZE_UNKNOWN = "size unknown: the AMI's default mapping"


class NodeGroup(Struct, frozen=True):
    """Instances of one type bought one way in one AZ: the unit rules check and the estimate prices."""

    name: str
    instance_type: str
    count: int  # instances, also when declared as `ultraservers`
    purchase: Purchase = "on-demand"
    efa: bool = True
    availability_zone: str = ""  # effective AZ (group's own, else the cluster's)
    public_ip: bool = False
    # where the group launches: the reservations (Capacity Blocks) it targets, as declared (one id,
    # or one per UltraServer), or a Capacity Reservation resource group (of blocks or reservations); empty/None: none named
    capacity_reservation_ids: tuple[str, ...] = ()
    capacity_reservation_resource_group_arn: str | None = None
    ultraservers: int | None = None  # as declared; None when `count` was given
    # the UltraServer type (catalogue `ultraserver_types`) the group is made of: as declared, or the only
    # one its instance type belongs to; None for instance types sold one by one
    ultraserver_type: str | None = None
    path: Path = ()
    declared: frozenset[str] = frozenset()
    max_count: int | None = None  # read back from an Auto Scaling or EKS node group: the most it may scale to
    # read back: it launches up to `max_count` by itself as jobs arrive (an AWS PCS group's dynamic capacity),
    # so a budget is held to its maximum, as to pools that launch on demand
    grows_with_jobs: bool = False
    zones: tuple[str, ...] = ()  # read back: every AZ the group's subnets span, when more than one
    interfaces: tuple[LaunchInterface, ...] | None = None  # read back: each launch interface, in declared order
    # effective gp3 root volume per instance, GiB: the cluster's `root_volume_gib`; read back from a
    # program, the launch template's own, or None when the read-back cannot tell (then not priced)
    root_volume_gib: int | None = ROOT_VOLUME_GIB
    # read back from a program: every EBS volume each instance gets, as its launch declares them (the
    # root volume's size unknown when only the AMI's mapping gives it); None: the components' one root
    # volume of `root_volume_gib` (`ebs`)
    volumes: tuple[Volume, ...] | None = None
    # read back from a program: whether the group launches into a cluster placement group (its own, or its
    # launch template's); None: a stack file's group, which the cluster's `placement_group` applies to
    in_placement_group: bool | None = None
    # read back from a program: the existing subnets (ids the program writes, not subnets it creates) the group
    # launches into; `planner preflight` asks AWS how many free addresses they have
    subnet_ids: tuple[str, ...] = ()

    @property
    def addresses_per_instance(self) -> int:
        """The private IP addresses each instance takes in its subnet: one per interface that has one (an
        EFA-only interface has none: "You can't assign an IP address to an EFA-only network interface", EC2
        User Guide, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-efa.html); one when the
        interfaces are not known (a stack file's group: its primary interface)."""
        if not self.interfaces:
            return 1
        return max(1, sum(1 for n in self.interfaces if n.kind != "efa-only"))

    @property
    def ebs(self) -> tuple[Volume, ...]:
        """Every EBS volume each instance gets: as read back, else the gp3 root volume of `root_volume_gib`
        the components create (its size unknown when `root_volume_gib` is None)."""
        if self.volumes is not None:
            return self.volumes
        if self.root_volume_gib is None:
            return (Volume("", root=True, unknown=ROOT_SIZE_UNKNOWN),)
        return (Volume("", ROOT_VOLUME_TYPE, self.root_volume_gib, root=True),)

    @property
    def launch_target(self) -> bool:
        """True when the group names where it launches (a reservation id, or a resource group of them)."""
        return bool(self.capacity_reservation_ids) or self.capacity_reservation_resource_group_arn is not None


class Lustre(Struct, frozen=True):
    """The cluster's FSx for Lustre file system as declared (effective AZ filled in)."""

    deployment_type: DeploymentType
    storage_capacity_gib: int | None  # None only for Intelligent-Tiering, whose storage is elastic
    per_unit_storage_throughput: int | None = None
    availability_zone: str = ""  # effective AZ
    efa_enabled: bool = False
    s3_import_path: str | None = None
    path: Path = ()
    declared: frozenset[str] = frozenset()
    # What an EFA-enabled file system needs beyond `efa_enabled` (the `lustre-efa-requirements` rule), as
    # a program's resources say it: a metadata configuration, and security groups that allow all traffic
    # with themselves both ways. None: this source does not say (a stack file, the components: planner's
    # components create both for an EFA-enabled file system), or the read-back cannot tell.
    metadata_configuration: bool | None = None
    efa_security_group: bool | None = None
    # the metadata configuration's mode (AUTOMATIC, USER_PROVISIONED) and Metadata IOPS, as a program gives them
    # (`lustre-metadata-iops`); None when not given or not known before deploy
    metadata_mode: str | None = None
    metadata_iops: int | None = None
    # Intelligent-Tiering (`storage_type`): the file system's throughput capacity in MBps, and its SSD read
    # cache (how it is sized; its size in GiB when USER_PROVISIONED). None on an SSD file system.
    storage_type: LustreStorageType = "SSD"
    throughput_capacity_mbps: int | None = None
    read_cache_sizing_mode: ReadCacheSizingMode | None = None
    read_cache_size_gib: int | None = None

    @property
    def intelligent_tiering(self) -> bool:
        return self.storage_type == INTELLIGENT_TIERING

    @property
    def tiering_shown(self) -> tuple[str | None, int | None, ReadCacheSizingMode | None, int | None]:
        """(storage type, throughput capacity, read cache sizing mode, read cache GiB) as the documents show an
        Intelligent-Tiering file system; all None, left out of them, for an SSD one."""
        if not self.intelligent_tiering:
            return (None, None, None, None)
        return (self.storage_type, self.throughput_capacity_mbps, self.read_cache_sizing_mode, self.read_cache_size_gib)


class Schedule(Struct, frozen=True):
    """How long the cluster runs: the hours the estimate bills and Capacity Blocks must fit."""

    hours: float
    path: Path = ()


# A named model's run when the workload does not say (Llama 3 paper, arXiv:2407.21783, section 3.4.1:
# "an initial batch size of 4M tokens and sequences of length 4,096").
SEQUENCE_LENGTH = 4096
GLOBAL_BATCH_TOKENS = 4 * 1024 * 1024


class Workload(Struct, frozen=True):
    """The training job that implies the hours it needs: either its architecture (`model`), whose
    step time planner predicts on the declared topology, or a parameter count at a flat MFU the user
    gives. With both a model and an MFU, the MFU wins (the user measured it) over the model's FLOPs."""

    parameters: float | None
    tokens: float
    precision: str = "bf16"
    mfu: float | None = 0.4  # None: predicted from the model on the declared cluster
    path: Path = ()
    declared: frozenset[str] = frozenset()
    checkpoint_max_minutes: float | None = None  # lustre-checkpoint-time threshold; None = the rule's default
    model: Transformer | None = None  # a preset or a Hugging Face config.json (`name` is as declared)
    sequence_length: int = SEQUENCE_LENGTH
    global_batch_tokens: int = GLOBAL_BATCH_TOKENS

    @property
    def predicted(self) -> bool:
        """The hours come from the step-time model, not from a flat MFU."""
        return self.model is not None and self.mfu is None

    @property
    def parameter_count(self) -> float:
        """The declared parameters, else the model's own count (every weight, experts included)."""
        if self.parameters is not None:
            return self.parameters
        assert self.model is not None
        return float(self.model.total_params())

    @property
    def size_key(self) -> str:
        """The key that says the workload's size, where findings about it point."""
        return "parameters" if self.parameters is not None else "model"

    def flops_per_token(self) -> float:
        """Training FLOPs per token for the flat-MFU formula: 6 x parameters, else the model's own count."""
        if self.parameters is not None:
            return 6 * self.parameters
        assert self.model is not None
        return self.model.model_flops_per_token(self.sequence_length)


class Budget(Struct, frozen=True):
    """The limits the estimate is held to (`budget-exceeded`)."""

    total_usd: float | None = None
    monthly_usd: float | None = None
    path: Path = ()
    allow_incomplete: bool = False  # check against the priced part when the estimate is incomplete


class Suppression(Struct, frozen=True):
    """A rule the stack accepts, with the reason the reports show: in the whole stack (its `suppress:`
    list), or on one resource of a program (`resource`: its URN), given by a tag or a comment on its
    declaration (`via`, said in problems; `file` and `line`: where, when known)."""

    rule: str
    reason: str
    path: Path = ()
    resource: str | None = None  # the URN of the one resource whose findings it suppresses
    via: str = ""  # how it was given: `tag planner:suppress:RULE`, `comment planner: ignore[RULE]`
    file: str | None = None
    line: int | None = None


class Network(Struct, frozen=True):
    """An existing VPC and subnet to build in, instead of a new VPC."""

    vpc_id: str | None = None
    subnet_id: str | None = None
    path: Path = ()


class Unplanned(Struct, frozen=True):
    """Compute read back from a program that will launch instances planner cannot count or price.

    Kept so that a rule names it: an AWS Batch compute environment sized in vCPUs, a
    Karpenter node pool, an instance type AWS does not list, a group scaled to zero.
    Reasons: `elastic` (launches on demand, up to a known maximum per type: `maxima`),
    `unsized` (no maximum: unbounded), `unlisted` (types AWS's DescribeInstanceTypes data does not list), `scaled-to-zero`,
    `unpriced` (counted, but sold by a service planner has no price for: SageMaker HyperPod).
    """

    resource: str  # what it is, as a user would name it: "AWS Batch compute environment 'ce'"
    reason: str  # elastic | unsized | unlisted | scaled-to-zero | unpriced
    instance_types: tuple[str, ...] = ()
    count: int | None = None  # instances it runs now (desired), when known
    minimum: int | None = None
    maximum: int | None = None
    range: str = ""  # the range it allows, in its own units ("0-100000 vCPUs")
    path: Path = ()
    fix: Fix | None = None  # what to change in the program, for this resource
    # the most instances of each catalogue type it may run at once (its limits allow), for the cost at the maximum
    maxima: tuple[tuple[str, int], ...] = ()
    purchase: Purchase = "on-demand"  # how its instances are bought, for the cost at the maximum
    detail: str = ""  # what else the read-back saw, in the resource's own terms (named in its finding)
    name: str = ""  # the resource's own name (its line items at the maximum carry it)
    # when one limit binds every type: what one instance of each takes of it (vCPUs, GPUs, 1 per instance)
    # and the limit, so the estimate can find the dearest mix of types within it
    fill: tuple[tuple[str, int], ...] = ()
    capacity: int | None = None
    # every EBS volume each instance gets, as the program says (a Karpenter EC2NodeClass's mappings, or its AMI
    # family's defaults); None: not read
    volumes: tuple[Volume, ...] | None = None
    # `unpriced`: why it has no price, when not because SageMaker HyperPod sells it (an AWS PCS group's
    # interruptible capacity reservation)
    unpriced_because: str = ""

    @property
    def left_out_now(self) -> str | None:
        """What the estimate of its current size leaves out, in a few words; None: nothing (it runs none now)."""
        if self.reason == "unsized":
            return f"{self.resource} (unbounded: no limit)"
        if self.reason == "unpriced":
            many = self.count if self.count is not None else "an unknown number of"
            return f"{self.resource} ({many} x {', '.join(self.instance_types)}: no price)"
        if self.reason == "unlisted" and self.count != 0:
            return f"{self.resource} ({', '.join(self.instance_types)}: not a type AWS lists)"
        if self.reason == "elastic" and self.count and len(self.instance_types) > 1:
            return (
                f"{self.resource} ({self.count} instance(s) now, of {', '.join(self.instance_types)}: which is unknown)"
            )
        return None

    @property
    def left_out_at_maximum(self) -> str | None:
        """What the estimate at the maximum leaves out; None: its maximum is priced (or zero)."""
        now = self.left_out_now
        if now is not None:
            return now
        if self.reason == "unlisted" and self.maximum != 0:
            return f"{self.resource} ({', '.join(self.instance_types)}: not a type AWS lists)"
        if self.reason == "scaled-to-zero" and self.maximum is None:
            return f"{self.resource} (no known maximum)"
        return None


class Note(Struct, frozen=True):
    """Something the read-back of a program could not see, or had to assume."""

    message: str
    path: Path = ()
    fix: Fix | None = None  # what to change in the program, when the read-back can say
    rule: str = "readback-gap"  # the rule that reports it (`scaling-size-refused` for sizes AWS refuses)
    left_out: str | None = None  # compute the estimate leaves out because of it, in a few words
    severity: Severity | None = None  # the finding's, where it differs from the rule's (Batch and PCS sizes)


class Cluster(Struct, frozen=True):
    """One declared training cluster: what every rule, the estimate and the components read."""

    availability_zone: str
    node_groups: tuple[NodeGroup, ...]
    placement_group: str | None = None  # as declared; see `placement`
    lustre: Lustre | None = None
    schedule: Schedule | None = None
    workload: Workload | None = None
    budget: Budget | None = None
    suppress: tuple[Suppression, ...] = ()
    network: Network | None = None
    path: Path = ()
    root_volume_gib: int | None = ROOT_VOLUME_GIB  # as declared (default 500); None when read back from a program
    unplanned: tuple[Unplanned, ...] = ()  # read back from a program only
    notes: tuple[Note, ...] = ()  # read back from a program only
    # read back from a program only: FSx for Lustre file systems the cluster mounts but does not create (the FSx
    # for Lustre CSI driver's static PersistentVolumes), each by its file system id, or by the volume when the id
    # is known only at deploy; not planned or priced here, but a shared Lustre file system all the same
    mounted_lustre: tuple[str, ...] = ()

    @property
    def placement(self) -> str:
        """The placement strategy in force: declared, else `cluster` for on-demand EFA groups."""
        if self.placement_group is not None:
            return self.placement_group
        wants = any(g.purchase == "on-demand" and g.efa for g in self.node_groups)
        return "cluster" if wants else "none"

    @property
    def instances(self) -> int:
        return sum(g.count for g in self.node_groups)


class Stack(Struct, frozen=True, eq=False):
    """A cluster with where it was declared (file, region, key lines) so findings can point at it.

    Compared by identity (`eq=False`): two stacks are the same declaration only if they are one object;
    the cluster (`stack.cluster`) is the value to compare, and the maps of where it was read are not part of it."""

    name: str
    file: str
    region: str
    cluster: Cluster
    lines: Lines = field(default_factory=dict)
    # read-back stacks (a program, the policy pack): the URN each key path came from (see planner.core.input.locations)
    resources: dict[Path, str | None] = field(default_factory=dict)
    # read-back stacks of a program: where its key paths were declared (a `planner.core.input.locations.Locator`:
    # the program's file and line, the stack config's line); None: the stack file's own lines
    locator: Any = None
    # read-back stacks: each model path's resource, the property that holds it, and where it was declared
    provenance: Mapping[Path, Provenance] = field(default_factory=dict)

    def line(self, path: Path) -> int | None:
        return line_of(self.lines, path)
