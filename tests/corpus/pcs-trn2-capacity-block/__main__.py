"""An AWS PCS Slurm cluster whose compute node group runs on an ML Capacity Block (trn2.3xlarge), or on demand.

Source: arminagha1234/trainium-course-cluster, scripts/deploy-pcs.sh,
commit a871b30dc74b69138609fa48bfc4d6aa9b1ce780. The script's AWS CLI calls translated to
pulumi_aws, values kept: a self-referencing security group (all traffic in from itself, the
default egress to anywhere), the AWSPCS-named role and instance profile with the script's
four managed policies, the PCS sample AMI from SSM, an EFS file system with its mount target,
a launch template with the type, the security group and, for CAPACITY_BLOCK, market type
`capacity-block` and the block's reservation id (no block device mappings: the AMI's), the
PCS cluster (Slurm 25.11, SMALL, managed accounting), the compute node group `nki-cng`
(purchaseOption from --purchase-option, static scaling min = max = --compute-node-count, the
node Features the script derives from the type) and the queue `nki`. The user data (the
kit's bootstrap/neuron-userdata.sh) is not copied. pulumi-aws has no PCS resource: the PCS
resources are declared with their AWS CloudControl types, as pulumi-aws-native registers them.
"""

import base64

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
cluster_name = config.require("clusterName")
purchase_option = config.get("purchaseOption") or "CAPACITY_BLOCK"
instance_type = config.get("computeInstanceType") or "trn2.3xlarge"
node_count = int(config.get("computeNodeCount") or "1")
cr_id = config.get("capacityReservationId")
az = config.require("availabilityZone")
neuroncores = {"trn2.48xlarge": 16, "trn2.3xlarge": 4, "trn1.32xlarge": 32, "trn1n.32xlarge": 32,
               "trn1.2xlarge": 2}.get(instance_type, 4)

vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16")
subnet = aws.ec2.Subnet("compute-subnet", vpc_id=vpc.id, cidr_block="10.0.1.0/24", availability_zone=az)

sg = aws.ec2.SecurityGroup("cluster-sg", name=f"AWSPCS-{cluster_name}-cluster-sg", vpc_id=vpc.id,
                           description=f"AWS PCS cluster SG for {cluster_name} (self-referencing; all egress)",
                           egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
                           tags={"Class": cluster_name, "Purpose": "trn-course-pcs"})
aws.vpc.SecurityGroupIngressRule("cluster-sg-self", security_group_id=sg.id, ip_protocol="-1",
                                 referenced_security_group_id=sg.id)

role = aws.iam.Role("compute-role", name=f"AWSPCS-{cluster_name}-compute",
                    assume_role_policy='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":'
                                       '{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}',
                    description=f"AWS PCS compute node role for {cluster_name}",
                    tags={"Class": cluster_name, "Purpose": "trn-course-pcs"})
for policy in ("AWSPCSComputeNodePolicy", "AmazonSSMManagedInstanceCore", "AmazonS3ReadOnlyAccess",
               "CloudWatchAgentServerPolicy"):
    aws.iam.RolePolicyAttachment(f"compute-role-{policy}", role=role.name,
                                 policy_arn=f"arn:aws:iam::aws:policy/{policy}")
profile = aws.iam.InstanceProfile("compute-profile", name=f"AWSPCS-{cluster_name}-compute", role=role.name)

ami = aws.ssm.get_parameter_output(name="/aws/service/pcs/ami/dlami-base-ubuntu2404/x86_64/latest/ami-id")

efs = aws.efs.FileSystem("shared", creation_token=f"{cluster_name}-shared-efs", encrypted=True,
                         performance_mode="generalPurpose", throughput_mode="elastic",
                         tags={"Name": cluster_name, "Class": cluster_name, "Purpose": "trn-course-pcs"})
aws.efs.MountTarget("shared-mount", file_system_id=efs.id, subnet_id=subnet.id, security_groups=[sg.id])

user_data = base64.b64encode(b"#!/bin/bash\n# bootstrap/neuron-userdata.sh of the kit (not copied)\n").decode()
capacity_block = {
    "instance_market_options": {"market_type": "capacity-block"},
    "capacity_reservation_specification": {"capacity_reservation_target": {"capacity_reservation_id": cr_id}},
} if purchase_option == "CAPACITY_BLOCK" else {}
template = aws.ec2.LaunchTemplate(
    "compute-lt",
    name=f"AWSPCS-{cluster_name}-lt",
    image_id=ami.value,
    instance_type=instance_type,
    vpc_security_group_ids=[sg.id],
    user_data=user_data,
    tags={"Class": cluster_name, "Purpose": "trn-course-pcs"},
    **capacity_block,
)

pcs_cluster = pulumi.CustomResource("aws-native:pcs:Cluster", "cluster", {
    "name": cluster_name,
    "scheduler": {"type": "SLURM", "version": "25.11"},
    "size": "SMALL",
    "networking": {"subnetIds": [subnet.id], "securityGroupIds": [sg.id]},
    "slurmConfiguration": {"accounting": {"mode": "STANDARD"},
                           "slurmCustomSettings": [{"parameterName": "AccountingStorageEnforce",
                                                    "parameterValue": "associations,limits,qos"}]},
    "tags": {"Class": cluster_name, "Purpose": "trn-course-pcs"},
})
cng = pulumi.CustomResource("aws-native:pcs:ComputeNodeGroup", "nki-cng", {
    "clusterId": pcs_cluster.id,
    "name": "nki-cng",
    "amiId": ami.value,
    "subnetIds": [subnet.id],
    "purchaseOption": purchase_option,
    "customLaunchTemplate": {"templateId": template.id, "version": template.latest_version.apply(str)},
    "iamInstanceProfileArn": profile.arn,
    "scalingConfiguration": {"minInstanceCount": node_count, "maxInstanceCount": node_count},
    "instanceConfigs": [{"instanceType": instance_type}],
    "slurmConfiguration": {"slurmCustomSettings": [{"parameterName": "Features",
                                                    "parameterValue": f"neuron,neuroncores{neuroncores}"}]},
    "tags": {"Class": cluster_name, "Purpose": "trn-course-pcs"},
})
pulumi.CustomResource("aws-native:pcs:Queue", "nki", {
    "clusterId": pcs_cluster.id,
    "name": "nki",
    "computeNodeGroupConfigurations": [{"computeNodeGroupId": cng.id}],
    "tags": {"Class": cluster_name, "Purpose": "trn-course-pcs"},
})
