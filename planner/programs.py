"""Run a Pulumi program offline and collect the clusters its planner components declare.

`planner plan --program DIR --stack NAME` uses this: the program runs under Pulumi's mocks
(no Pulumi CLI, no provider plugins, no credentials), with the stack's config read from
DIR/Pulumi.yaml's `stackConfigDir`, and every cluster a planner component declared is
planned like a stack file. `planner.testing` runs programs the same way, against moto.
Imports pulumi, so only the commands that need it import this module, inside functions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import runpy
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi

from planner import yamlload
from planner.errors import InputError, Problem
from planner.model import Stack
from planner.yamlload import Lines

CONFIG_FILES = ("Pulumi.yaml", "Pulumi.yml")

# Where `planner plan --program` was started while it runs a program (which runs in the
# program's folder, as under Pulumi): stack file paths are shown relative to it.
_ORIGIN: str | None = None


@dataclass(frozen=True)
class Program:
    """A Pulumi project on disk: where its program and its stack config files are."""

    directory: str
    name: str
    main: str  # the file or folder Pulumi runs (absolute)
    config_dir: str

    def stack_file(self, stack: str) -> str | None:
        for ext in ("yaml", "yml"):
            path = os.path.join(self.config_dir, f"Pulumi.{stack}.{ext}")
            if os.path.isfile(path):
                return path
        return None

    def config(self, stack: str) -> dict[str, str]:
        """The stack's config as Pulumi hands it to a program: `ns:key` -> string (JSON for objects).

        A stack without a config file has no config, as with `pulumi`.
        """
        path = self.stack_file(stack)
        if path is None:
            return {}
        data = _read_yaml(path)
        config = data.get("config") if isinstance(data, dict) else None
        if config is None:
            return {}
        if not isinstance(config, dict):
            raise InputError([Problem(path, None, "config", "expected a mapping of config keys")])
        out: dict[str, str] = {}
        for key, value in config.items():
            full = str(key) if ":" in str(key) else f"{self.name}:{key}"
            out[full] = value if isinstance(value, str) else json.dumps(value)
        return out


def load(directory: str) -> Program:
    """Read DIR/Pulumi.yaml (`name`, `main`, `stackConfigDir`)."""
    if not os.path.isdir(directory):
        raise InputError([Problem(directory, None, "", "no such folder (expected a Pulumi project)")])
    project_file = next((os.path.join(directory, f) for f in CONFIG_FILES if os.path.isfile(os.path.join(directory, f))), None)
    if project_file is None:
        raise InputError([Problem(directory, None, "", "no Pulumi.yaml in this folder (expected a Pulumi project)")])
    data = _read_yaml(project_file)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise InputError([Problem(project_file, None, "name", "expected the project name")])
    main = os.path.abspath(os.path.join(directory, str(data.get("main") or ".")))
    entry = os.path.join(main, "__main__.py") if os.path.isdir(main) else main
    if not os.path.isfile(entry):
        raise InputError([Problem(project_file, None, "main", f"no Python program at {entry}")])
    config_dir = os.path.abspath(os.path.join(directory, str(data.get("stackConfigDir") or ".")))
    return Program(directory, data["name"], main, config_dir)


def _read_yaml(path: str) -> Any:
    return yamlload.load_path(path)[0]


def stack_source(stack: str, directory: str = ".") -> tuple[str, Lines | None]:
    """The stack's config file and its line numbers, so findings raised inside a running
    program point at the same file and line as `planner plan` does; (`Pulumi.<stack>.yaml`,
    None) when the file cannot be found. The path is relative to the working directory
    (the project's, under Pulumi), or to where `planner plan --program` was started;
    absolute when the file lies outside it."""
    try:
        path = load(directory).stack_file(stack)
        if path is not None:
            return shown(path, _ORIGIN), yamlload.load_path(path)[1]
    except InputError:
        pass
    return f"Pulumi.{stack}.yaml", None


def shown(path: str, origin: str | None = None) -> str:
    """`path` as messages show it: relative to `origin` (default: the working directory),
    absolute when it lies outside."""
    rel = os.path.relpath(path, origin or os.getcwd())
    return os.path.abspath(path) if rel.startswith(os.pardir) else rel


class OfflineMocks(pulumi.runtime.Mocks):
    """Mocks that create nothing: each resource's outputs are its inputs, invokes return nothing."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
        return {}


def run(program: Program, stack: str, mocks: pulumi.runtime.Mocks) -> None:
    """Run `program` for `stack` under `mocks`, waiting for every registration to finish.

    Raises whatever the program raises; `ClusterInputError` keeps its problems.
    """
    global _ORIGIN
    directory = os.path.abspath(program.directory)
    old_cwd, old_path, old_origin = os.getcwd(), list(sys.path), _ORIGIN
    os.chdir(directory)  # as the Pulumi language host does
    sys.path.insert(0, directory)
    _ORIGIN = old_origin or old_cwd
    try:
        run_with_mocks(lambda: runpy.run_path(program.main, run_name="__main__"), mocks,
                       program.config(stack), project=program.name, stack=stack)
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        _ORIGIN = old_origin


def run_with_mocks(declare: Callable[[], Any], mocks: pulumi.runtime.Mocks, config: dict[str, str] | None = None,
                   project: str = "project", stack: str = "stack") -> None:
    """Call `declare` (code that creates Pulumi resources) under fresh mocks and config,
    then wait for every outstanding registration, as `pulumi up` would; re-raise its error."""
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    # Pulumi's mock monitor makes an event loop in each worker thread and never closes it;
    # left to the garbage collector, such a loop can print "Exception ignored in
    # BaseEventLoop.__del__" at exit. Every loop made while the program runs is closed here.
    previous = asyncio.get_event_loop_policy()
    policy = _ClosingPolicy()
    asyncio.set_event_loop_policy(policy)
    loop = policy.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=False)
        pulumi.runtime.set_all_config(dict(config or {}))
        _sync_await(run_pulumi_func(declare))
    finally:
        try:
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            policy.close_all()
            asyncio.set_event_loop_policy(previous)


