"""planner's Pulumi component package: the components for every Pulumi language.

`PulumiPlugin.yaml` at the repository root names `planner/provider` as the plugin's entry
point; Pulumi runs it when a program in any language uses the package (`pulumi package add`),
asks it for its schema, and sends it a `Construct` per component. `serve()` hosts the five
components with `pulumi.provider.experimental.component_provider_host`, which infers the
schema from the annotations of `planner.provider.components` and `planner.provider.args`.
`schema()` gives the same schema without a server (the committed `provider/schema.json` is
checked against it).
"""

from __future__ import annotations

import json
from typing import Any

NAME = "planner"


def hosted() -> list[type[Any]]:
    """The hosted components, in schema order (imports pulumi and pulumi_aws)."""
    from planner.provider.components import COMPONENTS

    return list(COMPONENTS)


def schema() -> dict[str, Any]:
    """The package schema Pulumi infers for the hosted components."""
    from pulumi.provider.experimental.component import ComponentProvider

    from planner import __version__

    provider = ComponentProvider(hosted(), NAME, version=__version__)
    return json.loads(provider.schema or "{}")


def serve() -> None:
    """Run as the engine runs the plugin: prints its gRPC port, serves until stopped."""
    from pulumi.provider.experimental import component_provider_host

    from planner import __version__

    component_provider_host(hosted(), NAME, version=__version__)
