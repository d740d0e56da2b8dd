"""Pulumi components for the clusters planner validates and prices (imports pulumi_aws).

The core never imports this package; it imports the core. Every component plans its
declared topology through `planner.core.planning.pipeline.plan_stack` before creating anything.
"""

from planner.components.accelerated_cluster import (
    AcceleratedCluster,
    P5enCluster,
    Trn2Cluster,
    UltraServerCluster,
)
from planner.components.args import (
    ClusterArgs,
    LustreArgs,
    NodeGroupArgs,
    SuppressArgs,
    WorkloadArgs,
)
from planner.components.checks import ClusterInputError, ClusterRejected
from planner.components.config import from_config
from planner.components.network import EfaNetwork, EfaNetworkArgs
from planner.components.storage import LustreStorage, LustreStorageArgs

__all__ = [
    "AcceleratedCluster",
    "ClusterArgs",
    "ClusterInputError",
    "ClusterRejected",
    "EfaNetwork",
    "EfaNetworkArgs",
    "LustreArgs",
    "LustreStorage",
    "LustreStorageArgs",
    "NodeGroupArgs",
    "P5enCluster",
    "SuppressArgs",
    "Trn2Cluster",
    "UltraServerCluster",
    "WorkloadArgs",
    "from_config",
]
