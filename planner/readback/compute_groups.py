"""What every reader of fixed-size compute shares: a node group as read (`ReadGroup`), its size from desired,
minimum and maximum, the sizes AWS refuses, and the instance type it is planned with.

The readers (`auto_scaling`, `eks_node_groups`, `ec2_instances`, `pcs_node_groups`) each turn one resource
family into `ReadGroup`s; `planner.readback.topology` assembles them into the cluster. Their fixes name the
resource's own properties as the engine names them (`planner.readback.resources.change`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from planner.core.model.cluster import LaunchInterface, Purchase, Unplanned, Volume
from planner.core.model.findings import Fix
from planner.readback.elastic_compute import unlisted_fix
from planner.readback.resources import Graph, Resource, Violation, as_int, change, known

# families with GPUs, Trainium or Inferentia: compute worth naming when the catalogue lacks the type
ACCELERATED = re.compile(r"^(p\d+[a-z0-9-]*|g\d+[a-z0-9-]*|trn\d+[a-z0-9]*|inf\d+[a-z0-9]*|dl\d+[a-z0-9]*)\.")


class ReadGroup(Struct):
    """One node group before it becomes a mapping: values plus the resource each came from."""

    name: str
    instance_type: str
    count: int
    capacity: Resource  # the Auto Scaling group, or the first instance
    template: Resource | None
    values: dict[str, Any]
    sources: dict[str, Resource]
    placement_groups: list[Resource]
    zones: list[str]
    maximum: int | None = None
    external_placement: str | None = None  # a placement group named that is not a resource of the stack
    interfaces: tuple[LaunchInterface, ...] | None = None
    volumes: tuple[Volume, ...] = ()  # every EBS volume each instance gets (`block_devices`)
    ultraserver: tuple[str, str, int] | None = (
        None  # (cluster, node group, k): the planner tags of one UltraServer's ASG
    )
    grows_with_jobs: bool = False  # an AWS PCS group: launches up to its maximum as jobs arrive


# reads one family of resources into node groups: (graph, catalogue, gaps, unplanned) -> groups
GroupReader = Callable[[Graph, Any, list[Violation], list[tuple[Unplanned, str | None]]], list[ReadGroup]]


def sizes(desired: Any, minimum: Any, maximum: Any) -> tuple[int | None, int | None, int | None]:
    """(planned, min, max): the desired size, else the minimum (what AWS starts with); never the maximum."""
    d, lo, hi = as_int(desired), as_int(minimum), as_int(maximum)
    planned = d if d is not None else lo
    return planned, lo, hi


def refused_sizes(
    kind: str,
    r: Resource,
    props: tuple[str, str, str],
    desired: int | None,
    lo: int | None,
    hi: int | None,
    gaps: list[Violation],
) -> None:
    """Sizes the Auto Scaling and EKS APIs refuse at creation (min above desired, desired above max, min above
    max): an error naming the resource and its properties, in the program's terms."""
    want, least, most = props
    what = f"{kind} '{r.name}'"
    between = f" ({want} must lie between {least} and {most})"
    if lo is not None and hi is not None and lo > hi:
        said, fix = f"{least} {lo} above {most} {hi}", refused_fix(r, (least, hi), (most, lo))
    elif desired is not None and lo is not None and desired < lo:
        said, fix = f"{least} {lo} above {want} {desired}", refused_fix(r, (want, lo), (least, desired))
    elif desired is not None and hi is not None and desired > hi:
        said, fix = f"{want} {desired} above {most} {hi}", refused_fix(r, (most, desired), (want, hi))
    else:
        return
    extra = "" if lo is not None and hi is not None and lo > hi else between
    gaps.append(
        Violation(f"{what} has {said}: AWS refuses to create it{extra}", r.urn, fix=fix, rule="scaling-size-refused")
    )


def accelerated(cat: Any, types: list[str]) -> bool:
    """True when one of `types` has an accelerator (listed with one, or named like an accelerated family)."""
    for t in (name.removeprefix("ml.") for name in types):  # a SageMaker type names its EC2 type after "ml."
        spec = cat.get(t)
        if (spec is not None and spec.accelerator is not None) or (spec is None and ACCELERATED.match(t + ".")):
            return True
    return False


