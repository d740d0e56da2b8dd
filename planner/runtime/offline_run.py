"""Run a Pulumi program offline and collect the clusters its planner components declare.

`planner plan --program DIR --stack NAME` uses this: the program runs under Pulumi's mocks
(no Pulumi CLI, no provider plugins, no credentials), with the stack's config read from
DIR/Pulumi.yaml's `stackConfigDir`, and every cluster a planner component declared is
planned like a stack file. `planner.testing` runs programs the same way, against moto.
Imports pulumi, so only the commands that need it import this module, inside functions.
"""

from __future__ import annotations

import asyncio
import json
import os
import runpy
import sys
from collections.abc import Callable
from functools import cache
from types import FrameType
from typing import Any, cast

import pulumi
from msgspec import Struct

import planner
from planner.core.model.cluster import Stack
from planner.core.reading import yaml_lines as yamlload
from planner.core.reading.problems import InputError, Problem
from planner.core.reading.yaml_lines import Lines
from planner.runtime.recording_mocks import EchoMocks

CONFIG_FILES = ("Pulumi.yaml", "Pulumi.yml")

# Where `planner plan --program` was started while it runs a program (which runs in the
# program's folder, as under Pulumi): stack file paths are shown relative to it.
_ORIGIN: str | None = None
# the folder of the planner package (its parent goes on the child's PYTHONPATH; its frames are planner's own)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(planner.__file__))


class Program(Struct, frozen=True):
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
    project_file = next(
        (os.path.join(directory, f) for f in CONFIG_FILES if os.path.isfile(os.path.join(directory, f))), None
    )
    if project_file is None:
        raise InputError([Problem(directory, None, "", "no Pulumi.yaml in this folder (expected a Pulumi project)")])
    data, lines = yamlload.load_path(project_file)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise InputError([Problem(project_file, None, "name", "expected the project name")])
    _check_runtime(project_file, data.get("runtime"), yamlload.line_of(lines, ("runtime",)))
    main = os.path.abspath(os.path.join(directory, str(data.get("main") or ".")))
    entry = os.path.join(main, "__main__.py") if os.path.isdir(main) else main
    if not os.path.isfile(entry):
        raise InputError([Problem(project_file, None, "main", f"no Python program at {entry}")])
    config_dir = os.path.abspath(os.path.join(directory, str(data.get("stackConfigDir") or ".")))
    return Program(directory, data["name"], main, config_dir)


RUNTIMES = ("python",)  # what `--program` can run: it runs the program in a Python process of its own


def _check_runtime(project_file: str, runtime: Any, line: int | None) -> None:
    """`runtime: python` (or `runtime: {name: python, ...}`), as Pulumi writes it; one line
    naming what `--program` can run for any other (a `nodejs` project's `index.js` is not Python)."""
    name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if name in RUNTIMES:
        return
    given = f"runtime {name}" if isinstance(name, str) and name.isprintable() and len(name) <= 24 else "this runtime"
    raise InputError(
        [
            Problem(
                project_file,
                line,
                "runtime",
                f"{given} cannot be planned with --program, which runs Python programs only "
                "(runtime: python); expected a Python Pulumi project",
            )
        ]
    )


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


class OfflineMocks(EchoMocks):
    """Mocks that create nothing: each resource's outputs are its inputs, invokes return nothing."""


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
        run_with_mocks(
            lambda: runpy.run_path(program.main, run_name="__main__"),
            mocks,
            program.config(stack),
            project=program.name,
            stack=stack,
        )
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        _ORIGIN = old_origin


def run_with_mocks(
    declare: Callable[[], Any],
    mocks: pulumi.runtime.Mocks,
    config: dict[str, str] | None = None,
    project: str = "project",
    stack: str = "stack",
) -> None:
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
    from pulumi.runtime.settings import SETTINGS

    _forget_pending(SETTINGS)  # what an earlier, failed run left behind is not this run's
    try:
        pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=False)
        pulumi.runtime.set_all_config(dict(config or {}))
        _sync_await(run_pulumi_func(declare))
    finally:
        try:
            # a failed registration leaves outputs waiting on it: cancel them on this run's loops,
            # so no later run awaits a future of a closed loop
            for pending_loop in policy.loops:
                if not pending_loop.is_closed() and not pending_loop.is_running():
                    tasks = [t for t in asyncio.all_tasks(pending_loop) if not t.done()]
                    for t in tasks:
                        t.cancel()
                    if tasks:
                        pending_loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_default_executor())
            _retrieve_failures(policy.loops)
        finally:
            _forget_pending(SETTINGS)
            policy.close_all()
            asyncio.set_event_loop_policy(previous)


