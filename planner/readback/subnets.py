"""The existing subnets a program's node groups launch into, for `planner preflight`'s free-address check.

A subnet the program creates does not exist yet: AWS cannot say how many addresses it has free, and
planner says nothing of it. A subnet the program names by its id (`subnet-0123...`, a literal, not an
output of a resource of the stack) exists in the account: `planner preflight` asks AWS for its
`AvailableIpAddressCount`, as it does for a stack file's `network.subnet_id`.
"""

from __future__ import annotations

import re

from msgspec.structs import replace

from planner.core.input.stack_files import CLUSTER_PATH
from planner.readback.resources import LAUNCH_TEMPLATE, Graph, Resource, as_list, known
from planner.readback.topology import Launch, Rebuilt

_SUBNET_ID = re.compile(r"subnet-[0-9a-f]{8,17}")
# where a group's capacity resource (Auto Scaling group, instance, EKS node group) names its subnets
_PROPS = ("vpcZoneIdentifiers", "subnetIds", "subnetId")


def add_subnet_ids(graph: Graph, rebuilt: Rebuilt) -> None:
    """Each node group's existing subnets (`NodeGroup.subnet_ids`, set through its `Launch`): those its capacity
    resource names, else its launch template's interfaces; read before the model is built, so it is built once."""
    entries = (rebuilt.data or {}).get("node_groups") or ()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        path = CLUSTER_PATH + ("node_groups", i)
        owner = graph.by_urn.get(rebuilt.resources.get(path) or "")
        template = graph.by_urn.get(rebuilt.resources.get(path + ("interfaces",)) or "")
        ids = _existing(graph, owner, [v for p in _PROPS for v in as_list(owner.get(p))] if owner else [])
        if not ids and template is not None and template.type == LAUNCH_TEMPLATE:
            named = [n.get("subnetId") for n in as_list(template.get("networkInterfaces")) if isinstance(n, dict)]
            ids = _existing(graph, template, named)
        if ids:
            name = str(entry.get("name"))
            rebuilt.launches[name] = replace(rebuilt.launches.get(name, Launch()), subnet_ids=ids)


def _existing(graph: Graph, owner: Resource | None, values: list[object]) -> tuple[str, ...]:
    """The subnet ids among `values` that are literals, not a resource of the stack (in order, once each)."""
    if owner is None:
        return ()
    out = [
        v for v in values if isinstance(v, str) and known(v) and _SUBNET_ID.fullmatch(v) and graph.referenced(v) is None
    ]
    return tuple(dict.fromkeys(out))
