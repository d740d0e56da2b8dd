"""`python -m bench.mocks STACK_FILE [--moto]`: run the Pulumi program under mocks, print what it registered.

Runs the program that `Pulumi.yaml` names, with STACK_FILE's config, through
`planner.runtime.offline_run` (the same runner `planner plan --program` and `planner.testing` use):
no Pulumi CLI, engine, credentials or network. By default under offline mocks that
count each registration (what the program and the Pulumi runtime cost); with `--moto`
under `planner.testing.MotoMocks`, which also creates each resource in a moto account
(what a test of the program costs). Prints one JSON line. The benchmark runs it in its
own process so that importing pulumi never weighs on the CLI figures.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec.structs
import pulumi

from planner.core.input import stack_files as parse
from planner.runtime import offline_run as programs

ROOT = Path(__file__).resolve().parent.parent


class CountingMocks(programs.OfflineMocks):
    """Offline mocks (outputs are the inputs) that remember each registration's type."""

    def __init__(self) -> None:
        super().__init__()
        self.registered: list[tuple[str, bool]] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.registered.append((args.typ, bool(args.custom)))
        return super().new_resource(args)


def program_for(stack_file: Path) -> programs.Program:
    """The project's program, reading stack config from the folder STACK_FILE is in."""
    return msgspec.structs.replace(programs.load(str(ROOT)), config_dir=str(stack_file.resolve().parent))


def run(stack_file: Path, moto: bool = False) -> dict[str, Any]:
    """Run the program for `stack_file`; what it registered, how long it took, or its error."""
    program = program_for(stack_file)
    stack = parse.stack_name(stack_file.name) or stack_file.stem
    counting = CountingMocks()
    moto_mocks = None
    error = None
    start = time.perf_counter()
    try:
        if moto:
            from moto import mock_aws

            from planner.testing import MotoMocks

            with mock_aws():
                moto_mocks = MotoMocks(program.config(stack).get("aws:region") or "us-east-1")
                programs.run(program, stack, moto_mocks)
        else:
            programs.run(program, stack, counting)
    except Exception as exc:  # noqa: BLE001 - reported, not hidden: the benchmark prints it
        error = _root_cause(exc)
    seconds = time.perf_counter() - start
    if moto_mocks is not None:
        registered = [(r.type, r.backend != "component") for r in moto_mocks.resources]
    else:
        registered = counting.registered
    return {
        "mocks": "moto" if moto else "offline",
        "program": str(Path(program.main).relative_to(ROOT)),
        "program_s": round(seconds, 4),
        "resources": len(registered),
        "custom_resources": sum(1 for _, custom in registered if custom),
        "component_resources": sum(1 for _, custom in registered if not custom),
        "by_type": dict(sorted(Counter(typ for typ, _ in registered).items())),
        "error": error,
    }


def _root_cause(exc: BaseException) -> str:
    """The exception Pulumi wrapped (`raise ... from`) around a mock's failure, on one short line."""
    seen = set()
    while exc.__cause__ is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc.__cause__
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:160]}"


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), moto="--moto" in sys.argv[2:]), sort_keys=True))