def _retrieve_failures(loops: list[asyncio.AbstractEventLoop]) -> None:
    """Mark as seen the errors that a failed registration left in this run's futures.

    The run already re-raises the first error; the outputs that waited on it fail with the
    same error, and asyncio would print each as "Future exception was never retrieved" when
    it is collected, long after the run, in whatever output follows (a test report, say).
    """
    import gc

    owned = {id(lp) for lp in loops}
    for obj in gc.get_objects():
        if isinstance(obj, asyncio.Future) and obj.done() and not obj.cancelled():
            try:
                if id(obj.get_loop()) in owned:
                    obj.exception()
            except Exception:  # noqa: BLE001 - a future of another kind: leave it
                pass


def _forget_pending(settings: Any) -> None:
    """Drop Pulumi's record of outstanding RPCs and outputs (as `pulumi.runtime.test` does before a test)."""
    settings.rpc_manager.clear()
    with settings.lock:
        settings.outputs.clear()


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


PROGRAM_TIMEOUT_SECONDS = 300.0  # `plan --program`'s default: a program that does not finish is stopped


def declared_stacks(
    directory: str, stack: str, timeout: float | None = PROGRAM_TIMEOUT_SECONDS, sandbox: str = "auto"
) -> list[Stack]:
    """The clusters the program declares for `stack`, without deploying anything.

    The program runs in a child process (`planner.runtime.child_process`): what it prints, how it
    exits (`sys.exit`, `os._exit`, a signal) and what it raises stay there; the child
    sends back one JSON message in a file of its own. Clusters declared with planner's
    components come back as they are; every other AWS resource is read back into a
    cluster (`planner.readback.program_resources`), as the policy pack does.
    Bad project, config or program -> InputError (one line each, the CLI exits 2).
    """
    from planner.readback import program_resources as readback

    program = load(directory)
    message = _run_child(program, stack, timeout, sandbox)
    problems = message.get("problems")
    if problems:
        raise InputError(
            [Problem(str(p["file"]), p.get("line"), str(p.get("key") or ""), str(p["message"])) for p in problems]
        )
    try:
        from planner.runtime import model_json as wire

        stacks = [wire.decode_stack(s) for s in message["stacks"]]
        resources = message["resources"]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(
            [
                Problem(
                    shown(program.main),
                    None,
                    "",
                    f"the program's child process sent a malformed message ({type(exc).__name__})",
                )
            ]
        ) from None
    entry = os.path.join(program.main, "__main__.py") if os.path.isdir(program.main) else program.main
    # the stack config's planning keys (schedule, budget, ...) apply to the read-back; when planner
    # components declared the clusters, `planner:cluster` was theirs to read
    config_file = program.stack_file(stack)
    planning, unusable = None, None
    try:
        planning = None if stacks else readback.planning_config(config_file, shown(config_file) if config_file else "")
    except InputError as exc:  # reported once there is a read-back it would apply to
        unusable = exc
    read = readback.from_program(resources, stack, message.get("config") or {}, shown(entry), planning)
    if read is not None and unusable is not None:
        raise unusable
    if read is not None:
        stacks.append(read)
    if not stacks:
        raise InputError([Problem(shown(program.main), None, "", no_compute_message(stack))])
    return stacks


def no_compute_message(stack: str) -> str:
    """What a program that declares nothing to plan is told: every kind of compute the
    read-back understands, from its own list (`planner.readback.topology.COMPUTE_KINDS`)."""
    from planner.readback.topology import COMPUTE_KINDS

    kinds = ", ".join(COMPUTE_KINDS[:-1]) + f" or {COMPUTE_KINDS[-1]}"
    return (
        f"stack {stack}: the program declares no accelerated compute (no planner cluster component, "
        f"and no {kinds} with an accelerated instance type)"
    )


