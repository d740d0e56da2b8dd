"""Where a value of a cluster read back from a program came from: the provenance map.

A stack file locates a value by its key's line; a program's cluster has no keys, only resources
and their properties. So the read-back keeps, next to the model, a map from each model path to
the resource it was read from (its URN), the property of that resource that holds it (as the
program declares it, pulumi_aws's Python name: `desired_capacity`, `instance_market_options.market_type`;
"" for the resource as a whole) and the program's file and line that declared the resource. The
model knows nothing of programs; this map knows how to talk about them.
"""

from __future__ import annotations

from msgspec import Struct


class Provenance(Struct, frozen=True):
    """The resource a model value was read from, the property that holds it, where it was declared."""

    resource: str  # the Pulumi URN of the resource
    property: str  # the property as the program declares it; "" for the resource as a whole
    file: str | None = None  # the program's file that declared the resource, when known
    line: int | None = None
