"""The Pulumi program named in Pulumi.yaml: the cluster declared in the stack's config.

`planner:cluster` (see docs/stack-schema.md) is planned first, with the same rules
as `planner plan`; a stack with errors stops here, before anything is created. Optional
deployment settings live beside it: `planner:imageId` (default: the AWS Deep Learning AMI
for the accelerator) and `planner:instanceProfile`.
"""

import pulumi

from planner.components import from_config
from planner.runtime.offline_run import stack_source

config = pulumi.Config("planner")
stack = pulumi.get_stack()
file, lines = stack_source(stack)  # findings point at the stack file's lines, as `planner plan`'s do
cluster = from_config(
    stack,
    config.require_object("cluster"),
    pulumi.Config("aws").require("region"),
    file=file,
    lines=lines,
    image_id=config.get("imageId"),
    root_device_name=config.get("rootDeviceName"),
    instance_profile=config.get("instanceProfile"),
)
pulumi.export("summary", cluster.summary)
pulumi.export("cost", cluster.cost)
pulumi.export("findings", cluster.findings)
pulumi.export("vpc_id", cluster.network.vpc_id)
pulumi.export("subnet_id", cluster.network.subnet_id)
pulumi.export("security_group_id", cluster.network.security_group_id)
pulumi.export("launch_template_ids", cluster.launch_template_ids)
pulumi.export("auto_scaling_group_names", cluster.auto_scaling_group_names)
if cluster.storage is not None:
    pulumi.export("file_system_id", cluster.storage.file_system_id)
    pulumi.export("file_system_dns_name", cluster.storage.dns_name)
    pulumi.export("file_system_mount_name", cluster.storage.mount_name)