def _run_child(
    program: Program, stack: str, timeout: float | None = PROGRAM_TIMEOUT_SECONDS, sandbox: str = "auto"
) -> dict[str, Any]:
    """Run the program in `python -m planner.runtime.child_process`, in planner's sandbox
    (`planner.runtime.sandbox`: its own process group, streamed and capped output, resource limits,
    no credentials in its environment); its one JSON message, or InputError.

    `timeout` (seconds, None: none) bounds the whole run: a program that waits on something
    that never comes (a network call the mocks do not intercept, an input() prompt, a loop)
    must not hold a CI job until its own time limit; the child is killed and the run refused."""
    import tempfile

    from planner.core.reading.problems import error_line
    from planner.runtime import sandbox as box

    with tempfile.TemporaryDirectory(prefix="planner-program-") as tmp:
        result = os.path.join(tmp, "result.json")
        request = {
            "directory": os.path.abspath(program.directory),
            "stack": stack,
            "origin": os.getcwd(),
            "result": result,
            "limits": box.limits_for_child(),
            "parent": os.getpid(),  # the child dies with this process (`sandbox.die_with_parent`)
        }
        env = box.scrubbed_env(os.environ)
        # the child imports the planner that runs this command, wherever it is installed
        root = os.path.dirname(_PACKAGE_DIR)
        env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # nothing written into the program's folder
        argv = [sys.executable, "-m", "planner.runtime.child_process", json.dumps(request)]
        argv = _contained(argv, program, tmp, env, request, sandbox)
        # what the program prints goes to stderr, one line as planner prints any: stdout carries the report
        outcome = box.run(argv, env, timeout, lambda line: error_line(f"program: {line}"))
        if outcome.hidden_bytes:
            error_line(
                f"program: ... {outcome.hidden_bytes:,} more bytes of output not shown (planner shows the first "
                f"{box.OUTPUT_LIMIT_BYTES // 1024**2} MiB)"
            )
        if outcome.returncode is None:
            raise InputError(
                [
                    Problem(
                        shown(program.main),
                        None,
                        "--program-timeout",
                        f"the program did not finish within {timeout:g} s and was stopped; raise "
                        "--program-timeout if it is slow, or check what it waits for",
                    )
                ]
            )
        try:
            with open(result, encoding="utf-8") as fh:
                message = json.load(fh)
        except (OSError, ValueError):
            message = None
    if not isinstance(message, dict):
        code = outcome.returncode
        how = (
            f"exit status {code}"
            if code >= 0
            else f"signal {-code}; a program that goes over planner's "
            "limits for programs can end so, docs/security.md lists them"
        )
        raise InputError(
            [
                Problem(
                    shown(program.main),
                    None,
                    "",
                    f"the program ended its process ({how}) before planner could read what it declares",
                )
            ]
        )
    return message


def _contained(
    argv: list[str], program: Program, tmp: str, env: dict[str, str], request: dict[str, Any], mode: str
) -> list[str]:
    """`argv` inside the namespace jail (`planner.runtime.jail`) where the kernel allows and `mode`
    is not `off`; otherwise `argv` as it is, after one line saying the program runs with the process
    guard only (`required`: refused instead, exit 2). In the jail the program sees its folder,
    Python and planner read-only, and `tmp` (where it writes its result) writable."""
    from planner.runtime import jail

    if mode == "off":
        return argv
    why = jail.available()
    if why is not None:
        if mode == "required":
            raise InputError(
                [
                    Problem(
                        "<command line>",
                        None,
                        "--sandbox",
                        f"required, but this machine cannot make Linux namespaces ({why}); the program was not run",
                    )
                ]
            )
        _say_unjailed(why)
        return argv
    os.mkdir(os.path.join(tmp, "root"))
    request["parent"] = 0  # in its PID namespace the program's parent is the jail's init, not planner
    argv[-1] = json.dumps(request)
    ro = [
        os.path.abspath(program.directory),
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        _PACKAGE_DIR,
        *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != os.path.dirname(_PACKAGE_DIR)],
        *_site_paths(),
    ]
    env["HOME"] = "/tmp"
    spec = {"root": os.path.join(tmp, "root"), "ro": ro, "rw": [tmp], "cwd": os.getcwd()}
    return jail.command(spec, argv)


