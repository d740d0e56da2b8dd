"""EKS managed node group launching p5.48xlarge into a resource group of On-Demand Capacity Reservations.

Source: aws-ia/terraform-aws-eks-blueprints, patterns/targeted-odcr/eks.tf (commit
71bd9ffd016094ebf716e11319135869cc44fb99) and main.tf (commit
9ec1d476d3b4a1066fb4c60db00aeca2f8b18737). The `odcr` node group of the terraform-aws-eks
module, translated to the resources the module declares for it: `enable_efa_support = true`
makes a cluster placement group and a launch template with an EFA interface on every network
card (card 0 `efa`, the others `efa-only`); `capacity_reservation_specification` targets the
`aws_resourcegroups_group.odcr` group (its ARN is an output, known at deploy), which holds the
reservations of `var.capacity_reservation_arns`. Values kept as written: the pattern sets
`min_size`, `max_size` and `desired_size` twice in the same block (2/2/2, then 4/5/2); the
later ones are those that hold, as the issue read them: min 4 above desired 2. One subnet,
the first private one (the region's first AZ). The `default` m5.large group is kept too.
"""

import json

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
name = "targeted-odcr"
vpc = aws.ec2.Vpc(name, cidr_block="10.0.0.0/16")
private = [aws.ec2.Subnet(f"private-{i}", vpc_id=vpc.id, cidr_block=f"10.0.{16 * i}.0/20", availability_zone=az)
           for i, az in enumerate(["us-west-2a", "us-west-2b", "us-west-2c"])]
role = aws.iam.Role("node-role", assume_role_policy=json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"},
                                            "Action": "sts:AssumeRole"}]}))
efa_sg = aws.ec2.SecurityGroup("efa", vpc_id=vpc.id,
                               ingress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}],
                               egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}])

odcr = aws.resourcegroups.Group(
    "odcr",
    name=f"{name}-p5-odcr",
    description="P5 instance on-demand capacity reservations",
    configurations=[
        {"type": "AWS::EC2::CapacityReservationPool"},
        {"type": "AWS::ResourceGroups::Generic",
         "parameters": [{"name": "allowed-resource-types", "values": ["AWS::EC2::CapacityReservation"]}]},
    ],
)
for i, arn in enumerate(config.require_object("capacityReservationArns")):
    aws.resourcegroups.Resource(f"odcr-{i}", group_arn=odcr.arn, resource_arn=arn)

placement = aws.ec2.PlacementGroup("odcr", strategy="cluster")
template = aws.ec2.LaunchTemplate(
    "odcr",
    capacity_reservation_specification={"capacity_reservation_target": {
        "capacity_reservation_resource_group_arn": odcr.arn}},
    placement={"group_name": placement.name},
    network_interfaces=[{"network_card_index": i, "device_index": 0 if i == 0 else 1, "delete_on_termination": "true",
                         "interface_type": "efa" if i == 0 else "efa-only", "security_groups": [efa_sg.id]}
                        for i in range(32)],
    metadata_options={"http_tokens": "required", "http_put_response_hop_limit": 2},
)
aws.eks.NodeGroup(
    "odcr",
    cluster_name=name,
    node_role_arn=role.arn,
    ami_type="AL2023_x86_64_NVIDIA",
    instance_types=["p5.48xlarge"],
    scaling_config={"min_size": 4, "max_size": 5, "desired_size": 2},  # the block's second setting (2/2/2 first)
    subnet_ids=[private[0].id],
    launch_template={"id": template.id, "version": template.latest_version},
    labels={"vpc.amazonaws.com/efa.present": "true", "nvidia.com/gpu.present": "true"},
    taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}],
)
aws.eks.NodeGroup(
    "default",
    cluster_name=name,
    node_role_arn=role.arn,
    instance_types=["m5.large"],
    scaling_config={"min_size": 1, "max_size": 2, "desired_size": 2},
    subnet_ids=[s.id for s in private],
)
