"""The JSON Schema of a stack file, built from the parser's own field tables.

Editors (the YAML language server in VS Code, JetBrains, Neovim) complete and check
`planner:cluster` with it. It is generated from `planner.core.input.stack_files.SCHEMA`, the tables the
parser reads every key through, so a key added to the parser is in the schema too; the
shipped copy (`planner/data/schema/stack.schema.json`) is checked against a fresh one by
the tests. The schema is the editor's view: checks that span several keys (an AZ inside
the region, `count` or `ultraservers`, a value written as a string) stay the parser's,
and `planner plan` remains the judge.
"""

from __future__ import annotations

import json
import os
from typing import Any

from planner.core.input import stack_files as parse
from planner.core.input.stack_files import SCHEMA
from planner.core.reading.fields import NUMBER, REGION, Field, Table

SCHEMA_ID = "https://planner.invalid/schema/stack.schema.json"  # an identifier, not fetched
SHIPPED = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "data", "schema", "stack.schema.json"
)

# Pulumi writes config values set on the command line as strings (`pulumi config set
# planner:cluster.schedule.hours 336`), and the parser accepts them: so do these.
_NUMERIC_STRING = {"type": "string", "pattern": r"^\s*" + NUMBER.pattern.strip("^$") + r"\s*$"}
_BOOLEAN_STRING = {"type": "string", "pattern": "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$"}


def _value(f: Field, instance_types: list[str]) -> dict[str, Any]:
    """The JSON Schema of one field's value."""
    if f.kind == "string":
        return {"type": "string", "minLength": 1, "pattern": r"\S"}
    if f.kind == "boolean":
        return {"anyOf": [{"type": "boolean"}, _BOOLEAN_STRING]}
    if f.kind == "positive_int":
        return {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": 10**9 if f.maximum is None else int(f.maximum)},
                _NUMERIC_STRING,
            ]
        }
    if f.kind == "positive_number":
        top = 1e30 if f.maximum is None else f.maximum
        low: dict[str, float] = {"exclusiveMinimum": 0} if f.minimum is None else {"minimum": f.minimum}
        return {"anyOf": [{"type": "number", **low, "maximum": top}, _NUMERIC_STRING]}
    if f.kind == "choice":
        return {"type": "string", "enum": list(f.options)}
    if f.kind == "pattern":
        assert f.pattern is not None
        one = {"type": "string", "pattern": f.pattern.pattern}
        if f.many:  # one value, or a non-empty list of distinct ones
            return {"anyOf": [one, {"type": "array", "items": one, "minItems": 1, "uniqueItems": True}]}
        return one
    if f.kind == "mapping":
        return {"$ref": f"#/definitions/{f.of}"}
    if f.kind == "list":
        out: dict[str, Any] = {"type": "array", "items": {"$ref": f"#/definitions/{f.of}"}}
        if f.of == "node_group":
            out["minItems"] = 1
        return out
    raise ValueError(f"no JSON Schema for field kind {f.kind!r}")