@cache
def _say_unjailed(why: str) -> None:
    """Once a run of planner (`diff --program` runs the program twice): the program is not jailed."""
    from planner.core.reading.problems import error_line

    error_line(f"no namespace sandbox here ({why}): the program runs with the process guard only")


def _site_paths() -> list[str]:
    """Folders the interpreter imports from (an editable install's source among them), but not the
    whole checkout that holds planner: only its package is needed, and the checkout has `.git`."""
    root = os.path.dirname(_PACKAGE_DIR)
    return [p for p in sys.path if p and os.path.isdir(p) and os.path.abspath(p) != root]


def collect(directory: str, stack: str, origin: str) -> dict[str, Any]:
    """In the child: run the program under mocks; the clusters its components declared, and
    every resource it registered (type, URN, outputs, the file and line that declared it)."""
    global _ORIGIN
    from planner.components import ClusterInputError
    from planner.runtime import declared_clusters as registry
    from planner.runtime import model_json as wire

    program = load(directory)
    mocks = ReadbackMocks()
    sources = _SourceRecorder(os.path.abspath(program.directory))
    # Stack-file paths are shown relative to `origin` while the program runs; restored after,
    # so a later run in the same process (tests, tools.doc_examples) is not shown relative to it.
    previous, _ORIGIN = _ORIGIN, origin
    with registry.collecting() as found, sources:
        try:
            run(program, stack, mocks)
        except ClusterInputError as exc:
            raise InputError(exc.problems) from None
        except InputError:
            raise
        except BaseException as exc:  # noqa: BLE001 - any failure of the user's program is reported on one line
            limit = _limit_reached(exc)
            if limit:
                raise InputError(
                    [
                        Problem(
                            shown(program.main, origin),
                            None,
                            "",
                            f"the program went over planner's limit of {limit} for a program "
                            f"({_one_line(exc)}); docs/security.md lists the limits",
                        )
                    ]
                ) from None
            hint = (
                ""
                if program.stack_file(stack)
                else f" (there is no Pulumi.{stack}.yaml in {shown(program.config_dir, origin)}: is the stack name right?)"
            )
            file, line = failed_at(exc, program)
            raise InputError(
                [Problem(shown(file, origin), line, "", f"the program failed: {_one_line(exc)}{hint}")]
            ) from None
        finally:
            _ORIGIN = previous
        stacks = [wire.encode(s) for s in found]
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.settings import get_monitor

    resources = []
    for reg in cast(MockMonitor, get_monitor()).get_registered_resources().values():  # set_mocks' monitor
        # urn:pulumi:STACK::PROJECT::QUALIFIED-TYPE::NAME: three separators; the name may hold `::`
        parts = reg.urn.split("::", 3)
        type_, name = parts[2].split("$")[-1], parts[3]
        src_file, src_line = sources.where(type_, name)
        resources.append(
            {
                "type": type_,
                "name": name,
                "urn": reg.urn.replace("::pulumi:pulumi:Stack$", "::", 1),
                "custom": mocks.custom.get((type_, name), False),
                "props": _jsonable(dict(reg.state or {})),
                "source": [shown(src_file, origin), src_line] if src_file else None,
            }
        )
    return {"stacks": stacks, "resources": resources, "config": program.config(stack)}


class ReadbackMocks(EchoMocks):
    """Mocks that create nothing and remember every registration, as the engine would show it.

    Outputs are the inputs plus what the provider fills in and other resources refer to: an
    id, a name when none was given (auto-naming, without its random suffix) and an ARN
    ending in the id, so references between resources resolve as in a deployed stack.
    Which registrations are custom is the family's bookkeeping (`custom`).
    """

    def __init__(self) -> None:
        super().__init__(provider_fields=True)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


