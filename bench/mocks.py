"""`python -m bench.mocks STACK_FILE`: run the Pulumi program under mocks, print what it registered.

Runs the program that `Pulumi.yaml` names (as `pulumi up` would) with
`pulumi.runtime.set_mocks`, so no Pulumi CLI, engine, credentials or network are needed,
and prints one JSON line: the seconds the program took (pulumi already imported) and the
resources it registered, by type. The benchmark runs it in its own process so that
importing pulumi never weighs on the CLI figures.
"""

from __future__ import annotations

import json
import runpy
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pulumi
import yaml

from planner import parse, yamlload

ROOT = Path(__file__).resolve().parent.parent


class CountingMocks(pulumi.runtime.Mocks):
    """Registers every resource as created with its inputs as outputs, and counts them."""

    def __init__(self) -> None:
        self.registered: list[tuple[str, bool]] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.registered.append((args.typ, bool(args.custom)))
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
        return {}


def program_file(root: Path = ROOT) -> Path:
    """The program `Pulumi.yaml` names: `main` (a folder's `__main__.py`, or a file)."""
    project = yaml.safe_load((root / "Pulumi.yaml").read_text(encoding="utf-8"))
    main = root / project.get("main", ".")
    return main / "__main__.py" if main.is_dir() else main


def stack_config(stack_file: Path) -> dict[str, str]:
    """The stack file's config as Pulumi hands it to a program: structured values as JSON."""
    data, _ = yamlload.load(stack_file.read_bytes(), str(stack_file))
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in data["config"].items()}


def run(stack_file: Path) -> dict[str, Any]:
    """Run the program for `stack_file` under counting mocks; what it registered and how long it took."""
    mocks = CountingMocks()
    name = parse.stack_name(stack_file.name) or stack_file.stem
    pulumi.runtime.set_all_config(stack_config(stack_file))
    pulumi.runtime.set_mocks(mocks, project="planner", stack=name, preview=False)
    error = None

    @pulumi.runtime.test
    def program() -> None:
        runpy.run_path(str(program_file()), run_name="__main__")

    start = time.perf_counter()
    try:
        program()
    except Exception as exc:  # noqa: BLE001 - reported, not hidden: the benchmark prints it
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    seconds = time.perf_counter() - start
    by_type = Counter(typ for typ, _ in mocks.registered)
    return {
        "program": str(program_file().relative_to(ROOT)),
        "program_s": round(seconds, 4),
        "resources": len(mocks.registered),
        "custom_resources": sum(1 for _, custom in mocks.registered if custom),
        "component_resources": sum(1 for _, custom in mocks.registered if not custom),
        "by_type": dict(sorted(by_type.items())),
        "error": error,
    }


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1])), sort_keys=True))
