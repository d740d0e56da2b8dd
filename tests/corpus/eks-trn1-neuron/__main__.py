"""Trainium and Inferentia on EKS (the data-on-eks trainium-inferentia blueprint's node groups).

Source: awslabs/data-on-eks, ai-ml/trainium-inferentia/eks.tf and main.tf (at commit
006321d4c038271a8ee9f693c5c84a1cecd4aa82) and variables.tf (at commit
0620075c14881570a6cc3df02c396061417ba04e). The terraform-aws-eks module's managed node groups
translated to pulumi_aws (a launch template for the groups that declare network interfaces).
Values kept: every Neuron group at its variables' defaults, desired 0 and min 0 (trn1 max 4,
trn1n and inf2 max 2); subnets in the VPC's secondary CIDR 100.64.0.0/16, placed by AZ *id*
(usw2-az4, usw2-az1) as main.tf's az_mapping does; the core m5.xlarge group 3/3/8.
"""

import pulumi_aws as aws

azs = ["usw2-az4", "usw2-az1"]  # local.az_mapping["us-west-2"]
vpc = aws.ec2.Vpc("trainium-inferentia", cidr_block="10.1.0.0/21")
secondary = aws.ec2.VpcIpv4CidrBlockAssociation("secondary", vpc_id=vpc.id, cidr_block="100.64.0.0/16")
# module.vpc.private_subnets = [AZ1_10.x, AZ2_10.x, AZ1_100.x, AZ2_100.x]
private = [aws.ec2.Subnet(f"private-{i}", vpc_id=vpc.id, cidr_block=cidr, availability_zone_id=azs[i % 2])
           for i, cidr in enumerate(["10.1.0.0/24", "10.1.1.0/24", "100.64.0.0/17", "100.64.128.0/17"])]
secondary_subnets = [private[2], private[3]]
role = aws.iam.Role("node-role", assume_role_policy='{"Version":"2012-10-17","Statement":[{"Effect":"Allow",'
                                                   '"Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}')


def efa_template(name: str, devices: list[int]) -> aws.ec2.LaunchTemplate:
    return aws.ec2.LaunchTemplate(
        name,
        block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"volume_size": 100, "volume_type": "gp3"}}],
        ebs_optimized="true",
        network_interfaces=[{"description": "NetworkInterfaces Configuration For EFA and EKS",
                             "delete_on_termination": "true", "device_index": device, "network_card_index": card,
                             "associate_public_ip_address": "false", "interface_type": "efa"}
                            for card, device in enumerate(devices)],
    )


aws.eks.NodeGroup("core-node-group", cluster_name="trainium-inferentia", node_role_arn=role.arn,
                  subnet_ids=[s.id for s in secondary_subnets], ami_type="AL2_x86_64", instance_types=["m5.xlarge"],
                  scaling_config={"min_size": 3, "max_size": 8, "desired_size": 3})

trn1 = efa_template("trn1-32xl-ng1", [0] + [1] * 7)
aws.eks.NodeGroup("trn1-32xl-ng1", cluster_name="trainium-inferentia", node_role_arn=role.arn,
                  subnet_ids=[private[2].id], ami_type="AL2_x86_64_GPU", instance_types=["trn1.32xlarge"],
                  scaling_config={"min_size": 0, "max_size": 4, "desired_size": 0},
                  launch_template={"id": trn1.id, "version": trn1.latest_version},
                  taints=[{"key": "aws.amazon.com/neuron", "value": "true", "effect": "NO_SCHEDULE"}])

trn1n = efa_template("trn1n-32xl-ng", [0, 1, 2, 3] + [1] * 12)
aws.eks.NodeGroup("trn1n-32xl-ng", cluster_name="trainium-inferentia", node_role_arn=role.arn,
                  subnet_ids=[private[2].id], ami_type="AL2_x86_64_GPU", instance_types=["trn1n.32xlarge"],
                  scaling_config={"min_size": 0, "max_size": 2, "desired_size": 0},
                  launch_template={"id": trn1n.id, "version": trn1n.latest_version},
                  taints=[{"key": "aws.amazon.com/neuron", "value": "true", "effect": "NO_SCHEDULE"}])

for name, itype in (("inf2-24xl-ng", "inf2.24xlarge"), ("inf2-48xl-ng", "inf2.48xlarge")):
    aws.eks.NodeGroup(name, cluster_name="trainium-inferentia", node_role_arn=role.arn,
                      subnet_ids=[secondary_subnets[0].id], ami_type="AL2_x86_64_GPU", capacity_type="SPOT",
                      instance_types=[itype], scaling_config={"min_size": 0, "max_size": 2, "desired_size": 0},
                      taints=[{"key": "aws.amazon.com/neuron", "value": "true", "effect": "NO_SCHEDULE"},
                              {"key": "aws.amazon.com/neuroncore", "value": "true", "effect": "NO_SCHEDULE"}])
