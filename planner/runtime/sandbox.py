"""The box `planner plan --program` runs a user's program in: what it may use, see and print.

A Pulumi program is code from the repository, on a pull request perhaps a fork's. It runs
with the rights of whoever runs planner (docs/security.md), but planner bounds what it can
do to planner's own run:

- it runs in a session and process group of its own, and the whole group is killed when
  the program's process exits, on `--program-timeout` and when planner stops, so no
  background child outlives the run or holds its pipe open;
- what it prints is streamed, each line shown as planner shows any line (`error_line`:
  one line, control characters escaped, never starting with `::`), the first
  `OUTPUT_LIMIT_BYTES` of it, the rest counted, never held in memory;
- its memory, open files and processes are bounded (`LIMITS`, resource limits set in the
  child before the program starts);
- its environment has no credentials the mocks never need (`scrubbed_env`).

No pulumi import: this is plain process handling, used by `planner.runtime.offline_run`.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

OUTPUT_LIMIT_BYTES = 1024 * 1024  # what the program prints, shown; the rest is counted
LINE_LIMIT_BYTES = 8 * 1024  # a longer line is shown in pieces of this size
DRAIN_SECONDS = 2.0  # after the program's process exits, how long its last output may take to arrive


@dataclass(frozen=True)
class Limit:
    """One resource limit of the program's process: the `resource` module's name, its value, how it reads."""

    name: str
    value: int
    what: str


GIB = 1024**3
# Generous for a Pulumi program under mocks (pulumi, pulumi_aws, grpc: about 1 GiB of address space),
# small enough that a runaway program fails alone instead of taking the machine.
LIMITS = (
    Limit("RLIMIT_AS", 8 * GIB, "8 GiB of address space"),
    Limit("RLIMIT_NOFILE", 1024, "1,024 open files"),
    Limit("RLIMIT_NPROC", 512, "512 processes and threads beyond those the user already runs"),
    Limit("RLIMIT_CORE", 0, "no core dumps"),
)

# Environment variables the program never sees: credentials, whatever else planner was given.
# Under mocks a program needs no AWS, GitHub, Actions or Pulumi Cloud credentials.
_DROP_EXACT = frozenset(
    {
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "PULUMI_ACCESS_TOKEN",
        "PULUMI_CONFIG_PASSPHRASE",
        "PULUMI_CONFIG_PASSPHRASE_FILE",
        "SSH_AUTH_SOCK",
    }
)
_KEEP_AWS = frozenset({"AWS_REGION", "AWS_DEFAULT_REGION"})  # where the program is to declare its resources
_DROP_PREFIX = ("AWS_", "ACTIONS_")
_DROP_WORDS = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|API_?KEY|PRIVATE_?KEY|AUTH", re.I)
# What the child is given instead: no AWS SDK in the program finds credentials or asks the
# instance metadata service for them.
_SET = {"AWS_EC2_METADATA_DISABLED": "true", "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_CONFIG_FILE": os.devnull}


def dropped(name: str) -> bool:
    """Whether the program's environment leaves out variable `name` (docs/security.md lists the rule)."""
    upper = name.upper()
    if upper in _KEEP_AWS:
        return False
    return upper in _DROP_EXACT or upper.startswith(_DROP_PREFIX) or bool(_DROP_WORDS.search(upper))


