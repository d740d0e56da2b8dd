"""`MotoMocks`: Pulumi mocks that create each resource through boto3 in a moto account.

Unit tests of Pulumi programs usually echo inputs back as outputs, which checks only
what the program asked for. Here every resource the program registers is created with
the AWS API it maps to, inside whatever `moto.mock_aws()` is active, and the resource's
outputs carry the ids and ARNs moto returned: a test then asks the (mocked) AWS APIs what
exists, as it would after `pulumi up`, and boto3's parameter validation checks every
request the translation builds.

Created through boto3 (moto): VPC, secondary VPC CIDR block, subnet, VPC endpoint, security group (the default
allow-all egress rule removed, as the AWS provider does), security group rules
(aws.vpc ingress/egress rules and aws.ec2.SecurityGroupRule), launch template, Auto
Scaling group, EC2 instance, FSx for Lustre file system, S3 bucket, IAM role, instance
profile, role policy, policy and policy attachment.

Recorded only, because moto does not implement their APIs (moto 5.2): placement groups
(CreatePlacementGroup), capacity reservations (CreateCapacityReservation) and FSx data
repository associations (CreateDataRepositoryAssociation). Any other resource type is
recorded too. Recorded resources appear in `resources` with `backend == "recorded"`; their
outputs are their inputs plus a made-up id.

Known moto limits worth knowing when asserting: instances launched by an Auto Scaling
group do not carry the launch template's network interfaces or metadata options (assert
on the launch template instead); FSx accepts any capacity or throughput, and its
DescribeFileSystems answer has no security groups or import path (look at the recorded
request in `resources[i].inputs`); AWS managed IAM policies exist only with
`MOTO_IAM_LOAD_MANAGED_POLICIES=true` set before the account is created.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import boto3
import pulumi

from planner.runtime.recording_mocks import PlannerMocks, Registered
from planner.testing import shapes

__all__ = ["MotoMocks", "Registered"]

Handler = Callable[["MotoMocks", pulumi.runtime.MockResourceArgs], tuple[str, dict[str, Any]]]


class MotoMocks(PlannerMocks):
    """Pulumi mocks backed by moto; use inside `moto.mock_aws()` (see the module docstring).

    The bookkeeping (resources, calls, custom, the lock) is `planner.runtime.recording_mocks.PlannerMocks`,
    shared with the echo mocks; this class is the moto backend.
    """

    def __init__(self, region: str = "us-east-1"):
        super().__init__(region)
        self.region: str = region
        self._clients: dict[str, Any] = {}
        self._account: str | None = None

    def client(self, service: str) -> Any:
        with self._lock:
            if service not in self._clients:
                self._clients[service] = boto3.client(service, region_name=self.region)
            return self._clients[service]

    @property
    def account(self) -> str:
        if self._account is None:
            self._account = self.client("sts").get_caller_identity()["Account"]
        return self._account

    def arn(self, service: str, resource: str, region: bool = True) -> str:
        return f"arn:aws:{service}:{self.region if region else ''}:{self.account}:{resource}"

    # --- the backend --------------------------------------------------------------------
    def create(self, args: pulumi.runtime.MockResourceArgs, inputs: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        handler = HANDLERS.get(args.typ)
        if handler is None:
            id_, backend = _made_up_id(args), "recorded"
            extra = {
                "name": inputs.get("name") or id_,
                "arn": RECORDED_ARNS.get(args.typ, "").format(m=self, id=id_) or None,
            }
        else:
            id_, extra = handler(self, args)
            backend = "moto"
        return id_, {**inputs, **{k: v for k, v in extra.items() if v is not None}}, backend

    def invoke(self, token: str, args: dict[str, Any]) -> dict[str, Any]:
        """Invokes answered from moto (see CALLS); any other invoke returns nothing."""
        handler = CALLS.get(token)
        return handler(self, args) if handler else {}


def _made_up_id(args: pulumi.runtime.MockResourceArgs) -> str:
    digest = hashlib.sha256(f"{args.typ}/{args.name}".encode()).hexdigest()[:17]
    return str(args.inputs.get("name") or f"{args.name}-{digest}")


def _name(args: pulumi.runtime.MockResourceArgs, key: str = "name") -> str:
    """The physical name: given, else the logical one (the provider would add a suffix)."""
    return str(args.inputs.get(key) or args.name)


# --- EC2 networking ------------------------------------------------------------------------


def _vpc(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    ec2, i = m.client("ec2"), a.inputs
    vpc = ec2.create_vpc(CidrBlock=i["cidrBlock"], TagSpecifications=shapes.tag_specifications("vpc", i.get("tags")))[
        "Vpc"
    ]
    vid = vpc["VpcId"]
    for key, attr in (("enableDnsSupport", "EnableDnsSupport"), ("enableDnsHostnames", "EnableDnsHostnames")):
        if key in i:
            ec2.modify_vpc_attribute(VpcId=vid, **{attr: {"Value": bool(i[key])}})
    main = ec2.describe_route_tables(
        Filters=[{"Name": "vpc-id", "Values": [vid]}, {"Name": "association.main", "Values": ["true"]}]
    )
    default_sg = ec2.describe_security_groups(
        Filters=[{"Name": "vpc-id", "Values": [vid]}, {"Name": "group-name", "Values": ["default"]}]
    )
    return vid, {
        "arn": m.arn("ec2", f"vpc/{vid}"),
        "ownerId": m.account,
        "mainRouteTableId": main["RouteTables"][0]["RouteTableId"],
        "defaultSecurityGroupId": default_sg["SecurityGroups"][0]["GroupId"],
    }


def _subnet(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    """A subnet in the AZ the program names (by name, or by id when moto knows the id).

    Without either, moto would pick an AZ of its own; that AZ is not the program's, so the
    outputs leave it unknown (an unknown AZ is a gap to state, never a value to make up).
    """
    ec2, i = m.client("ec2"), a.inputs
    kw: dict[str, Any] = {}
    if i.get("availabilityZone"):
        kw["AvailabilityZone"] = i["availabilityZone"]
    elif i.get("availabilityZoneId"):
        zones = {z["ZoneId"]: z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"]}
        if i["availabilityZoneId"] in zones:
            kw["AvailabilityZone"] = zones[i["availabilityZoneId"]]
    sub = ec2.create_subnet(
        VpcId=i["vpcId"],
        CidrBlock=i["cidrBlock"],
        TagSpecifications=shapes.tag_specifications("subnet", i.get("tags")),
        **kw,
    )["Subnet"]
    ec2.modify_subnet_attribute(
        SubnetId=sub["SubnetId"], MapPublicIpOnLaunch={"Value": bool(i.get("mapPublicIpOnLaunch"))}
    )
    named = bool(kw)
    return sub["SubnetId"], {
        "arn": m.arn("ec2", f"subnet/{sub['SubnetId']}"),
        "availabilityZone": sub["AvailabilityZone"] if named else None,
        "availabilityZoneId": sub.get("AvailabilityZoneId") if named else None,
        "ownerId": m.account,
    }


def _cidr_association(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    """aws.ec2.VpcIpv4CidrBlockAssociation: a secondary CIDR block (EKS pod subnets often live in 100.64.0.0/10)."""
    i = a.inputs
    assoc = m.client("ec2").associate_vpc_cidr_block(VpcId=i["vpcId"], CidrBlock=i["cidrBlock"])["CidrBlockAssociation"]
    return assoc["AssociationId"], {"cidrBlock": assoc["CidrBlock"]}


def _vpc_endpoint(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    i = a.inputs
    ep = m.client("ec2").create_vpc_endpoint(
        VpcId=i["vpcId"],
        ServiceName=i["serviceName"],
        VpcEndpointType=i.get("vpcEndpointType", "Gateway"),
        **({"RouteTableIds": list(i["routeTableIds"])} if i.get("routeTableIds") else {}),
    )["VpcEndpoint"]
    return ep["VpcEndpointId"], {"arn": m.arn("ec2", f"vpc-endpoint/{ep['VpcEndpointId']}"), "state": ep.get("State")}


def _security_group(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    ec2, i = m.client("ec2"), a.inputs
    gid = ec2.create_security_group(
        GroupName=_name(a),
        Description=i.get("description") or "Managed by Pulumi",
        VpcId=i["vpcId"],
        TagSpecifications=shapes.tag_specifications("security-group", i.get("tags")),
    )["GroupId"]
    # EC2 adds an allow-all egress rule to every new group; the AWS provider removes it.
    ec2.revoke_security_group_egress(
        GroupId=gid, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
    )
    if i.get("ingress"):
        ec2.authorize_security_group_ingress(
            GroupId=gid, IpPermissions=[shapes.inline_rule(r, gid) for r in i["ingress"]]
        )
    if i.get("egress"):
        ec2.authorize_security_group_egress(
            GroupId=gid, IpPermissions=[shapes.inline_rule(r, gid) for r in i["egress"]]
        )
    return gid, {"arn": m.arn("ec2", f"security-group/{gid}"), "name": _name(a), "ownerId": m.account}


def _rule(direction: str) -> Handler:
    def create(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        i = a.inputs
        perm = shapes.permission(
            i["ipProtocol"],
            i.get("fromPort"),
            i.get("toPort"),
            [i["cidrIpv4"]] if i.get("cidrIpv4") else (),
            [i["cidrIpv6"]] if i.get("cidrIpv6") else (),
            [i["referencedSecurityGroupId"]] if i.get("referencedSecurityGroupId") else (),
            [i["prefixListId"]] if i.get("prefixListId") else (),
            i.get("description"),
        )
        authorize = getattr(m.client("ec2"), f"authorize_security_group_{direction}")
        rule = authorize(GroupId=i["securityGroupId"], IpPermissions=[perm])["SecurityGroupRules"][0]
        rid = rule["SecurityGroupRuleId"]
        return rid, {"securityGroupRuleId": rid, "arn": m.arn("ec2", f"security-group-rule/{rid}")}

    return create


def _legacy_rule(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    """aws.ec2.SecurityGroupRule (type ingress|egress)."""
    i = a.inputs
    group = i["securityGroupId"]
    peers = [group] if i.get("self") else ([i["sourceSecurityGroupId"]] if i.get("sourceSecurityGroupId") else [])
    perm = shapes.permission(
        i["protocol"],
        i.get("fromPort"),
        i.get("toPort"),
        i.get("cidrBlocks") or (),
        i.get("ipv6CidrBlocks") or (),
        peers,
        i.get("prefixListIds") or (),
        i.get("description"),
    )
    authorize = getattr(m.client("ec2"), f"authorize_security_group_{i['type']}")
    rule = authorize(GroupId=group, IpPermissions=[perm])["SecurityGroupRules"][0]
    return rule["SecurityGroupRuleId"], {"securityGroupRuleId": rule["SecurityGroupRuleId"]}


# --- EC2 compute -----------------------------------------------------------------------------


def _launch_template(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    i = a.inputs
    lt = m.client("ec2").create_launch_template(
        LaunchTemplateName=_name(a),
        LaunchTemplateData=shapes.launch_template_data(i),
        TagSpecifications=shapes.tag_specifications("launch-template", i.get("tags")),
    )["LaunchTemplate"]
    lid = lt["LaunchTemplateId"]
    return lid, {
        "arn": m.arn("ec2", f"launch-template/{lid}"),
        "name": lt["LaunchTemplateName"],
        "latestVersion": lt["LatestVersionNumber"],
        "defaultVersion": lt["DefaultVersionNumber"],
    }


def _auto_scaling_group(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    i = a.inputs
    name = _name(a)
    kw: dict[str, Any] = {
        "AutoScalingGroupName": name,
        "MinSize": int(i["minSize"]),
        "MaxSize": int(i["maxSize"]),
        "VPCZoneIdentifier": ",".join(i.get("vpcZoneIdentifiers") or []),
        "Tags": [
            {
                "Key": t["key"],
                "Value": t["value"],
                "PropagateAtLaunch": bool(t.get("propagateAtLaunch")),
                "ResourceId": name,
                "ResourceType": "auto-scaling-group",
            }
            for t in i.get("tags") or []
        ],
    }
    if i.get("desiredCapacity") is not None:
        kw["DesiredCapacity"] = int(i["desiredCapacity"])
    if i.get("launchTemplate"):
        t = i["launchTemplate"]
        kw["LaunchTemplate"] = {
            **({"LaunchTemplateId": t["id"]} if t.get("id") else {"LaunchTemplateName": t["name"]}),
            "Version": str(t.get("version") or "$Default"),
        }
    if i.get("mixedInstancesPolicy"):
        kw["MixedInstancesPolicy"] = shapes.api(i["mixedInstancesPolicy"])
    for key, member in (
        ("placementGroup", "PlacementGroup"),
        ("healthCheckType", "HealthCheckType"),
        ("availabilityZones", "AvailabilityZones"),
    ):
        if i.get(key):
            kw[member] = i[key]
    m.client("autoscaling").create_auto_scaling_group(**kw)
    group = m.client("autoscaling").describe_auto_scaling_groups(AutoScalingGroupNames=[name])["AutoScalingGroups"][0]
    return name, {"arn": group["AutoScalingGroupARN"], "name": name}


def _instance(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    i = a.inputs
    kw: dict[str, Any] = {"MinCount": 1, "MaxCount": 1}
    simple = {
        "ami": "ImageId",
        "instanceType": "InstanceType",
        "keyName": "KeyName",
        "subnetId": "SubnetId",
        "userData": "UserData",
        "placementGroup": None,
    }
    for key, member in simple.items():
        if i.get(key) and member:
            kw[member] = i[key]
    if i.get("placementGroup") or i.get("availabilityZone"):
        kw["Placement"] = {
            k: v
            for k, v in (("GroupName", i.get("placementGroup")), ("AvailabilityZone", i.get("availabilityZone")))
            if v
        }
    if i.get("vpcSecurityGroupIds"):
        kw["SecurityGroupIds"] = list(i["vpcSecurityGroupIds"])
    if i.get("launchTemplate"):
        t = i["launchTemplate"]
        kw["LaunchTemplate"] = {
            **({"LaunchTemplateId": t["id"]} if t.get("id") else {"LaunchTemplateName": t["name"]}),
            **({"Version": str(t["version"])} if t.get("version") else {}),
        }
    for key in ("metadataOptions", "instanceMarketOptions", "capacityReservationSpecification"):
        if i.get(key):
            kw[shapes.pascal(key)] = shapes.api(i[key])
    if i.get("tags"):
        kw["TagSpecifications"] = shapes.tag_specifications("instance", i["tags"])
    inst = m.client("ec2").run_instances(**kw)["Instances"][0]
    iid = inst["InstanceId"]
    placed = bool(i.get("subnetId") or i.get("availabilityZone"))  # else moto's default subnet: not the program's AZ
    return iid, {
        "arn": m.arn("ec2", f"instance/{iid}"),
        "privateIp": inst.get("PrivateIpAddress"),
        "publicIp": inst.get("PublicIpAddress"),
        "availabilityZone": inst["Placement"]["AvailabilityZone"] if placed else None,
        "subnetId": inst.get("SubnetId"),
        "instanceState": inst["State"]["Name"],
    }


# --- storage ---------------------------------------------------------------------------------

LUSTRE_KEYS = (
    "deploymentType",
    "perUnitStorageThroughput",
    "importPath",
    "exportPath",
    "importedFileChunkSize",
    "efaEnabled",
    "metadataConfiguration",
    "dataCompressionType",
    "driveCacheType",
    "weeklyMaintenanceStartTime",
    "automaticBackupRetentionDays",
    "copyTagsToBackups",
    "logConfiguration",
    "rootSquashConfiguration",
    "autoImportPolicy",
    "throughputCapacity",
    "dataReadCacheConfiguration",
)


def _lustre_configuration(i: dict[str, Any]) -> dict[str, Any]:
    """The inputs' Lustre configuration as the FSx API names it: pulumi-aws's read cache `size` is the API's
    `SizeGiB`."""
    out: dict[str, Any] = shapes.api({k: i[k] for k in LUSTRE_KEYS if k in i})
    cache = out.get("DataReadCacheConfiguration")
    if isinstance(cache, dict) and "Size" in cache:
        out["DataReadCacheConfiguration"] = {
            **{k: v for k, v in cache.items() if k != "Size"},
            "SizeGiB": cache["Size"],
        }
    return out


def _lustre(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    i = a.inputs
    subnets = i["subnetIds"] if isinstance(i["subnetIds"], list) else [i["subnetIds"]]
    tags = shapes.tag_list(i.get("tags"))
    fs = m.client("fsx").create_file_system(
        FileSystemType="LUSTRE",
        # an Intelligent-Tiering file system declares no capacity (its storage is elastic)
        **({"StorageCapacity": int(i["storageCapacity"])} if i.get("storageCapacity") is not None else {}),
        StorageType=i.get("storageType", "SSD"),
        SubnetIds=subnets,
        SecurityGroupIds=list(i.get("securityGroupIds") or []),
        **({"Tags": tags} if tags else {}),  # the FSx API takes no empty tag list
        LustreConfiguration=_lustre_configuration(i),
        **({"FileSystemTypeVersion": i["fileSystemTypeVersion"]} if i.get("fileSystemTypeVersion") else {}),
    )["FileSystem"]
    return fs["FileSystemId"], {
        "arn": fs["ResourceARN"],
        "dnsName": fs["DNSName"],
        "ownerId": m.account,
        "mountName": (fs.get("LustreConfiguration") or {}).get("MountName"),
    }


def _bucket(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    name = _name(a, "bucket")
    kw = {} if m.region == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": m.region}}
    m.client("s3").create_bucket(Bucket=name, **kw)
    if a.inputs.get("tags"):
        m.client("s3").put_bucket_tagging(Bucket=name, Tagging={"TagSet": shapes.tag_list(a.inputs["tags"])})
    return name, {
        "arn": f"arn:aws:s3:::{name}",
        "bucket": name,
        "bucketDomainName": f"{name}.s3.amazonaws.com",
        "region": m.region,
    }


# --- IAM -------------------------------------------------------------------------------------


def _role(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    i = a.inputs
    role = m.client("iam").create_role(
        RoleName=_name(a),
        AssumeRolePolicyDocument=i["assumeRolePolicy"],
        Path=i.get("path") or "/",
        Tags=shapes.tag_list(i.get("tags")),
    )["Role"]
    return role["RoleName"], {"arn": role["Arn"], "name": role["RoleName"], "uniqueId": role["RoleId"]}


def _instance_profile(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    iam, name = m.client("iam"), _name(a)
    profile = iam.create_instance_profile(InstanceProfileName=name, Path=a.inputs.get("path") or "/")["InstanceProfile"]
    if a.inputs.get("role"):
        iam.add_role_to_instance_profile(InstanceProfileName=name, RoleName=a.inputs["role"])
    return name, {"arn": profile["Arn"], "name": name, "uniqueId": profile["InstanceProfileId"]}


def _role_policy_attachment(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    role, policy = a.inputs["role"], a.inputs["policyArn"]
    m.client("iam").attach_role_policy(RoleName=role, PolicyArn=policy)
    return f"{role}/{policy}", {}


def _role_policy(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    role, name = a.inputs["role"], _name(a)
    m.client("iam").put_role_policy(RoleName=role, PolicyName=name, PolicyDocument=a.inputs["policy"])
    return f"{role}:{name}", {"name": name}


def _policy(m: MotoMocks, a: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
    policy = m.client("iam").create_policy(
        PolicyName=_name(a), PolicyDocument=a.inputs["policy"], Path=a.inputs.get("path") or "/"
    )["Policy"]
    return policy["Arn"], {"arn": policy["Arn"], "name": policy["PolicyName"], "policyId": policy["PolicyId"]}


# ARNs of the recorded types whose shape is known (others get none).
RECORDED_ARNS = {
    "aws:ec2/placementGroup:PlacementGroup": "arn:aws:ec2:{m.region}:{m.account}:placement-group/{id}",
    "aws:ec2/capacityReservation:CapacityReservation": "arn:aws:ec2:{m.region}:{m.account}:capacity-reservation/{id}",
    "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation": "arn:aws:fsx:{m.region}:{m.account}:association/{id}",
}

HANDLERS: dict[str, Handler] = {
    "aws:ec2/vpc:Vpc": _vpc,
    "aws:ec2/subnet:Subnet": _subnet,
    "aws:ec2/vpcIpv4CidrBlockAssociation:VpcIpv4CidrBlockAssociation": _cidr_association,
    "aws:ec2/vpcEndpoint:VpcEndpoint": _vpc_endpoint,
    "aws:ec2/securityGroup:SecurityGroup": _security_group,
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": _rule("ingress"),
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": _rule("egress"),
    "aws:ec2/securityGroupRule:SecurityGroupRule": _legacy_rule,
    "aws:ec2/launchTemplate:LaunchTemplate": _launch_template,
    "aws:autoscaling/group:Group": _auto_scaling_group,
    "aws:ec2/instance:Instance": _instance,
    "aws:fsx/lustreFileSystem:LustreFileSystem": _lustre,
    "aws:s3/bucket:Bucket": _bucket,
    "aws:s3/bucketV2:BucketV2": _bucket,
    "aws:iam/role:Role": _role,
    "aws:iam/instanceProfile:InstanceProfile": _instance_profile,
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": _role_policy_attachment,
    "aws:iam/rolePolicy:RolePolicy": _role_policy,
    "aws:iam/policy:Policy": _policy,
}


# --- invokes ---------------------------------------------------------------------------------


def _get_subnet(m: MotoMocks, args: dict[str, Any]) -> dict[str, Any]:
    sub = m.client("ec2").describe_subnets(SubnetIds=[args["id"]])["Subnets"][0]
    return {
        "id": sub["SubnetId"],
        "vpcId": sub["VpcId"],
        "availabilityZone": sub["AvailabilityZone"],
        "cidrBlock": sub["CidrBlock"],
        "mapPublicIpOnLaunch": sub.get("MapPublicIpOnLaunch", False),
    }


def _get_availability_zones(m: MotoMocks, args: dict[str, Any]) -> dict[str, Any]:
    zones = m.client("ec2").describe_availability_zones()["AvailabilityZones"]
    return {"names": [z["ZoneName"] for z in zones], "zoneIds": [z["ZoneId"] for z in zones], "id": m.region}


CALLS: dict[str, Callable[[MotoMocks, dict[str, Any]], dict[str, Any]]] = {
    "aws:index/getRegion:getRegion": lambda m, a: {"name": m.region, "region": m.region, "id": m.region},
    "aws:index/getCallerIdentity:getCallerIdentity": lambda m, a: {
        "accountId": m.account,
        "arn": m.client("sts").get_caller_identity()["Arn"],
        "id": m.account,
    },
    "aws:index/getAvailabilityZones:getAvailabilityZones": _get_availability_zones,
    "aws:ec2/getSubnet:getSubnet": _get_subnet,
    "aws:ssm/getParameter:getParameter": lambda m, a: {
        "value": m.client("ssm").get_parameter(Name=a["name"])["Parameter"]["Value"],
        "name": a["name"],
        "id": a["name"],
    },
}
