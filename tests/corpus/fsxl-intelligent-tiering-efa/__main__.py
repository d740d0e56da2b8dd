"""An FSx for Lustre Intelligent-Tiering file system, EFA-enabled, read by a PCS node group of EFA P5 instances.

Source: aws-samples/aws-hpc-recipes, commit 009a29a8462aaeb83e82d90ab8405d1a735302c7:
recipes/storage/fsx_lustre/assets/intelligent_tiering.yaml (as added by bac92743cca786b9de5ca99eca83819bc33cb15a,
unchanged since) and, for its clients, recipes/pcs/enable_efa/assets/pcs-lt-efa-p5.yaml (the same
repository's EFA launch template for P5 in an AWS PCS node group). The file system template declares no
compute, and planner plans no program without accelerated compute, so the two are paired here: the node
group and the wiring between them are ours. Translated to pulumi_aws; parameters are stack config with
the templates' defaults (EfaEnabled TRUE, ThroughputCapacity 4000, MetadataIops 6000,
DataReadCacheSizingMode PROPORTIONAL_TO_THROUGHPUT_CAPACITY, DataReadCacheSizeInGB 123, LZ4, Lustre 2.15;
NetworkInterfaceCount "32", PlacementGroupName ""). Values kept as written: no StorageCapacity, metadata
USER_PROVISIONED, and SizeGiB passed when the mode is USER_PROVISIONED or NO_CACHE (the template's
condition DataReadCacheIsUSER). The WaitConditionHandle that holds the file system until the EFA group's
rules exist is `depends_on`; the placement group the recipe's Lambda makes (efa-<stack>) is referred to by
name, as the launch template does. pulumi-aws has no PCS resource, so the compute node group is declared
with its AWS CloudControl type, as pulumi-aws-native registers it.
"""

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
stack = pulumi.get_stack()
efa_enabled = config.get("EfaEnabled") or "TRUE"
throughput = int(config.get("ThroughputCapacity") or 4000)
metadata_iops = int(config.get("MetadataIops") or 6000)
sizing_mode = config.get("DataReadCacheSizingMode") or "PROPORTIONAL_TO_THROUGHPUT_CAPACITY"
cache_gb = int(config.get("DataReadCacheSizeInGB") or 123)
compression = config.get("Compression") or "LZ4"
lustre_version = config.get("LustreVersion") or "2.15"
is_efa = efa_enabled == "TRUE"
cache_is_user = sizing_mode in ("USER_PROVISIONED", "NO_CACHE")

vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")  # VpcId: ours
subnet = aws.ec2.Subnet("subnet", vpc_id=vpc.id, cidr_block="10.0.0.0/24",  # SubnetId: ours
                        availability_zone=config.require("availabilityZone"))

waits = []
if is_efa:
    efa_sg = aws.ec2.SecurityGroup("LustreEFASG", name=f"{stack}-fsxl-efa-security-group", vpc_id=vpc.id,
                                   description="Allows EFA traffic to/from FSx for Lustre filesystem")
    waits = [
        efa_sg,
        aws.vpc.SecurityGroupIngressRule("LustreEFASGfromSelf", security_group_id=efa_sg.id, ip_protocol="-1",
                                         referenced_security_group_id=efa_sg.id,
                                         description="Allows all internal inbound traffic from the security group itself"),
        aws.vpc.SecurityGroupEgressRule("LustreEFASGtoSelf", security_group_id=efa_sg.id, ip_protocol="-1",
                                        referenced_security_group_id=efa_sg.id,
                                        description="Allows all internal inbound traffic to the security group itself"),
    ]
servers_sg = aws.ec2.SecurityGroup("LustreServersSG", name=f"{stack}-fsxl-security-group", vpc_id=vpc.id,
                                   description="Allows traffic to FSx for Lustre filesystem")
clients_sg = aws.ec2.SecurityGroup("LustreClientsSG", name=f"{stack}-fsxl-client-security-group", vpc_id=vpc.id,
                                   description="Clients join this group for access to FSx for Lustre filesystem")
