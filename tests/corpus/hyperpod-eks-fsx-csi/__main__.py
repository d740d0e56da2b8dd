"""Slurm on a SageMaker HyperPod EKS cluster of ml.p5.48xlarge, with FSx for Lustre from the FSx for Lustre CSI driver.

Source: aws-samples/awsome-distributed-training, commit 7217859f67bc693c52ff175ccc6082c41dbd7a1b:
1.architectures/7.sagemaker-hyperpod-eks/slinky-slurm/ (README.md, "Create an FSx for Lustre Storage Class";
lustre-storageclass.yaml, lustre-pvc-slurm.yaml; p5/p5-custom.tfvars, the HyperPod EKS Terraform modules'
inputs for 2 ml.p5.48xlarge). The StorageClass `fsx-sc` (provisioner fsx.csi.aws.com: PERSISTENT_2, 250 MB/s/TiB,
LZ4, Lustre 2.15, no backups) and the PersistentVolumeClaim `fsx-claim` of 1200Gi in namespace slurm, which the
driver turns into one file system (dynamic provisioning). Translated as the Kubernetes objects pulumi_kubernetes
registers (`kubernetes:storage.k8s.io/v1:StorageClass`, `kubernetes:core/v1:PersistentVolumeClaim`; registered
here with `pulumi.CustomResource` so the test needs no Kubernetes SDK) and the HyperPod cluster as
`aws-native:sagemaker:Cluster` with its EKS orchestrator. PRIVATE_SUBNET_ID and SECURITY_GROUP_ID, which the
README substitutes with envsubst, are the Terraform modules' private subnet (AZ id usw2-az2, no AZ name) and
security group (all traffic with itself); the VPC and the EKS cluster are reduced to what they name. Values kept
as written.
"""

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
prefix = "slinky-hp-eks"  # resource_name_prefix
vpc = aws.ec2.Vpc(f"{prefix}-vpc", cidr_block="10.192.0.0/16")
private = aws.ec2.Subnet(f"{prefix}-private", vpc_id=vpc.id, cidr_block="10.1.0.0/16", availability_zone_id="usw2-az2")
sg = aws.ec2.SecurityGroup(f"{prefix}-sg", vpc_id=vpc.id, description="Security group for HyperPod")
aws.vpc.SecurityGroupIngressRule("self-in", security_group_id=sg.id, ip_protocol="-1", referenced_security_group_id=sg.id)
aws.vpc.SecurityGroupEgressRule("self-out", security_group_id=sg.id, ip_protocol="-1", referenced_security_group_id=sg.id)
role = aws.iam.Role(f"{prefix}-eks-role", assume_role_policy="{}")
eks = aws.eks.Cluster("slinky-eks-cluster", version="1.32", role_arn=role.arn,
                      vpc_config={"subnet_ids": [private.id], "security_group_ids": [sg.id]})

# p5/p5-custom.tfvars: instance_groups
pulumi.CustomResource("aws-native:sagemaker:Cluster", "slinky-hp-cluster", {
    "clusterName": "slinky-hp-cluster",
    "orchestrator": {"eks": {"clusterArn": eks.arn}},
    "instanceGroups": [
        {"instanceGroupName": "accelerated-instance-group-1", "instanceType": "ml.p5.48xlarge", "instanceCount": 2,
         "threadsPerCore": 2, "onStartDeepHealthChecks": ["InstanceStress", "InstanceConnectivity"],
         "instanceStorageConfigs": [{"ebsVolumeConfig": {"volumeSizeInGb": 500}}],
         "lifeCycleConfig": {"onCreate": "on_create.sh"}, "executionRole": role.arn},
        {"instanceGroupName": "general-instance-group-2", "instanceType": "ml.m5.2xlarge", "instanceCount": 2,
         "threadsPerCore": 1, "instanceStorageConfigs": [{"ebsVolumeConfig": {"volumeSizeInGb": 500}}],
         "lifeCycleConfig": {"onCreate": "on_create.sh"}, "executionRole": role.arn},
    ],
    "vpcConfig": {"securityGroupIds": [sg.id], "subnets": [private.id]},
})

# lustre-storageclass.yaml, with PRIVATE_SUBNET_ID and SECURITY_GROUP_ID substituted
storage_class = pulumi.CustomResource("kubernetes:storage.k8s.io/v1:StorageClass", "fsx-sc", {
    "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fsx-sc"},
    "provisioner": "fsx.csi.aws.com",
    "parameters": {
        "subnetId": private.id,
        "securityGroupIds": sg.id,
        "deploymentType": "PERSISTENT_2",
        "automaticBackupRetentionDays": "0",
        "copyTagsToBackups": "true",
        "perUnitStorageThroughput": config.get("perUnitStorageThroughput") or "250",
        "dataCompressionType": "LZ4",
        "fileSystemTypeVersion": "2.15",
    },
    "mountOptions": ["flock"],
})
# lustre-pvc-slurm.yaml
pulumi.CustomResource("kubernetes:core/v1:PersistentVolumeClaim", "fsx-claim", {
    "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "fsx-claim", "namespace": "slurm"},
    "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "fsx-sc",
             "resources": {"requests": {"storage": "1200Gi"}}},
}, opts=pulumi.ResourceOptions(depends_on=[storage_class]))
