"""The shape of a `Construct` request's inputs, checked against the package schema first.

Pulumi's component provider maps inputs to the component's arguments and converts numbers,
but what it cannot convert surfaces as a Python exception with its stack (`int(inf)`), a
misleading line (a string where an object belongs reads as "missing required input"), or
an empty message. A program in another language, or a hand-written YAML one, sends
whatever it likes; so planner checks every input against the inferred schema (types,
finite numbers, whole integers, known component type) before the SDK sees it, and answers
with its own one-line messages, each naming the input property (camelCase, as written in
the program).
"""

from __future__ import annotations

import math
from typing import Any


def problems(provider: Any, component: str, inputs: Any) -> list[tuple[str, str]]:
    """(property path, what is wrong) for every input of `component` that its schema refuses;
    [] when the schema is not at hand (the SDK then checks as before)."""
    definition = getattr(provider, "_component_defs", {}).get(component)
    if definition is None:
        return []
    out: list[tuple[str, str]] = []
    _properties(provider, inputs, definition.inputs, "", out)
    return out


def _properties(provider: Any, value: Any, properties: dict[str, Any], path: str, out: list[tuple[str, str]]) -> None:
    if not isinstance(value, dict):
        return
    for name, prop in properties.items():
        if name in value:
            _check(provider, value[name], prop, f"{path}.{name}" if path else name, out)


def _check(provider: Any, value: Any, prop: Any, path: str, out: list[tuple[str, str]]) -> None:
    from pulumi import Output

    from planner.core.reading.fields import kind

    if value is None or isinstance(value, Output):  # absent (the SDK checks required inputs), or unknown in a preview
        return
    if prop.ref:
        type_def = provider.get_type_definition(prop)
        if (
            type_def is None or type_def.enum
        ):  # an asset, an archive, a resource reference; an enum (the component checks it)
            return
        if not isinstance(value, dict):
            out.append((path, f"expected an object ({type_def.name}), got {kind(value)}"))
            return
        _properties(provider, value, type_def.properties, path, out)
        return
    kind_name = prop.type.value if prop.type is not None else None
    if kind_name == "array":
        if not isinstance(value, list):
            out.append((path, f"expected a list, got {kind(value)}"))
            return
        for i, item in enumerate(value):
            if prop.items is not None:
                _check(provider, item, prop.items, f"{path}[{i}]", out)
        return
    if kind_name == "object":
        if not isinstance(value, dict):
            out.append((path, f"expected an object, got {kind(value)}"))
        elif prop.additional_properties is not None:
            for key, item in value.items():
                _check(provider, item, prop.additional_properties, f"{path}.{key}", out)
        return
    if kind_name == "string" and not isinstance(value, str):
        out.append((path, f"expected a string, got {kind(value)}"))
    elif kind_name == "boolean" and not isinstance(value, bool):
        out.append((path, f"expected true or false, got {kind(value)}"))
    elif kind_name in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            out.append((path, f"expected a {'whole ' if kind_name == 'integer' else ''}number, got {kind(value)}"))
        elif not math.isfinite(value):
            out.append((path, f"expected a finite number, got {kind(value)}"))
        elif kind_name == "integer" and not float(value).is_integer():
            out.append((path, f"expected a whole number, got {kind(value)}"))