def scrubbed_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without credentials (`dropped`), with the AWS SDKs pointed at no credentials."""
    return {k: v for k, v in env.items() if not dropped(k)} | _SET


def _user_tasks() -> int:
    """How many processes and threads the current user runs (RLIMIT_NPROC counts them all); 0 if unknown."""
    uid, count = os.getuid(), 0
    try:
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid == uid:
                        count += len(os.listdir(f"/proc/{entry.name}/task"))
                except OSError:
                    continue
    except OSError:
        return 0
    return count


def limits_for_child() -> dict[str, tuple[int, int]]:
    """The resource limits to set in the program's process: name -> (soft, hard), never above
    the hard limit planner itself has. RLIMIT_NPROC counts every task of the user, so it is
    what the user runs now plus the allowance."""
    import resource

    out: dict[str, tuple[int, int]] = {}
    for limit in LIMITS:
        number = getattr(resource, limit.name, None)
        if number is None:  # not on this platform
            continue
        value = limit.value + (_user_tasks() if limit.name == "RLIMIT_NPROC" else 0)
        _, hard = resource.getrlimit(number)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        out[limit.name] = (value, value)
    return out


def apply_limits(limits: Mapping[str, tuple[int, int]]) -> None:
    """In the child, before the program runs: set each limit (soft and hard, so the program cannot raise it)."""
    import resource

    for name, (soft, hard) in limits.items():
        try:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        except (ValueError, OSError):  # a limit this system will not lower: the others still hold
            pass


def limit_text(name: str) -> str:
    """How limit `name` reads in a message ("8 GiB of address space")."""
    return next(limit.what for limit in LIMITS if limit.name == name)


@dataclass
class Outcome:
    """How the program's process ended: its return code (None: stopped at the timeout) and
    how much of its output was not shown."""

    returncode: int | None
    hidden_bytes: int


class _Printer:
    """The program's output, line by line through `show`, up to `OUTPUT_LIMIT_BYTES`; the rest counted."""

    def __init__(self, show: Callable[[str], None], limit: int = OUTPUT_LIMIT_BYTES):
        self.show, self.left, self.hidden, self.pending = show, limit, 0, b""

    def feed(self, data: bytes) -> None:
        if self.left <= 0:
            self.hidden += len(data)
            return
        self.pending += data
        while self.pending and self.left > 0:
            cut = self.pending.find(b"\n", 0, LINE_LIMIT_BYTES + 1)
            if cut == -1:
                if len(self.pending) <= LINE_LIMIT_BYTES:
                    return  # the rest of the line has not come yet
                line, self.pending = self.pending[:LINE_LIMIT_BYTES], self.pending[LINE_LIMIT_BYTES:]
            else:
                line, self.pending = self.pending[: cut + 1], self.pending[cut + 1 :]
            self._line(line)
        if self.left <= 0 and self.pending:
            self.hidden += len(self.pending)
            self.pending = b""

    def _line(self, line: bytes) -> None:
        """Show `line` (its line feed included, if it has one) as far as the limit allows; count the rest."""
        if len(line) > self.left:
            self.hidden += len(line) - self.left
            line = line[: self.left]
        self.left -= len(line)
        self.show(line.removesuffix(b"\n").decode("utf-8", "replace"))

    def close(self) -> None:
        if self.pending:
            self._line(self.pending)
            self.pending = b""


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # already gone
        pass


class _Stopped(Exception):
    """planner was asked to stop (SIGTERM, SIGHUP) while the program ran."""


@contextmanager
def _stop_on_signals() -> Iterator[None]:
    """While the program runs, SIGTERM and SIGHUP unwind planner (so the program's group is
    killed on the way out) instead of ending it on the spot; only in the main thread."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise _Stopped(signum)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run(argv: list[str], env: Mapping[str, str], timeout: float | None, show: Callable[[str], None]) -> Outcome:
    """Run `argv` (the program's child process) in its own session with the program's
    environment; stream its standard output and error through `show`; kill its whole
    process group when it exits, at `timeout` (seconds, None: none) or when planner stops.
    """
    printer = _Printer(show)
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=dict(env),
        start_new_session=True,
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    deadline = None if timeout is None else time.monotonic() + timeout
    returncode: int | None = None
    try:
        with _stop_on_signals(), selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            eof = False
            while not eof:
                if _exited(proc):
                    break
                wait = 0.2 if deadline is None else min(0.2, deadline - time.monotonic())
                if wait <= 0:
                    break  # the timeout: returncode stays None
                if sel.select(wait):
                    eof = _read(fd, printer)
            while eof and not _exited(proc):  # its output closed: wait for the exit itself
                if deadline is not None and time.monotonic() >= deadline:
                    break
                time.sleep(0.05)
            # the program's process has exited (not yet reaped, so its process group id is
            # not reused) or is out of time: everything it started goes with it, and the pipe
            # closes once what they wrote is read
            exited = _exited(proc)  # before the kill, which would make a late process look exited
            _kill_group(proc.pid)
            if exited:
                returncode = proc.wait()
            else:
                proc.kill()
                proc.wait()
            end = time.monotonic() + DRAIN_SECONDS
            while not eof and time.monotonic() < end:
                if sel.select(max(end - time.monotonic(), 0.01)):
                    eof = _read(fd, printer)
    except _Stopped as stop:
        signum = stop.args[0]
    else:
        signum = None
    finally:
        if proc.returncode is None:
            _kill_group(proc.pid)
            proc.kill()
            proc.wait()
        proc.stdout.close()
    if signum is not None:  # the group is gone: now stop as the signal asked (handlers restored)
        os.kill(os.getpid(), signum)
        raise KeyboardInterrupt
    printer.close()
    return Outcome(returncode, printer.hidden)


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the process has exited, without reaping it where the platform allows (so
    its pid, the id of its process group, stays taken until the group is killed)."""
    if proc.returncode is not None:
        return True
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    return proc.poll() is not None


def _read(fd: int, printer: _Printer) -> bool:
    """Read what is there into `printer`; True at end of file."""
    try:
        data = os.read(fd, 65536)
    except BlockingIOError:
        return False
    if not data:
        return True
    printer.feed(data)
    return False
