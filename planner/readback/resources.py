"""The stack's resources as the policy engine hands them over, made safe to read and link.

During `pulumi preview`, values the cloud has not computed yet (ids, ARNs) are unknown and
reading one through pulumi_policy's proxy raises. The topology must still be rebuilt then,
so props are copied into plain data with `UNKNOWN` in their place, and references between
resources (an Auto Scaling group's launch template, a launch template's security groups)
are resolved by id, name or ARN when known, else by the engine's property dependencies.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from msgspec import Struct, field

from planner.core.model.findings import Edit, EditOp, EditValue, Fix


class Violation(Struct, frozen=True):
    """What a policy reports: a message, and the URN of the resource at fault (None: the stack).

    The rebuild's own gaps (what it could not see, and what it assumed) are reported this way.
    """

    message: str
    urn: str | None = None
    # what to change in the program, for this case (`readback-gap` reports it); words alone are advice
    fix: Fix | None = None
    rule: str = "readback-gap"  # the rule that reports it once planned (`scaling-size-refused`: sizes AWS refuses)
    left_out: str | None = None  # compute the estimate leaves out because of it, in a few words
    severity: str | None = None  # the finding's, where it differs from the rule's (Batch and PCS sizes: a warning)


def change(resource: Resource | str, prop: str, value: EditValue = None, note: str = "", op: EditOp = "set") -> Edit:
    """An edit of one of the program's resources (`resource`, or its URN): its property `prop` as the engine
    names it, dotted (`scalingConfig.desiredSize`; `[]` for each element of a list, "" for the resource as a
    whole), for a change the model holds no value for. Without a value, `note` says what to write ("a number
    known at preview"). `planner.readback.program_terms` says it in the program's terms."""
    urn = resource if isinstance(resource, str) else resource.urn
    return Edit(tuple(prop.split(".")) if prop else (), op, value, note, resource=urn)


LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
INSTANCE = "aws:ec2/instance:Instance"
AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
DATA_REPOSITORY_ASSOCIATION = "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation"
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
SUBNET = "aws:ec2/subnet:Subnet"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
SECURITY_GROUP_INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
SECURITY_GROUP_EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
NETWORK_INTERFACE = "aws:ec2/networkInterface:NetworkInterface"
CAPACITY_RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
BATCH_COMPUTE_ENVIRONMENT = "aws:batch/computeEnvironment:ComputeEnvironment"
AWS_PROVIDER = "pulumi:providers:aws"
# pulumi_kubernetes' type tokens of the objects the FSx for Lustre CSI driver reads (planner.readback.fsx_csi, which
# takes any version of each)
STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
PERSISTENT_VOLUME_CLAIM = "kubernetes:core/v1:PersistentVolumeClaim"
PERSISTENT_VOLUME = "kubernetes:core/v1:PersistentVolume"

EFA_INTERFACE_TYPES = ("efa", "efa-only")
# Root device names of Linux AMIs (the AMI's RootDeviceName): the DLAMIs the components launch
# use /dev/sda1 (planner.components.images), Amazon Linux and Bottlerocket /dev/xvda.
ROOT_DEVICES = ("/dev/sda1", "/dev/xvda")


class _Unknown:
    """A value the engine does not know yet (preview); never equal to a real value."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


def plain(value: Any) -> Any:
    """A plain copy of proxied props, with UNKNOWN where the engine has no value yet."""
    from pulumi_policy.proxy import UnknownValueError

    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key in value:
            try:
                out[str(key)] = plain(value[key])
            except UnknownValueError:
                out[str(key)] = UNKNOWN
        return out
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        items: list[Any] = []
        for i in range(len(value)):
            try:
                items.append(plain(value[i]))
            except UnknownValueError:
                items.append(UNKNOWN)
        return items
    return value


def known(value: Any) -> bool:
    return value is not None and value is not UNKNOWN


def dig(data: Any, *keys: Any) -> Any:
    """`data[k1][k2]...`, or None where a level is missing (UNKNOWN stays UNKNOWN)."""
    for k in keys:
        if data is UNKNOWN:
            return UNKNOWN
        if isinstance(data, Mapping):
            data = data.get(k)
        elif isinstance(data, list) and isinstance(k, int) and -len(data) <= k < len(data):
            data = data[k]
        else:
            return None
    return data


def as_list(value: Any) -> list[Any]:
    """A property that takes one value or a list (FSx `subnetIds` is a string in pulumi-aws 7)."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]


def truthy(value: Any) -> bool:
    """Booleans as pulumi-aws gives them: launch template interfaces use the strings "true"/"false"."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


def as_int(value: Any) -> int | None:
    """Numbers arrive as floats through the engine's protobuf Struct (16.0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if float(value).is_integer() else None


class Resource(Struct):
    type: str
    urn: str
    name: str
    props: dict[str, Any]
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    dependencies: list[str] = field(default_factory=list)
    provider_props: dict[str, Any] = field(default_factory=dict)

    def get(self, *keys: Any) -> Any:
        return dig(self.props, *keys)

    def identifiers(self) -> set[str]:
        """Every string another resource may use to point at this one (id, name, ARN, ARN's last part)."""
        out: set[str] = set()
        for key in ("id", "name", "arn", "placementGroupId", "computeEnvironmentName"):
            v = self.props.get(key)
            if isinstance(v, str) and known(v):
                out.add(v)
                if key == "arn" and "/" in v:
                    out.add(v.rsplit("/", 1)[1])
        return out


def _urns(items: Iterable[Any]) -> list[str]:
    return [getattr(d, "urn", d) for d in items]


def from_policy(resource: Any) -> Resource:
    """A `pulumi_policy.PolicyResource` (or anything shaped like one) as a `Resource`."""
    provider = getattr(resource, "provider", None)
    return Resource(
        type=resource.resource_type,
        urn=resource.urn,
        name=resource.name,
        props=plain(resource.props),
        property_dependencies={
            k: _urns(v) for k, v in (getattr(resource, "property_dependencies", None) or {}).items()
        },
        dependencies=_urns(getattr(resource, "dependencies", None) or []),
        provider_props=plain(provider.props) if provider is not None else {},
    )


class Graph:
    """The stack's resources, indexed by type and by every identifier, for resolving references."""

    def __init__(self, resources: Iterable[Resource]):
        self.resources = list(resources)
        self.by_urn = {r.urn: r for r in self.resources}
        self._ids: dict[str, dict[str, Resource]] = {}
        for r in self.resources:
            index = self._ids.setdefault(r.type, {})
            for ident in r.identifiers():
                index.setdefault(ident, r)

    def of_type(self, type_: str) -> list[Resource]:
        return [r for r in self.resources if r.type == type_]

    def resolve(self, owner: Resource, prop: str, values: Iterable[Any], type_: str) -> list[Resource]:
        """Resources of `type_` that `owner` points at through `values` of its property `prop`.

        Known values are looked up by id, name or ARN; when one is unknown (preview) or names
        something outside the index, the engine's dependencies of `prop` are used instead.
        """
        found: list[Resource] = []
        unresolved = False
        for v in values:
            hit = self._ids.get(type_, {}).get(v) if isinstance(v, str) and known(v) else None
            if hit is not None:
                found.append(hit)
            elif v is not None:
                unresolved = True
        if unresolved or not found:
            for urn in owner.property_dependencies.get(prop, []):
                r = self.by_urn.get(urn)
                if r is not None and r.type == type_:
                    found.append(r)
        return list(_unique(found))

    def referenced(self, value: Any) -> Resource | None:
        """The resource of the stack `value` is an identifier of (its id, name or ARN): a reference to
        another resource's output, whose real value exists only once deployed; None when it is a literal."""
        if not isinstance(value, str) or not known(value):
            return None
        return next((index[value] for index in self._ids.values() if value in index), None)

    def region(self) -> str | None:
        """The AWS region of the providers the resources use (explicit or default provider)."""
        for r in self.resources:
            for props in (r.provider_props, r.props if r.type == AWS_PROVIDER else {}):
                v = props.get("region")
                if isinstance(v, str) and known(v) and v:
                    return v
        return None


def _unique(items: Iterable[Resource]) -> Iterator[Resource]:
    seen: set[str] = set()
    for r in items:
        if r.urn not in seen:
            seen.add(r.urn)
            yield r