class _ClosingPolicy(asyncio.DefaultEventLoopPolicy):
    """The default policy, remembering the loops it makes so they can all be closed."""

    def __init__(self) -> None:
        super().__init__()
        self.loops: list[asyncio.AbstractEventLoop] = []

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = super().new_event_loop()
        self.loops.append(loop)
        return loop

    def close_all(self) -> None:
        for loop in self.loops:
            if not loop.is_closed() and not loop.is_running():
                loop.close()


def declared_stacks(directory: str, stack: str) -> list[Stack]:
    """The clusters the program declares for `stack`, without deploying anything.

    Bad project, config or program -> InputError (one line each, the CLI exits 2).
    """
    from planner.components import ClusterInputError, registry

    program = load(directory)
    # what the program prints goes to stderr: stdout carries the report (JSON, SARIF)
    with registry.collecting() as found, contextlib.redirect_stdout(sys.stderr):
        try:
            run(program, stack, OfflineMocks())
        except ClusterInputError as exc:
            raise InputError(exc.problems) from None
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of the user's program is reported on one line
            hint = "" if program.stack_file(stack) else \
                f" (there is no Pulumi.{stack}.yaml in {shown(program.config_dir)}: is the stack name right?)"
            raise InputError([Problem(shown(program.main), None, "", f"the program failed: {_one_line(exc)}{hint}")]) from None
        stacks = list(found)
    if not stacks:
        raise InputError([Problem(shown(program.main), None, "", f"stack {stack}: the program declared no planner cluster component")])
    return stacks


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, pulumi.RunError) else text


def stacks_for_cli(directory: str | None, stack: str | None, paths: list[str]) -> list[Stack]:
    """`planner plan --program DIR --stack NAME`: both are needed, and no stack file paths."""
    if not directory or not stack:
        raise InputError([Problem("planner plan", None, "--program" if not directory else "--stack",
                                  "--program DIR and --stack NAME go together")])
    if paths:
        raise InputError([Problem("planner plan", None, "PATH", "give stack files or --program, not both")])
    return declared_stacks(directory, stack)
