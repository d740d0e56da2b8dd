"""kubetest2-eksapi: an unmanaged EKS node group with EFA, launched through a mixed instances policy.

Source: aws/aws-k8s-tester, kubetest2/internal/deployers/eksapi/templates/unmanaged-nodegroup-efa.yaml,
commit 0d3ba7bdbb4bcee3edd6d48e26720354470f1102. Translated to pulumi_aws; values kept, InstanceType
at its default (p5.48xlarge: the 32-interface branch), no capacity reservation.
"""

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
nodes = int(config.require("nodeCount"))
vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
subnets = [aws.ec2.Subnet(f"private-{az}", vpc_id=vpc.id, cidr_block=f"10.0.{64 * i}.0/18", availability_zone=az)
           for i, az in enumerate(["us-west-2a", "us-west-2b"])]
efa_sg = aws.ec2.SecurityGroup("efa-security-group", vpc_id=vpc.id,
                               description="Security group for all nodes in the cluster")
aws.ec2.SecurityGroupRule("efa-ingress", type="ingress", protocol="-1", from_port=0, to_port=65535,
                          security_group_id=efa_sg.id, source_security_group_id=efa_sg.id)
aws.ec2.SecurityGroupRule("efa-egress", type="egress", protocol="-1", from_port=0, to_port=65536,
                          security_group_id=efa_sg.id, source_security_group_id=efa_sg.id)
aws.ec2.SecurityGroupRule("efa-egress-all-ipv4", type="egress", protocol="-1", from_port=0, to_port=65536,
                          security_group_id=efa_sg.id, cidr_blocks=["0.0.0.0/0"])

template = aws.ec2.LaunchTemplate(
    "node-launch-template",
    name="kubetest2-efa",
    block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"delete_on_termination": "true", "volume_size": 100,
                                                                "volume_type": "gp2"}}],
    image_id="ami-0kubetest2node",
    instance_type="p5.48xlarge",
    network_interfaces=[{"description": "NetworkInterfaces Configuration For EFA and EKS", "network_card_index": i,
                         "device_index": 0 if i == 0 else 1, "interface_type": "efa", "security_groups": [efa_sg.id]}
                        for i in range(32)],
)
aws.autoscaling.Group(
    "node-group",
    name="kubetest2-efa",
    mixed_instances_policy={"launch_template": {"launch_template_specification": {
        "launch_template_id": template.id, "version": template.latest_version}}},
    desired_capacity=nodes,
    min_size=nodes,
    max_size=nodes,
    vpc_zone_identifiers=[s.id for s in subnets],
)
