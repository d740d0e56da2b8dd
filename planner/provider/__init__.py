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
    from planner import __version__

    provider = provider_class()(hosted(), NAME, version=__version__)
    inferred: dict[str, Any] = json.loads(provider.schema or "{}")
    return inferred


def serve() -> None:
    """Run as the engine runs the plugin: prints its gRPC port, serves until stopped.

    What `component_provider_host` does, with planner's provider class (below)."""
    import sys

    from pulumi.provider import main

    from planner import __version__

    main(provider_class()(hosted(), NAME, None, __version__), sys.argv[1:])


def provider_class() -> type[Any]:
    """Pulumi's ComponentProvider, refusing an unusable cluster as invalid input properties.

    The SDK reports any exception of a component's constructor with the Python stack of
    the refusal appended, which the engine prints under the resource. planner's refusals
    (unusable input, error findings) are about the inputs, not the code: raised as
    `InputPropertiesError`, the engine shows planner's one-line messages, each with the
    input property it concerns, and no stack.
    """
    from pulumi.errors import InputPropertiesError, InputPropertyError, InputPropertyErrorDetails
    from pulumi.provider.experimental.component import ComponentProvider
    from pulumi.provider.server import ComponentInitError

    from planner.components.checks import ClusterRejected
    from planner.components.errors import ClusterInputError
    from planner.core.text.safe import one_line
    from planner.provider import inputs as shapes

    class PlannerComponentProvider(ComponentProvider):
        def construct(self, name: str, resource_type: str, inputs: Any, options: Any = None) -> Any:
            component = resource_type.rsplit(":", 1)[-1]
            label = one_line(f"{component}('{name}')")
            if resource_type not in self.resource_types():  # the SDK would answer with a KeyError's stack
                raise InputPropertiesError(
                    f"{one_line(resource_type)[:80]}: unknown component type; expected one of: "
                    f"{', '.join(self.resource_types())}",
                    [],
                )
            wrong = shapes.problems(self, component, inputs)
            if wrong:
                raise InputPropertiesError(
                    "\n".join(f"{label}: {path}: {why}" for path, why in wrong),
                    [{"property_path": path, "reason": why} for path, why in wrong],
                )
            try:
                return super().construct(name, resource_type, inputs, options)
            except InputPropertyError as exc:  # a missing required input: the SDK's message is empty
                raise InputPropertiesError(
                    f"{label}: {exc.property_path}: missing; expected a value (a required input)",
                    [{"property_path": exc.property_path, "reason": exc.reason}],
                ) from None
            except ComponentInitError as exc:
                inner = exc.inner
                errors: list[InputPropertyErrorDetails]
                if isinstance(inner, ClusterRejected):
                    errors = [
                        {"property_path": property_path(f.path), "reason": f"[{f.rule}] {f.message}"}
                        for f in inner.findings
                    ]
                elif isinstance(inner, ClusterInputError):
                    errors = [{"property_path": property_path(p.key), "reason": p.message} for p in inner.problems]
                else:
                    raise
                raise InputPropertiesError(str(inner), errors) from None

        def resource_types(self) -> list[str]:
            """`planner:index:<Component>` for each hosted component, in schema order."""
            return [f"{NAME}:index:{c.__name__}" for c in hosted()]

    return PlannerComponentProvider


def property_path(path: Any) -> str:
    """A finding's key path or a problem's key as the component's input property path
    (`node_groups[0].capacity_reservation_id` -> `nodeGroups[0].capacityReservationId`)."""
    import re

    parts = (
        path.split(".") if isinstance(path, str) else [str(k) for k in path if k not in ("config", "planner:cluster")]
    )
    out = ""
    for part in parts:
        if part.isdigit():
            out += f"[{part}]"
            continue
        head, _, rest = part.partition("[")
        camel = re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), head)
        out += ("." if out else "") + camel + (f"[{rest}" if rest else "")
    return out
