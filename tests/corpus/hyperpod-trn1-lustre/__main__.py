"""A SageMaker HyperPod (Slurm) cluster of ml.trn1.32xlarge with an FSx for Lustre file system its lifecycle scripts mount.

Source: aws-samples/awsome-distributed-training, commit 7217859f67bc693c52ff175ccc6082c41dbd7a1b:
1.architectures/5.sagemaker-hyperpod/README.md (sections 3.1-3.3: provisioning_parameters.json,
cluster-config.json, vpc-config.json, `aws sagemaker create-cluster --region us-west-2`),
2.SageMakerVPC.yaml (the private subnet in AZ id usw2-az4, the EFA security group) and
3.FSxLustre.yaml (PERSISTENT_2, 1200 GiB, 250 MB/s/TiB, LZ4, Lustre 2.15, metadata AUTOMATIC).
The cluster is `aws-native:sagemaker:Cluster` (the type token of pulumi-aws-native's
sagemaker.Cluster, registered here with `pulumi.CustomResource` so the test needs no
aws-native SDK), its instance groups as the README writes them: 1 ml.c5.xlarge controller,
4 ml.trn1.32xlarge compute nodes, ThreadsPerCore 1. The file system's DNS and mount names
go to provisioning_parameters.json in the lifecycle bucket, as the README has it. Values
kept as written, the subnet's AZ as an AZ id (no AZ name).
"""

import json

import pulumi
import pulumi_aws as aws

vpc = aws.ec2.Vpc("sagemaker-hyperpod", cidr_block="10.0.0.0/16", enable_dns_support=True, enable_dns_hostnames=True)
cidr = aws.ec2.VpcIpv4CidrBlockAssociation("cidr1", vpc_id=vpc.id, cidr_block="10.1.0.0/16")
private = aws.ec2.Subnet("primary-private", vpc_id=vpc.id, cidr_block="10.1.0.0/17", availability_zone_id="usw2-az4",
                         opts=pulumi.ResourceOptions(depends_on=[cidr]))
sg = aws.ec2.SecurityGroup("efa", vpc_id=vpc.id, description="Allow EFA communication for Multi-Node Parallel Batch jobs")
aws.vpc.SecurityGroupIngressRule("efa-in", security_group_id=sg.id, ip_protocol="-1", referenced_security_group_id=sg.id)
aws.vpc.SecurityGroupEgressRule("efa-out", security_group_id=sg.id, ip_protocol="-1", referenced_security_group_id=sg.id)
aws.vpc.SecurityGroupEgressRule("all-out", security_group_id=sg.id, ip_protocol="-1", cidr_ipv4="0.0.0.0/0")

fsx = aws.fsx.LustreFileSystem(
    "fsxl",
    storage_type="SSD",
    file_system_type_version="2.15",
    storage_capacity=1200,
    security_group_ids=[sg.id],
    subnet_ids=private.id,
    data_compression_type="LZ4",
    deployment_type="PERSISTENT_2",
    per_unit_storage_throughput=250,
    metadata_configuration={"mode": "AUTOMATIC"},
)

role = aws.iam.Role("AmazonSagemakerClusterExecutionRole", assume_role_policy=json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": ["sagemaker.amazonaws.com"]},
                                            "Action": ["sts:AssumeRole"]}]}),
    managed_policy_arns=["arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"])
bucket = aws.s3.Bucket("sagemaker-lifecycle")
aws.s3.BucketObjectv2(
    "provisioning-parameters",
    bucket=bucket.id,
    key="LifecycleScripts/base-config/provisioning_parameters.json",
    content=pulumi.Output.all(fsx.dns_name, fsx.mount_name).apply(lambda v: json.dumps({
        "version": "1.0.0", "workload_manager": "slurm", "controller_group": "controller-machine",
        "login_group": "my-login-group",
        "worker_groups": [{"instance_group_name": "compute-nodes", "partition_name": "dev"}],
        "fsx_dns_name": v[0], "fsx_mountname": v[1]})),
)
lifecycle = {"sourceS3Uri": bucket.id.apply(lambda b: f"s3://{b}/LifecycleScripts/base-config/"), "onCreate": "on_create.sh"}
pulumi.CustomResource("aws-native:sagemaker:Cluster", "ml-cluster", {
    "clusterName": "ml-cluster",
    "instanceGroups": [
        {"instanceGroupName": "controller-machine", "instanceType": "ml.c5.xlarge", "instanceCount": 1,
         "lifeCycleConfig": lifecycle, "executionRole": role.arn, "threadsPerCore": 1},
        {"instanceGroupName": "compute-nodes", "instanceType": "ml.trn1.32xlarge", "instanceCount": 4,
         "lifeCycleConfig": lifecycle, "executionRole": role.arn, "threadsPerCore": 1},
    ],
    "vpcConfig": {"securityGroupIds": [sg.id], "subnets": [private.id]},
})
