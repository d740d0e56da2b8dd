"""`planner schema`: the JSON Schema of a stack file, for editors and other validators."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of a stack file (Pulumi.<stack>.yaml) for editors",
        description="Print the JSON Schema of a Pulumi.<stack>.yaml file with a planner:cluster, "
        "generated from planner's parser. Point your editor's YAML language server at it.",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.core.input.json_schema import render
    from planner.core.reading.bounded_files import emit

    emit(render())
    return 0
