"""A self-managed (eksctl `nodeGroups`) p4de.24xlarge group with EFA: each EFA interface carries three security groups.

Source: aws-samples/aws-do-eks, wd/conf/eksctl/yaml/eks-gpu-p4de.yaml,
commit 38110250ab6b74046264fe044328d2979877299b: the `p4de` node group (p4de.24xlarge,
privateNetworking, us-east-1c, efaEnabled, minSize 0, desiredCapacity 2, maxSize 10, volumeSize
900) and the `sys` managed group (c5.2xlarge, desiredCapacity 1) of cluster do-eks-yaml-p4de in
us-east-1. Translated to the resources eksctl creates for them, as eksctl-io/eksctl builds them at
commit 99984adb6164ece593c0728523b7f497ea61d60e: the cluster stack's shared node security group
with its IngressInterNodeGroupSG rule (all traffic from itself) and its control plane security
group (pkg/cfn/builder/cluster.go); for the node group, its own security group (ingress from the
control plane on TCP 1025-65535 and 443), the EFA security group with EFAIngressSelf and
EFAEgressSelf (all traffic from and to itself; pkg/cfn/builder/vpc.go), attached in that order
after the shared group on every EFA interface (pkg/cfn/builder/nodegroup.go,
addResourcesForSecurityGroups), one EFA interface per network card (4 on p4de.24xlarge: card 0
device 0, the others device 1; network_interfaces.go), a cluster placement group, IMDSv2 required
with hop limit 2 (eksctl's default disableIMDSv1), the root volume /dev/xvda of 900 GiB gp3 at
eksctl's default 3,000 IOPS and 125 MB/s (block_device_mapping.go, defaults.go), and the Auto
Scaling group. CloudFormation security groups keep their default egress rule (all traffic to
anywhere) when no egress is declared inline: written out here. eksctl's VPC (192.168.0.0/16, a
private /19 per AZ) is kept; the rule from the security group EKS itself creates for the cluster
(IngressDefaultClusterToNodeSG) is not, that group not being a resource of the program.
"""

import pulumi_aws as aws

cluster = "do-eks-yaml-p4de"
everywhere = [{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}]
vpc = aws.ec2.Vpc("VPC", cidr_block="192.168.0.0/16")
private = {az: aws.ec2.Subnet(f"SubnetPrivate{az[-1].upper()}", vpc_id=vpc.id, cidr_block=f"192.168.{96 + 32 * i}.0/19",
                              availability_zone=az)
           for i, az in enumerate(["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"])}
control_plane = aws.ec2.SecurityGroup("ControlPlaneSecurityGroup", vpc_id=vpc.id, egress=everywhere,
                                      description="Communication between the control plane and worker nodegroups")
shared = aws.ec2.SecurityGroup("ClusterSharedNodeSecurityGroup", vpc_id=vpc.id, egress=everywhere,
                               description="Communication between all nodes in the cluster")
aws.vpc.SecurityGroupIngressRule("IngressInterNodeGroupSG", security_group_id=shared.id, ip_protocol="-1",
                                 referenced_security_group_id=shared.id,
                                 description="Allow nodes to communicate with each other (all ports)")

desc = "worker nodes in group p4de"
local = aws.ec2.SecurityGroup(
    "SG", vpc_id=vpc.id, description=f"Communication between the control plane and {desc}", egress=everywhere,
    ingress=[{"protocol": "tcp", "from_port": 1025, "to_port": 65535, "security_groups": [control_plane.id],
              "description": f"[IngressInterCluster] Allow {desc} to communicate with control plane (kubelet and workload TCP ports)"},
             {"protocol": "tcp", "from_port": 443, "to_port": 443, "security_groups": [control_plane.id],
              "description": f"[IngressInterClusterAPI] Allow {desc} to communicate with control plane (workloads using HTTPS port, commonly used with extension API servers)"}],
    tags={f"kubernetes.io/cluster/{cluster}": "owned"})
efa = aws.ec2.SecurityGroup("EFASG", vpc_id=vpc.id, description="EFA-enabled security group", egress=everywhere)
aws.vpc.SecurityGroupIngressRule("EFAIngressSelf", security_group_id=efa.id, ip_protocol="-1",
                                 referenced_security_group_id=efa.id,
                                 description=f"Allow {desc} to communicate to itself (EFA-enabled)")
aws.vpc.SecurityGroupEgressRule("EFAEgressSelf", security_group_id=efa.id, ip_protocol="-1",
                                referenced_security_group_id=efa.id,
                                description=f"Allow {desc} to communicate to itself (EFA-enabled)")

placement = aws.ec2.PlacementGroup("NodeGroupPlacementGroup", strategy="cluster")
template = aws.ec2.LaunchTemplate(
    "NodeGroupLaunchTemplate",
    instance_type="p4de.24xlarge",
    network_interfaces=[{"device_index": 0 if card == 0 else 1, "network_card_index": card, "interface_type": "efa",
                         "security_groups": [shared.id, local.id, efa.id]} for card in range(4)],
    placement={"group_name": placement.name},
    metadata_options={"http_put_response_hop_limit": 2, "http_tokens": "required"},
    block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"volume_size": 900, "volume_type": "gp3",
                                                                "iops": 3000, "throughput": 125}}],
)
aws.autoscaling.Group(
    "NodeGroup",
    min_size=0,
    desired_capacity=2,
    max_size=10,
    vpc_zone_identifiers=[private["us-east-1c"].id],
    launch_template={"name": template.name, "version": template.latest_version.apply(str)},
)
role = aws.iam.Role("NodeInstanceRole", assume_role_policy='{"Version":"2012-10-17","Statement":[{"Effect":"Allow",'
                                                          '"Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}')
aws.eks.NodeGroup(
    "sys",
    cluster_name=cluster,
    node_role_arn=role.arn,
    instance_types=["c5.2xlarge"],
    scaling_config={"min_size": 1, "desired_size": 1, "max_size": 1},
    subnet_ids=[s.id for s in private.values()],
)
