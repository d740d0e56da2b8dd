"""Trn2 UltraServers declared in Python: a checkpoint bucket, the nodes' IAM role and
an UltraServerCluster on a Capacity Block, with FSx for Lustre fed from S3.

`planner plan --program examples/ultraserver-training --stack dev` plans it offline;
`pulumi preview --stack dev` (Pulumi CLI and AWS credentials needed) fails before
deployment if the planner finds an error.
"""

import json

import pulumi
import pulumi_aws as aws

from planner.components import (
    ClusterArgs,
    LustreArgs,
    NodeGroupArgs,
    UltraServerCluster,
)

config = pulumi.Config()

checkpoints = aws.s3.Bucket("checkpoints", force_destroy=False)
role = aws.iam.Role(
    "node",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
)
aws.iam.RolePolicy(
    "node-checkpoints",
    role=role.name,
    policy=checkpoints.arn.apply(
        lambda arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": ["s3:ListBucket", "s3:GetObject", "s3:PutObject"],
                        "Resource": [arn, f"{arn}/*"],
                    }
                ],
            }
        )
    ),
)
profile = aws.iam.InstanceProfile("node", role=role.name)

cluster = UltraServerCluster(
    "pretrain",
    ClusterArgs(
        availability_zone="us-east-2b",
        node_groups=[
            NodeGroupArgs(
                name="ultraservers",
                ultraservers=config.get_int("ultraservers") or 4,
                purchase="capacity-block",
                capacity_reservation_id=config.get("capacityReservationId"),
            )
        ],
        placement_group="none",  # AWS: no need for a cluster placement group with a Capacity Block
        lustre=LustreArgs(
            deployment_type="PERSISTENT_2",
            storage_capacity_gib=9600,
            per_unit_storage_throughput=250,
            s3_import_path="s3://example-training-data/tokens",
        ),
        schedule_hours=336,
        instance_profile=profile.name,
    ),
)

pulumi.export("checkpoint_bucket", checkpoints.bucket)
pulumi.export("summary", cluster.summary)
pulumi.export("cost", cluster.cost)
pulumi.export("launch_template_ids", cluster.launch_template_ids)