def _table(name: str, t: Table, instance_types: list[str]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for key, f in t.fields.items():
        prop = {"description": f.doc, **_value(f, instance_types)}
        if f.default is not None:
            prop["default"] = f.default
        if name == "node_group" and key == "instance_type":
            # completion from every type AWS lists; unknown types are the parser's error too
            prop = {"description": f.doc, "type": "string", "enum": instance_types}
        if name == "workload" and key == "model":
            # completion from the presets; any other value is a config.json path (the parser reads it)
            from planner.core.catalogue.model_configs import presets

            prop = {
                "description": f.doc,
                "type": "string",
                "anyOf": [{"enum": sorted(presets())}, {"pattern": "[.]json$"}],
            }
        if name == "cluster":  # which keys apply where: a program's resources declare the topology
            prop["description"] += (
                " Also in a Pulumi program's stack config (planning keys only)."
                if key in parse.PLANNING_KEYS
                else " Stack files only: a program's resources declare it (a planner:cluster without such "
                "keys is a program's config)."
            )
        props[key] = prop
    out: dict[str, Any] = {"type": "object", "description": t.doc, "properties": props, "additionalProperties": False}
    if t.required:
        out["required"] = list(t.required)
    if name == "node_group":
        # `count` (instances) or `ultraservers`, not both
        out["oneOf"] = [{"required": ["count"]}, {"required": ["ultraservers"]}]
        # a launch targets reservations or a resource group of them, not both
        out["not"] = {"required": ["capacity_reservation_id", "capacity_reservation_resource_group_arn"]}
    if name == "workload":
        # the model's step predicted, or parameters at a flat MFU; the run's shape only with a model
        out["anyOf"] = [{"required": ["model"]}, {"required": ["parameters", "mfu"]}]
        out["dependencies"] = {"sequence_length": ["model"], "global_batch_tokens": ["model"]}
    if name == "lustre":
        # an Intelligent-Tiering file system is sized by its throughput capacity and read cache; an SSD one (the
        # default) by its storage capacity and per-unit throughput, which it requires
        tiering_only = ["throughput_capacity_mbps", "read_cache_sizing_mode", "read_cache_size_gib"]
        ssd_only = ["storage_capacity_gib", "per_unit_storage_throughput"]
        out["if"] = {"properties": {"storage_type": {"const": "INTELLIGENT_TIERING"}}, "required": ["storage_type"]}
        out["then"] = {"not": {"anyOf": [{"required": [k]} for k in ssd_only]}}
        out["else"] = {
            "required": ["storage_capacity_gib"],
            "not": {"anyOf": [{"required": [k]} for k in tiering_only]},
        }
    if name == "budget":
        out["minProperties"] = 1
    return out


def _program_config(cluster: dict[str, Any]) -> dict[str, Any]:
    """A Pulumi program's `planner:cluster`: the planning keys alone, as the cluster's table gives them."""
    return {
        "type": "object",
        "description": "A Pulumi program's planning keys (planner plans the cluster its resources declare): "
        f"{', '.join(parse.PLANNING_KEYS)}.",
        "properties": {k: cluster["properties"][k] for k in parse.PLANNING_KEYS},
        "additionalProperties": False,
    }


# A `planner:cluster` with any topology key is a stack file's whole cluster; without one, a program's
# planning keys (`planner.core.input.stack_files.config_kind`, the test every entry point uses).
_WHOLE_CLUSTER = {"anyOf": [{"required": [k]} for k in parse.TOPOLOGY_KEYS]}


def build() -> dict[str, Any]:
    """The stack-file schema (JSON Schema draft-07, which every YAML language server reads): a whole
    cluster (a stack file, with aws:region), or a program's planning keys."""
    from planner.core.catalogue import instance_types as catalogue

    types = list(catalogue.load().all_names())  # every type AWS lists: the curated and the generated table's
    definitions = {name: _table(name, t, types) for name, t in SCHEMA.items()}
    definitions["program_config"] = _program_config(definitions["cluster"])
    top = {
        k: {"description": "Pulumi's own stack setting (not read by planner)."}
        for k in parse.STACK_FILE_KEYS
        if k != "config"
    }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "Pulumi stack file with a planner cluster, or a Pulumi program's planning keys (Pulumi.<stack>.yaml)",
        "description": "Generated by `planner schema` from planner's parser; `planner plan` checks what a schema cannot.",
        "type": "object",
        "required": ["config"],
        "additionalProperties": False,
        "properties": {
            **{k: top[k] for k in top},
            "config": {
                "type": "object",
                "description": "Stack configuration: aws:region and planner:cluster, besides other providers' keys.",
                "required": [parse.CLUSTER_KEY],
                "properties": {
                    parse.REGION_KEY: {
                        "type": "string",
                        "pattern": REGION.pattern,
                        "description": "The AWS region of the stack, such as us-east-2.",
                    },
                    parse.CLUSTER_KEY: {
                        "description": "The cluster: a whole one (a stack file: availability_zone, node_groups, "
                        "...), or, without topology keys, a Pulumi program's planning keys.",
                        "if": _WHOLE_CLUSTER,
                        "then": {"$ref": "#/definitions/cluster"},
                        "else": {"$ref": "#/definitions/program_config"},
                    },
                },
                # a stack file names its region; a program may set it on its provider instead
                "if": {"properties": {parse.CLUSTER_KEY: _WHOLE_CLUSTER}},
                "then": {"required": [parse.REGION_KEY]},
            },
        },
        "definitions": definitions,
    }


def render() -> str:
    """The schema as the shipped file holds it: sorted keys, two-space indent, final newline."""
    return json.dumps(build(), indent=2, sort_keys=True) + "\n"