def pick_type(
    types: list[Any],
    cat: Any,
    res: Resource,
    gaps: list[Violation],
    unplanned: list[tuple[Unplanned, str | None]],
    kind: str,
    planned: int | None,
    lo: int | None,
    hi: int | None,
    types_at: tuple[Resource, str],
) -> str | None:
    """The type a group is planned with: the first catalogue type it may launch.

    A bastion or head node (no accelerated type) is not the training cluster: skipped.
    Accelerated types AWS does not list are kept as unplanned compute, named with their count.
    `types_at`: the resource and property the types were read from, which a fix sets.
    """
    if not types or not all(known(t) for t in types):
        gaps.append(
            Violation(
                f"cannot tell the instance type of '{res.name}' (unknown during preview, or set nowhere); not planned",
                res.urn,
                fix=Fix(edits=(change(*types_at, note=LITERAL_TYPE),)),
                left_out=f"{kind} '{res.name}' (instance type unknown)",
            )
        )
        return None
    names = [t for t in types if isinstance(t, str)]
    listed = [t for t in names if cat.lists(t)]
    others = [t for t in names if not cat.lists(t) and ACCELERATED.match(t)]
    if not listed:
        if others:
            unplanned.append(
                (
                    Unplanned(
                        f"{kind} '{res.name}'",
                        "unlisted",
                        tuple(others),
                        planned,
                        lo,
                        hi,
                        f"{lo if lo is not None else '?'}-{hi if hi is not None else '?'} instances",
                        fix=unlisted_fix(tuple(others)),
                    ),
                    res.urn,
                )
            )
        return None
    if len(names) > 1:
        gaps.append(
            Violation(
                f"{kind} '{res.name}' may launch any of {', '.join(names)}; planned as {listed[0]}",
                res.urn,
                fix=Fix(
                    "or split it into one group per type, so each is planned and priced",
                    (change(*types_at, note=f"the one type {listed[0]}"),),
                ),
            )
        )
    return listed[0]


# what a fix writes where a value must be known at preview (a literal, not another resource's output)
KNOWN_AT_PREVIEW = "a number known at preview"


def size_unknown(kind: str, r: Resource, prop: str, why: str = "") -> Violation:
    """A group whose size is unknown at preview: not planned, its size property to write as a number."""
    return Violation(
        f"cannot tell how many instances {kind} '{r.name}' runs{why}; not planned",
        r.urn,
        fix=Fix(edits=(change(r, prop, note=KNOWN_AT_PREVIEW),)),
        left_out=f"{kind} '{r.name}' (size unknown)",
    )


LITERAL_TYPE = "a literal type, not an output of another resource"


def scaled_to_zero(
    kind: str, r: Resource, itype: str, lo: int | None, hi: int | None, desired: str, purchase: Purchase
) -> tuple[Unplanned, str]:
    """A group of `kind` whose desired size is 0: kept aside, with the most it may scale to, and the fix that
    gets it planned (its property `desired`, as the engine names it)."""
    most = f" (at most {hi}, its maximum)" if hi is not None else ""
    fix = Fix(
        "to have it planned and priced:", (change(r, desired, note=f"the number of instances it will run{most}"),)
    )
    rng = f"{lo or 0}-{hi if hi is not None else '?'} instances"
    maxima = ((itype, hi),) if hi else ()
    return (
        Unplanned(
            f"{kind} '{r.name}'",
            "scaled-to-zero",
            (itype,),
            0,
            lo,
            hi,
            rng,
            fix=fix,
            maxima=maxima,
            purchase=purchase,
            name=r.name,
        ),
        r.urn,
    )


def refused_fix(r: Resource, first: tuple[str, int], instead: tuple[str, int]) -> Fix:
    """Sizes AWS refuses: set one size property of `r` (engine names) to a value that fits, or another instead."""
    return Fix(edits=(change(r, first[0], first[1]),), alternatives=(change(r, instead[0], instead[1]),))