for name, rule, peer, ports, text in (
    ("LustreClientsSGfromLustreClients988", aws.vpc.SecurityGroupIngressRule, clients_sg, (988, 988),
     "Allows Lustre traffic on port 988 between Lustre clients"),
    ("LustreClientsSGxxFROMxxLustreServersSG988", aws.vpc.SecurityGroupIngressRule, servers_sg, (988, 988),
     "Allows Lustre traffic on port 988 between Amazon FSx for Lustre file servers and Lustre clients"),
    ("LustreClientsSGfromLustreClients1021", aws.vpc.SecurityGroupIngressRule, clients_sg, (1021, 1023),
     "Allows Lustre traffic on ports 1021-23 between Amazon FSx for Lustre file servers"),
    ("LustreClientsSGxxFROMxxLustreServersSG1021", aws.vpc.SecurityGroupIngressRule, servers_sg, (1021, 1023),
     "Allows Lustre traffic on ports 1021-23 between Amazon FSx for Lustre file servers and Lustre clients"),
    ("LustreClientsSGtoLustreClients988", aws.vpc.SecurityGroupEgressRule, clients_sg, (988, 988),
     "Allow Lustre traffic on por 988 between Amazon FSx for Lustre clients"),
    ("LustreClientsSGtopclusterLustreServersSG", aws.vpc.SecurityGroupEgressRule, servers_sg, (988, 988),
     "Allow Lustre traffic on port 988 between Amazon FSx for Lustre file servers and Lustre clients"),
    ("LustreClientsSGtoLustreClients1021", aws.vpc.SecurityGroupEgressRule, clients_sg, (1021, 1023),
     "Allows Lustre traffic on ports 1021-23 between Amazon FSx for Lustre clients"),
    ("LustreClientsSGtoLustreServersSG", aws.vpc.SecurityGroupEgressRule, servers_sg, (1021, 1023),
     "Allows Lustre traffic on ports 1021-23 between Amazon FSx for Lustre file servers and Lustre clients"),
):
    rule(name, security_group_id=clients_sg.id, ip_protocol="tcp", from_port=ports[0], to_port=ports[1],
         referenced_security_group_id=peer.id, description=text)

fsx = aws.fsx.LustreFileSystem(
    "FSxLFilesystem",
    storage_type="INTELLIGENT_TIERING",
    file_system_type_version=lustre_version,
    security_group_ids=([waits[0].id] if is_efa else []) + [servers_sg.id, clients_sg.id],
    subnet_ids=subnet.id,
    data_compression_type=compression,
    deployment_type="PERSISTENT_2",
    efa_enabled=is_efa,
    throughput_capacity=throughput,
    metadata_configuration={"mode": "USER_PROVISIONED", "iops": metadata_iops},
    data_read_cache_configuration={"sizing_mode": sizing_mode, **({"size": cache_gb} if cache_is_user else {})},
    tags={"HPCRecipes": "true"},
    opts=pulumi.ResourceOptions(depends_on=waits),
)

# Output FSxLustreSecurityGroupId, "Clients join this group": the EFA group when EFA is enabled
fsx_client_sg = waits[0] if is_efa else clients_sg

# recipes/pcs/enable_efa/assets/pcs-lt-efa-p5.yaml; VpcId and NodeGroupSubnetId: the same VPC and subnet (ours)
efa_p5_sg = aws.ec2.SecurityGroup("EfaSecurityGroup", name=f"efa-p5-{stack}", vpc_id=vpc.id,
                                  description="Support EFA for P5 instances")
aws.vpc.SecurityGroupEgressRule("EfaSecurityGroupOutboundSelfRule", security_group_id=efa_p5_sg.id, ip_protocol="-1",
                                referenced_security_group_id=efa_p5_sg.id,
                                description="Allow outbound EFA traffic to SG members")
aws.vpc.SecurityGroupIngressRule("EfaSecurityGroupInboundSelfRule", security_group_id=efa_p5_sg.id, ip_protocol="-1",
                                 referenced_security_group_id=efa_p5_sg.id,
                                 description="Allow inbound EFA traffic to SG members")
interfaces = 32 if (config.get("NetworkInterfaceCount") or "32") == "32" else 16
template = aws.ec2.LaunchTemplate(
    "LaunchTemplate",
    name=config.get("LaunchTemplateName") or "NODEGROUPNAME-p5-efa",
    tag_specifications=[{"resource_type": "instance", "tags": {"HPCRecipes": "true", "InstanceType": "P5"}}],
    metadata_options={"http_endpoint": "enabled", "http_put_response_hop_limit": 4, "http_tokens": "required"},
    placement={"group_name": f"efa-{stack}"},  # PlacementGroupName "": the recipe's Lambda makes efa-<stack>
    network_interfaces=[
        {"description": "Primary network interface" if i == 0 else None, "device_index": 0 if i == 0 else 1,
         "interface_type": "efa", "network_card_index": i, "subnet_id": subnet.id,
         # ClusterSecurityGroupId: the file system's client group (ours); SshSecurityGroupId: ours
         "security_groups": [efa_p5_sg.id, fsx_client_sg.id, config.require("SshSecurityGroupId")] if i == 0
         else [efa_p5_sg.id]}
        for i in range(interfaces)
    ],
)
pulumi.CustomResource("aws-native:pcs:ComputeNodeGroup", "p5-nodes", {  # ours: the recipe's README has one made
    "clusterId": "pcs_0123456789",
    "customLaunchTemplate": {"templateId": template.id, "version": "1"},
    "instanceConfigs": [{"instanceType": config.require("instanceType")}],
    "scalingConfiguration": {"minInstanceCount": int(config.require("minInstances")),
                             "maxInstanceCount": int(config.require("maxInstances"))},
    "subnetIds": [subnet.id],
})
