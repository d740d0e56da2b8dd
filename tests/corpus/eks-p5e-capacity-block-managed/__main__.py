"""EKS managed node group on an ML Capacity Block (p5e.48xlarge), with EFA.

Source: aws-ia/terraform-aws-eks-blueprints, patterns/ml-capacity-block/eks.tf and main.tf,
commit 18ef2ecadbb423c1c07d14d324899c0228ad32cd. The `cbr` node group of the
terraform-aws-eks module, translated to the resources the module declares for it:
`enable_efa_support = true` makes a cluster placement group and a launch template that
exposes an EFA interface on every network card of the type (card 0 `efa`, the others
`efa-only`), plus the Capacity Block market options and reservation target of the
pattern. Values kept: 2/2/2 nodes, one subnet (the first private subnet, in the region's
first AZ), region us-west-2. The `default` m5.large group is kept too.
"""

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
vpc = aws.ec2.Vpc("ml-capacity-block", cidr_block="10.0.0.0/16")
private = [aws.ec2.Subnet(f"private-{i}", vpc_id=vpc.id, cidr_block=f"10.0.{16 * i}.0/20", availability_zone=az)
           for i, az in enumerate(["us-west-2a", "us-west-2b", "us-west-2c"])]
role = aws.iam.Role("node-role", assume_role_policy='{"Version":"2012-10-17","Statement":[{"Effect":"Allow",'
                                                   '"Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}')
efa_sg = aws.ec2.SecurityGroup("efa", vpc_id=vpc.id,
                               ingress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}],
                               egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}])
placement = aws.ec2.PlacementGroup("cbr", strategy="cluster")
cbr_template = aws.ec2.LaunchTemplate(
    "cbr",
    instance_market_options={"market_type": "capacity-block"},
    capacity_reservation_specification={"capacity_reservation_target": {
        "capacity_reservation_id": config.require("capacityReservationId")}},
    placement={"group_name": placement.name},
    network_interfaces=[{"network_card_index": i, "device_index": 0 if i == 0 else 1, "delete_on_termination": "true",
                         "interface_type": "efa" if i == 0 else "efa-only", "security_groups": [efa_sg.id]}
                        for i in range(32)],
    metadata_options={"http_tokens": "required", "http_put_response_hop_limit": 2},
)
aws.eks.NodeGroup(
    "cbr",
    cluster_name="ml-capacity-block",
    node_role_arn=role.arn,
    ami_type="AL2023_x86_64_NVIDIA",
    instance_types=["p5e.48xlarge"],
    capacity_type="CAPACITY_BLOCK",
    scaling_config={"min_size": 2, "max_size": 2, "desired_size": 2},
    subnet_ids=[private[0].id],
    launch_template={"id": cbr_template.id, "version": cbr_template.latest_version},
    labels={"vpc.amazonaws.com/efa.present": "true", "nvidia.com/gpu.present": "true"},
    taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}],
)
aws.eks.NodeGroup(
    "default",
    cluster_name="ml-capacity-block",
    node_role_arn=role.arn,
    instance_types=["m5.large"],
    scaling_config={"min_size": 2, "max_size": 2, "desired_size": 2},
    subnet_ids=[s.id for s in private],
)
