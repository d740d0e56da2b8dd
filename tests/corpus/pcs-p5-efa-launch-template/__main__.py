"""AWS PCS: a launch template that enables EFA on P5 instances (32 interfaces), without an instance type.

Source: aws-samples/aws-hpc-recipes, recipes/pcs/enable_efa/assets/pcs-lt-efa-p5.yaml,
commit 1a4b4b8e6d0e93410b71946a75345af33633b079. Translated to pulumi_aws; values kept
(NetworkInterfaceCount "32", PlacementGroupName "" so a group is made, named efa-<stack>, by
a Lambda-backed custom resource: the template refers to it by name). pulumi-aws has no PCS
resource, so the compute node group is declared with its AWS CloudControl type, as
pulumi-aws-native registers it.
"""

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
stack = pulumi.get_stack()
vpc = aws.ec2.Vpc("cluster-vpc", cidr_block="10.3.0.0/16")
subnet = aws.ec2.Subnet("node-group-subnet", vpc_id=vpc.id, cidr_block="10.3.0.0/20", availability_zone="us-east-2a")
efa_sg = aws.ec2.SecurityGroup("efa-security-group", name=f"efa-p5-{stack}", vpc_id=vpc.id,
                               description="Support EFA for P5 instances")
aws.vpc.SecurityGroupEgressRule("efa-outbound-self", security_group_id=efa_sg.id, ip_protocol="-1",
                                referenced_security_group_id=efa_sg.id,
                                description="Allow outbound EFA traffic to SG members")
aws.vpc.SecurityGroupIngressRule("efa-inbound-self", security_group_id=efa_sg.id, ip_protocol="-1",
                                 referenced_security_group_id=efa_sg.id,
                                 description="Allow inbound EFA traffic to SG members")

placement_group_name = f"efa-{stack}"  # made by the recipe's PlacementGroupFunction (a Lambda), not a resource here
template = aws.ec2.LaunchTemplate(
    "launch-template",
    name="NODEGROUPNAME-p5-efa",
    tag_specifications=[{"resource_type": "instance", "tags": {"HPCRecipes": "true", "InstanceType": "P5"}}],
    metadata_options={"http_endpoint": "enabled", "http_put_response_hop_limit": 4, "http_tokens": "required"},
    placement={"group_name": placement_group_name},
    network_interfaces=[{"description": "Primary network interface" if i == 0 else None, "device_index": 0 if i == 0 else 1,
                         "interface_type": "efa", "network_card_index": i, "subnet_id": subnet.id,
                         "security_groups": [efa_sg.id]} for i in range(32)],
)
pulumi.CustomResource("aws-native:pcs:ComputeNodeGroup", "p5-nodes", {
    "clusterId": "pcs_0123456789",
    "customLaunchTemplate": {"templateId": template.id, "version": "1"},
    "instanceConfigs": [{"instanceType": config.require("instanceType")}],
    "scalingConfiguration": {"minInstanceCount": int(config.require("minInstances")),
                             "maxInstanceCount": int(config.require("maxInstances"))},
    "subnetIds": [subnet.id],
})
