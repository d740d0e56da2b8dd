"""An elastic EKS managed node group of p4de.24xlarge with EFA, on an On-Demand Capacity Reservation (eksctl).

Source: aws-samples/awsome-distributed-training, 1.architectures/4.amazon-eks/eks-p4de-odcr.yaml,
commit 476621a5df838e6315ebdc9028617f2d61f1edf6. The eksctl ClusterConfig translated to the
resources eksctl creates for its managed node groups: for `efaEnabled: true` an EFA security
group (all traffic to and from itself), a cluster placement group and a launch template with
an EFA interface on each of the type's network cards (4 on p4de.24xlarge, device 0 on card
0, device 1 on the others), `volumeSize: 500` as the root device's gp3 volume (eksctl's
default volume type), and the capacity reservation target. Values kept as written: minSize
0, desiredCapacity 2, maxSize 10; the reservation id is the source's placeholder
"PLACEHOLDER_CAPACITY_RESERVATION_ID"; the GPU group in the second AZ only. The `sys`
c5.2xlarge group (desiredCapacity 1) is kept too.
"""

import json

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
name = "eks-p4de-odcr"
azs = [config.require("az1"), config.require("az2")]
vpc = aws.ec2.Vpc(name, cidr_block="192.168.0.0/16")
private = {az: aws.ec2.Subnet(f"private-{az}", vpc_id=vpc.id, cidr_block=f"192.168.{64 + 32 * i}.0/19",
                              availability_zone=az) for i, az in enumerate(azs)}
role = aws.iam.Role("node-role", assume_role_policy=json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"},
                                            "Action": "sts:AssumeRole"}]}))
efa_sg = aws.ec2.SecurityGroup("p4de-odcr-efa", vpc_id=vpc.id,
                               ingress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}],
                               egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}])
placement = aws.ec2.PlacementGroup("p4de-odcr", strategy="cluster")
template = aws.ec2.LaunchTemplate(
    "p4de-odcr",
    placement={"group_name": placement.name},
    capacity_reservation_specification={"capacity_reservation_target": {
        "capacity_reservation_id": "PLACEHOLDER_CAPACITY_RESERVATION_ID"}},
    network_interfaces=[{"network_card_index": i, "device_index": 0 if i == 0 else 1, "interface_type": "efa",
                         "delete_on_termination": "true", "security_groups": [efa_sg.id]} for i in range(4)],
    block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"volume_size": 500, "volume_type": "gp3"}}],
    metadata_options={"http_tokens": "required", "http_put_response_hop_limit": 2},
)
aws.eks.NodeGroup(
    "p4de-odcr",
    cluster_name=name,
    node_role_arn=role.arn,
    instance_types=["p4de.24xlarge"],
    scaling_config={"min_size": 0, "desired_size": 2, "max_size": 10},
    subnet_ids=[private[azs[1]].id],
    launch_template={"id": template.id, "version": template.latest_version},
)
aws.eks.NodeGroup(
    "sys",
    cluster_name=name,
    node_role_arn=role.arn,
    instance_types=["c5.2xlarge"],
    scaling_config={"min_size": 1, "desired_size": 1, "max_size": 1},
    subnet_ids=[s.id for s in private.values()],
)
