"""AWS Batch for distributed training on p4d.24xlarge.

Source: aws-samples/awsome-distributed-training,
1.architectures/3.aws-batch/0.aws-batch-distributed-training.yaml,
commit 0c56aae5beccca8b16bc70eb84403e0ede65cd28. Translated to pulumi_aws; values kept.
Parameters at their defaults: CapacityReservationId and CapacityReservationResourceGroup
empty (no reservation), CreatePlacementGroup 'false' (which, as the template's condition
reads, *attaches* the placement group), no key pair.
"""

import json

import pulumi
import pulumi_aws as aws

config = pulumi.Config()
vpc = aws.ec2.Vpc("large-scale-vpc", cidr_block="10.0.0.0/16")  # the template imports it from the VPC stack
subnet = aws.ec2.Subnet("private-subnet", vpc_id=vpc.id, cidr_block="10.0.0.0/17",
                        availability_zone=config.require("availabilityZone"))
sg = aws.ec2.SecurityGroup("efa-security-group", vpc_id=vpc.id,
                           ingress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}],
                           egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True}])

lt = aws.ec2.LaunchTemplate(
    "distributed-deep-learning-lt",
    network_interfaces=[{"description": f"EFA Interface {i}", "security_groups": [sg.id], "network_card_index": i,
                         "device_index": i, "delete_on_termination": "true", "interface_type": "efa"}
                        for i in range(4)],
    user_data="TUlNRS1WZXJzaW9uOiAxLjA=",
)
pg = aws.ec2.PlacementGroup("cluster-placement-group", strategy="cluster")

batch_role = aws.iam.Role("batch-instance-role", assume_role_policy=json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": ["batch.amazonaws.com"]},
                                            "Action": ["sts:AssumeRole"]}]}),
    managed_policy_arns=["arn:aws:iam::aws:policy/service-role/AWSBatchServiceRole"])
ecs_role = aws.iam.Role("ecs-task-service-role", assume_role_policy=json.dumps({
    "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": ["ec2.amazonaws.com"]},
                                            "Action": ["sts:AssumeRole"]}]}),
    managed_policy_arns=["arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role"])
profile = aws.iam.InstanceProfile("ecs-task-instance-profile", path="/", role=ecs_role.name)

ce = aws.batch.ComputeEnvironment(
    "distributed-deep-learning-ce",
    type="MANAGED",
    service_role=batch_role.arn,
    compute_resources={
        "allocation_strategy": "BEST_FIT",
        "max_vcpus": 100000,
        "desired_vcpus": 0,
        "min_vcpus": 0,
        "placement_group": pg.name,
        "subnets": [subnet.id],
        "type": "EC2",
        "image_id": "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id",
        "instance_role": profile.arn,
        "launch_template": {"launch_template_id": lt.id, "version": "$Latest"},
        "instance_types": ["p4d.24xlarge"],
    },
    state="ENABLED",
    tags={"Name": "Batch Deep Learning"},
)
queue = aws.batch.JobQueue("distributed-deep-learning-jq", priority=1, state="ENABLED",
                           compute_environment_orders=[{"compute_environment": ce.arn, "order": 1}])
repository = aws.ecr.Repository("distributed-deep-learning-repository")
