"""The box `planner plan --program` runs a user's program in: what it may use, see and print.

A Pulumi program is code from the repository, on a pull request perhaps a fork's. It runs
with the rights of whoever runs planner (docs/security.md), but planner bounds what it can
do to planner's own run:

- it runs in a session and process group of its own, and the whole group is killed when
  the program's process exits, on `--program-timeout` and when planner stops, so no
  background child outlives the run or holds its pipe open; on Linux so is every process
  it started that left the group (`setsid`, a double fork: `kill_everything`), and the
  run ends with planner even when planner is killed with SIGKILL (the program's process
  by its death signal, `die_with_parent`; the rest by `planner.runtime.watchdog`);
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
import secrets
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from msgspec import Struct

OUTPUT_LIMIT_BYTES = 1024 * 1024  # what the program prints, shown; the rest is counted
LINE_LIMIT_BYTES = 8 * 1024  # a longer line is shown in pieces of this size
DRAIN_SECONDS = 2.0  # after the program's process exits, how long its last output may take to arrive


class Limit(Struct, frozen=True):
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


class Outcome(Struct):
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


# Set in the program's environment, a new value each run: what `kill_everything` finds the
# run's processes by once they have left its process group.
RUN_MARKER = "PLANNER_PROGRAM_RUN"
_KILL_ROUNDS = 50  # scans for processes started while the last ones were being killed; RLIMIT_NPROC bounds them
_LINUX = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent: int) -> None:
    """In the program's process, before anything else runs: have Linux kill it (SIGKILL) when
    planner dies, however planner dies (`PR_SET_PDEATHSIG`, prctl(2)); elsewhere nothing.

    Without it a SIGKILLed planner (an out-of-memory kill, a CI runner's hard stop) left the
    program running with nobody to stop it. Set here, at the start of the child, rather than
    in a `preexec_fn`, which the subprocess documentation calls unsafe in a process with
    threads (planner may have some). prctl(2)'s caveats, and why they hold here: the signal
    fires when the parent *thread* exits, and `run` waits for the program in the thread that
    started it, so that thread outlives the program; if planner died before the signal was
    set, the process has already been handed to another parent, so it checks its parent is
    still `parent` and ends if not. The death signal is not inherited by the processes the
    program starts: those `kill_everything` stops, run by planner or by its watchdog.
    """
    if not _LINUX:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    zero = ctypes.c_ulong(0)
    libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), zero, zero, zero)
    if os.getppid() != parent:  # planner is already gone
        os._exit(1)


_PR_SET_DUMPABLE = 4


def non_dumpable() -> None:
    """Make this process non-dumpable (prctl(2) PR_SET_DUMPABLE 0): its /proc files (`environ`,
    `mem`, `fd`) then belong to root and no process of the same user can read them or attach to
    it, which is what stops a program outside the namespace jail from reading planner's
    environment. Linux only; elsewhere nothing."""
    if not _LINUX:
        return
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, ctypes.c_ulong(0), 0, 0, 0)


class _Task(Struct, frozen=True):
    """One process as /proc/PID/stat shows it: its parent, process group, session, state and
    start time (clock ticks after boot: with the pid, what tells one process from a later
    one given the same pid)."""

    pid: int
    ppid: int
    pgrp: int
    session: int
    state: str
    start: int


def _task(pid: int) -> _Task | None:
    """/proc/PID/stat read; None if the process is gone. The name (in parentheses) may hold
    spaces and parentheses itself: the fields are read after its last `)`."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        state = fields[0].decode("ascii", "replace")
        return _Task(pid, int(fields[1]), int(fields[2]), int(fields[3]), state, int(fields[19]))
    except (OSError, IndexError, ValueError):
        return None


def _carries(pid: int, marker: bytes) -> bool:
    """Whether process `pid` started with `marker` (`RUN_MARKER=value`) in its environment."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return marker in fh.read().split(b"\0")
    except OSError:  # gone, or not ours to read
        return False


def _programs_tasks(child: int, marker: bytes) -> list[_Task]:
    """The live processes of this user that belong to the run of `child` (the program's process).

    A process belongs to the run if its environment carries the run's marker, if it is in
    the child's process group or session, or if its parent belongs to the run. The marker
    is what finds a process that left the group (`setsid`) and whose parent has exited (a
    double fork: it is then a child of init or of a subreaper): its parent chain no longer
    leads to the program, but the environment it was started with is the program's, since
    a process inherits its parent's environment across fork and exec. Group, session and
    parent catch a process started with an emptied environment while it stays in the group
    or its parent still lives. (One that empties its environment, leaves the session and
    loses its parent is not found: only a cgroup or a PID namespace would hold it.)
    """
    uid, me = os.getuid(), os.getpid()
    tasks: dict[int, _Task] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid != uid:
                continue
        except OSError:
            continue
        task = _task(int(name))
        if task is not None and task.state not in ("Z", "X"):  # a zombie is dead already
            tasks[task.pid] = task
    own = {
        t.pid
        for t in tasks.values()
        if t.pid == child or t.pgrp == child or t.session == child or _carries(t.pid, marker)
    }
    grew = True
    while grew:  # the children of the run's processes, and theirs
        more = {t.pid for t in tasks.values() if t.ppid in own and t.pid not in own}
        own |= more
        grew = bool(more)
    return [tasks[pid] for pid in sorted(own)]


def kill_everything(child: int, marker: str) -> None:
    """Kill the program's process `child`, its process group and, on Linux, every process
    of the run that left the group (`_programs_tasks`); elsewhere the group only.

    Called before `child` is reaped, so its pid (its group's and session's id) is not reused
    meanwhile. Each process is signalled through a pidfd opened after it was found and
    checked once more, so a pid that was freed and reused in between is not hit. Processes
    started while others are killed are found by the next scan: it stops when one finds none.
    """
    _kill_group(child)
    if not _LINUX:
        return
    entry = f"{RUN_MARKER}={marker}".encode()
    for _ in range(_KILL_ROUNDS):
        found = [t for t in _programs_tasks(child, entry) if t.pid != child]
        if not found:
            return
        for task in found:
            _kill_task(task)


def _kill_task(task: _Task) -> None:
    """SIGKILL `task`'s process if it is still the one that was found (same start time)."""
    try:
        fd: int | None = os.pidfd_open(task.pid)
    except OSError:  # gone already (or pidfds unsupported: then by pid, after the same check)
        fd = None
    try:
        now = _task(task.pid)
        if now is None or now.start != task.start:
            return
        if fd is not None:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        else:
            os.kill(task.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        if fd is not None:
            os.close(fd)


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
    process group, and on Linux every process it started (`kill_everything`), when it
    exits, at `timeout` (seconds, None: none) or when planner stops. The child is to call
    `die_with_parent` with planner's pid first thing.
    """
    printer = _Printer(show)
    non_dumpable()  # before the program starts: its /proc files closed to it, jailed or not
    marker = secrets.token_hex(16)
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=dict(env) | {RUN_MARKER: marker},
        start_new_session=True,
    )
    watchdog = _watchdog(proc.pid, marker, env)
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
            kill_everything(proc.pid, marker)
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
            kill_everything(proc.pid, marker)
            proc.kill()
            proc.wait()
        proc.stdout.close()
        if watchdog is not None:
            watchdog.stop()
    if signum is not None:  # the group is gone: now stop as the signal asked (handlers restored)
        os.kill(os.getpid(), signum)
        raise KeyboardInterrupt
    printer.close()
    return Outcome(returncode, printer.hidden)


class _Watchdog(Struct):
    """A running `planner.runtime.watchdog` and the write end of its pipe, which only planner holds."""

    proc: subprocess.Popen[bytes]
    pipe: int

    def stop(self) -> None:
        """The run is over: kill it before it could see the pipe close (nothing is left to stop)."""
        self.proc.kill()
        self.proc.wait()
        os.close(self.pipe)


def _watchdog(child: int, marker: str, env: Mapping[str, str]) -> _Watchdog | None:
    """On Linux, `planner.runtime.watchdog` for the run of `child`, which kills the run if
    planner dies (SIGKILL included); None elsewhere, or if it cannot start (the run goes on:
    the program's death signal and planner's own kill remain).

    It reads a pipe made here, after the program started, whose write end is not inheritable:
    no process of the program holds it, so it closes exactly when planner's process ends. It
    runs in a session of its own, so a signal to planner's process group does not end it too.
    """
    if not _LINUX:
        return None
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "planner.runtime.watchdog", str(child), marker],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(env),
            start_new_session=True,
        )
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return _Watchdog(proc, write_end)


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
