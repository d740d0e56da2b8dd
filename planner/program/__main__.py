"""The Pulumi program named in Pulumi.yaml: plans the stack's `planner:cluster` config.

Until the components land, it validates the declared cluster with the same code as
`planner plan` and exports the summary; it creates no resources.
"""

import pulumi

from planner.errors import InputError
from planner.parse import parse_cluster
from planner.pipeline import plan_stack
from planner.model import Stack

config = pulumi.Config("planner")
region = pulumi.Config("aws").require("region")
try:
    cluster = parse_cluster(config.require_object("cluster"), region, file=f"Pulumi.{pulumi.get_stack()}.yaml")
except InputError as exc:
    raise pulumi.RunError(str(exc)) from None
plan = plan_stack(Stack(pulumi.get_stack(), f"Pulumi.{pulumi.get_stack()}.yaml", region, cluster))
pulumi.export("summary", plan.summary)
