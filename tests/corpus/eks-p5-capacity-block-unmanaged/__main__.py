"""Amazon EKS: an unmanaged P5 node group for Capacity Blocks for ML.

Source: aws-samples/awsome-distributed-training, 1.architectures/4.amazon-eks/amazon-eks-nodegroup.yaml,
commit 1873f264607ec27734884d0b82b6e8d0fde6cfe1. Translated to pulumi_aws; values kept, parameters at
their defaults (desired 3, min 1, max 4, p5.48xlarge, DisableIMDSv1 'false', 500 GiB gp2).
"""

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
cluster = config.require("clusterName")
vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
subnet = aws.ec2.Subnet("capacity-block-subnet", vpc_id=vpc.id, cidr_block="10.0.0.0/20",
                        availability_zone=config.require("subnetAz"))
node_sg = aws.ec2.SecurityGroup("node-security-group", vpc_id=vpc.id,
                                description="Security group for all nodes in the cluster",
                                tags={f"kubernetes.io/cluster/{cluster}": "owned"})
aws.ec2.SecurityGroupRule("efa-ingress", type="ingress", protocol="-1", from_port=-1, to_port=-1,
                          security_group_id=node_sg.id, source_security_group_id=node_sg.id)
aws.ec2.SecurityGroupRule("efa-egress", type="egress", protocol="-1", from_port=-1, to_port=-1,
                          security_group_id=node_sg.id, source_security_group_id=node_sg.id)
aws.ec2.SecurityGroupRule("node-egress", type="egress", protocol="-1", from_port=-1, to_port=-1,
                          security_group_id=node_sg.id, cidr_blocks=["0.0.0.0/0"])

template = aws.ec2.LaunchTemplate(
    "node-launch-template",
    instance_market_options={"market_type": "capacity-block"},
    capacity_reservation_specification={"capacity_reservation_target": {
        "capacity_reservation_id": config.require("capacityBlockId")}},
    block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"delete_on_termination": "true", "volume_size": 500,
                                                                "volume_type": "gp2"}}],
    image_id="ami-0eks0optimized0gpu",  # NodeImageIdSSMParam: /aws/service/eks/optimized-ami/1.29/amazon-linux-2-gpu
    instance_type="p5.48xlarge",
    network_interfaces=[{"description": "NetworkInterfaces Configuration For EFA and EKS", "network_card_index": i,
                         "device_index": 0 if i == 0 else 1, "delete_on_termination": "true",
                         "security_groups": [node_sg.id], "interface_type": "efa"} for i in range(32)],
    metadata_options={"http_put_response_hop_limit": 2, "http_endpoint": "enabled", "http_tokens": "optional"},
)
aws.autoscaling.Group(
    "node-group",
    desired_capacity=3,
    launch_template={"id": template.id, "version": template.latest_version},
    max_size=4,
    min_size=1,
    vpc_zone_identifiers=[subnet.id],
    tags=[{"key": "Name", "value": f"{cluster}-p5-Node", "propagate_at_launch": True},
          {"key": f"kubernetes.io/cluster/{cluster}", "value": "owned", "propagate_at_launch": True}],
)