class _SourceRecorder:
    """Remembers, for each resource the program constructs, the program's frame that did it.

    Findings then point at the line of the program that declared the resource at fault,
    so code scanning and annotations land on code. Frames inside the program's folder win;
    otherwise the first frame outside pulumi and planner.
    """

    def __init__(self, directory: str):
        self.directory = directory + os.sep
        self.sites: dict[tuple[str, str], tuple[str, int]] = {}
        self._original: Any = None
        skip = [os.path.dirname(pulumi.__file__)]
        try:
            import pulumi_aws

            skip.append(os.path.dirname(pulumi_aws.__file__))
        except ImportError:
            pass
        skip.append(_PACKAGE_DIR)  # planner's own frames, whichever folder they are in
        self._skip = tuple(p + os.sep for p in skip)

    def __enter__(self) -> _SourceRecorder:
        from pulumi import resource as _resource

        original = _resource.Resource.__init__
        recorder = self

        def init(res: Any, t: str, name: str, *args: Any, **kwargs: Any) -> None:
            recorder._record(t, name)
            original(res, t, name, *args, **kwargs)

        self._original = original
        _resource.Resource.__init__ = init  # type: ignore[method-assign, assignment]  # a wrapper taking the same arguments
        return self

    def __exit__(self, *exc: Any) -> None:
        from pulumi import resource as _resource

        _resource.Resource.__init__ = self._original  # type: ignore[method-assign]  # pulumi's own, put back

    def _record(self, t: str, name: str) -> None:
        if (t, name) in self.sites:
            return
        frame: FrameType | None = sys._getframe(2)
        fallback: tuple[str, int] | None = None
        while frame is not None:
            file = os.path.abspath(frame.f_code.co_filename)
            if file.startswith(self.directory):
                self.sites[(t, name)] = (file, frame.f_lineno)
                return
            if fallback is None and not file.startswith(self._skip) and not file.startswith("<"):
                fallback = (file, frame.f_lineno)
            frame = frame.f_back
        if fallback is not None:
            self.sites[(t, name)] = fallback

    def where(self, t: str, name: str) -> tuple[str | None, int | None]:
        return self.sites.get((t, name), (None, None))


def failed_at(exc: BaseException, program: Program) -> tuple[str, int | None]:
    """Where the program failed: the last frame of the traceback inside the program's folder
    (its own file and line, not pulumi's or planner's), else the program's entry file."""
    import traceback

    inside = os.path.abspath(program.directory) + os.sep
    entry = os.path.join(program.main, "__main__.py") if os.path.isdir(program.main) else program.main
    found: tuple[str, int | None] = (entry, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        path = os.path.abspath(frame.filename)
        if path.startswith(inside) and os.path.isfile(path):
            found = (path, frame.lineno)
    return found


def _limit_reached(exc: BaseException) -> str | None:
    """Which of the sandbox's resource limits (`planner.runtime.sandbox.LIMITS`) `exc` says the program
    reached, as it reads in a message; None for any other failure."""
    import errno

    from planner.runtime.sandbox import limit_text

    if isinstance(exc, MemoryError):
        return limit_text("RLIMIT_AS")
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        return limit_text("RLIMIT_NOFILE")
    if (isinstance(exc, OSError) and exc.errno == errno.EAGAIN) or (
        isinstance(exc, RuntimeError) and "can't start new thread" in str(exc)
    ):
        return limit_text("RLIMIT_NPROC")
    return None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, pulumi.RunError) else text


def stacks_for_cli(
    directory: str, stack: str, timeout: float | None = PROGRAM_TIMEOUT_SECONDS, sandbox: str = "auto"
) -> list[Stack]:
    """The stack `--program DIR --stack NAME` declares (the command checked that both are given,
    in its own name: `planner.commands.check_program_arguments`), read back from a run of the program."""
    program = load(directory)
    if program.stack_file(stack) is None:  # the program would run with no config: say so, not "declares no compute"
        raise InputError(
            [
                Problem(
                    shown(os.path.join(program.config_dir, f"Pulumi.{stack}.yaml")),
                    None,
                    "--stack",
                    f"stack file missing: no Pulumi.{stack}.yaml in the project's stack folder; "
                    "expected the stack's config (`pulumi stack init` and `pulumi config set` write it)",
                )
            ]
        )
    return declared_stacks(directory, stack, timeout, sandbox)
