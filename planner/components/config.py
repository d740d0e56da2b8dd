"""`from_config`: the components a `planner:cluster` mapping declares (the stack-config path)."""

from __future__ import annotations

from typing import Any

import pulumi

from planner.components import checks
from planner.components.accelerated_cluster import (
    AcceleratedCluster,
    P5enCluster,
    Trn2Cluster,
    UltraServerCluster,
)
from planner.components.args import ClusterArgs
from planner.core.reading.yaml_lines import Lines

_BY_TYPE: dict[str, type[AcceleratedCluster]] = {
    cls.INSTANCE_TYPE: cls for cls in (Trn2Cluster, UltraServerCluster, P5enCluster) if cls.INSTANCE_TYPE
}


def from_config(
    name: str,
    cluster: Any,
    region: str,
    *,
    file: str | None = None,
    lines: Lines | None = None,
    opts: pulumi.ResourceOptions | None = None,
    **deployment: Any,
) -> AcceleratedCluster:
    """Build the cluster component a `planner:cluster` mapping declares.

    The mapping is parsed as a stack file is (input problems raise `ClusterInputError`,
    a `pulumi.RunError`, one problem per line); the component class follows the node
    groups' instance type (Trn2Cluster, UltraServerCluster, P5enCluster, else
    AcceleratedCluster). `deployment` holds ClusterArgs' deployment-only fields
    (image_id, instance_profile, ...). `file` and `lines` (from `planner.core.reading.yaml_lines`) name
    the stack file and lines in messages and findings.
    """
    source = file or f"planner:cluster of {name}"
    from planner.components.args import DEPLOYMENT_FIELDS, region_problems
    from planner.core.reading.problems import Problem

    problems = [
        Problem(source, None, k, f"unknown argument; expected one of: {', '.join(DEPLOYMENT_FIELDS)}")
        for k in sorted(deployment)
        if k not in DEPLOYMENT_FIELDS
    ] + region_problems(region, source, "aws:region")
    if problems:
        raise checks.ClusterInputError(problems)
    parsed = checks.stack_from_config(name, cluster, region, source, lines=lines).cluster
    types = {g.instance_type for g in parsed.node_groups}
    cls = _BY_TYPE.get(types.pop()) if len(types) == 1 else None
    args = ClusterArgs.from_model(parsed, region=region, **deployment)
    return (cls or AcceleratedCluster)(name, args, opts, source=source, lines=lines)
