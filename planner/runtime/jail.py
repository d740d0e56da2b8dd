"""`python -m planner.runtime.jail SPEC -- ARGV...`: run ARGV in namespaces of its own (Linux).

A pull request's Pulumi program is hostile until shown otherwise. `planner.runtime.sandbox`
bounds it with a process group, resource limits and a scrubbed environment; on Linux, where
the kernel lets an unprivileged process make namespaces, the program also runs here, in new
user, PID, mount, network, IPC and UTS namespaces:

- **PID**: it sees only its own processes. planner, the watchdog and the runner are not there
  to read (`/proc/<pid>/environ`), stop (SIGSTOP) or kill; and its first process is the
  namespace's init, so when it ends, or planner kills the jail, the kernel ends every process
  of the namespace, whatever they did to themselves (`setsid`, a double fork, a new uid, an
  emptied environment).
- **mount**: a new root (a tmpfs) holding only what the program needs, read-only: the system's
  `/usr` and libraries, Python and the virtualenv, planner's package, the program's folder;
  a private `/tmp`, a fresh `/proc`, a few devices, and, writable, the one folder planner reads
  the result from. Nothing else of the runner's: no `$GITHUB_OUTPUT`, no comment file, no
  `.git` beyond the program's folder, no home.
- **network**: loopback only.
- **user**: the one user id mapped is planner's own; every capability is dropped and the
  securebits locked before ARGV starts, so the program cannot remount, mount, change root or
  regain a capability by running something set-uid (`no_new_privs`).

`available()` says whether this kernel allows it (some containers do not); the sandbox then
runs the program with its older guard and says so in one line (docs/security.md lists what
that guard does not reach). No pulumi import: plain system calls through ctypes.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import platform
import socket
import struct
import sys
from collections.abc import Sequence
from functools import cache
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACES = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
# flags a bind mount inherits from its source and may not drop again inside a user namespace
_STATVFS_TO_MS = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC))

PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 1, 24, 28, 38
# NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE, each with its lock
SECUREBITS = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1

# the system files a Python program needs read-only; /etc is not bound whole (it may hold secrets)
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
# Linux gives no write access to an inode whose owner is not mapped in the user namespace: for a
# user other than root the host's root-owned /dev/null cannot be written there, so it is an
# empty file of a 1 MiB /dev instead (writes beyond that fail; reads of what was written return it)
WRITTEN_DEVICES = ("/dev/null",)
TMPFS_SIZE = "size=1g,mode=1777"  # the program's /tmp: memory, so bounded

EXIT_UNAVAILABLE = 125  # the namespaces could not be made (the jail says why on stderr)
PREFIX = "planner-jail: "


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text)


def _mount(libc: Any, source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:  # bytes for ctypes; None stays NULL
        return None if s is None else s.encode()

    _check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def _bind(libc: Any, source: str, target: str, writable: bool) -> None:
    """Bind `source` at `target` (a file or a folder), read-only unless `writable`."""
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "a").close()
    _mount(libc, source, target, None, MS_BIND | MS_REC)
    if writable:
        return
    inherited = os.statvfs(source).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | sum(ms for st, ms in _STATVFS_TO_MS if inherited & st)
    _mount(libc, None, target, None, flags)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _drop_capabilities(libc: Any) -> None:
    """No capability now or after any exec: bounding set emptied, securebits locked, sets cleared."""
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), 0, 0, 0), "no_new_privs")
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0)  # past the last capability: EINVAL, ignored
    _check(libc.prctl(PR_SET_SECUREBITS, ctypes.c_ulong(SECUREBITS), 0, 0, 0), "securebits")
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable for each of two words: all 0
    _check(libc.capset(header, data), "capset")


def _layout(spec: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The new root's mounts in order: (kind, source, target path inside), `tmpfs` for /tmp first."""
    mounts: list[tuple[str, str, str]] = [("tmpfs", "", "/tmp"), ("tmpfs", "", "/dev")]
    system = [p for p in SYSTEM_PATHS + ETC_FILES if not (os.path.islink(p) and os.path.dirname(p) == "/")]
    ro = sorted({os.path.abspath(p) for p in [*system, *spec["ro"]] if os.path.exists(p)})
    kept: list[str] = []
    for path in ro:  # a folder inside one already bound is there already
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    binds = [("ro", p, p) for p in kept] + [("rw", os.path.abspath(p), os.path.abspath(p)) for p in spec["rw"]]
    binds += [
        ("dev", d, d) for d in DEVICES if os.path.exists(d) and (spec.get("host_root") or d not in WRITTEN_DEVICES)
    ]
    return mounts + sorted(binds, key=lambda m: (m[2].count("/"), m[2]))


def _enter_root(libc: Any, spec: dict[str, Any]) -> None:
    """Build the new root under spec['root'] (an empty folder) and change into it."""
    root = spec["root"]
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)  # nothing made here reaches the host's mounts
    _mount(libc, "tmpfs", root, "tmpfs", MS_NOSUID, "mode=0755")
    for path in SYSTEM_PATHS:
        if os.path.islink(path):  # merged /usr: /bin -> usr/bin
            os.symlink(os.readlink(path), root + path)
    for kind, source, target in _layout(spec):
        inside = root + target
        if kind == "tmpfs":
            os.makedirs(inside, exist_ok=True)
            if target == "/tmp":
                _mount(libc, "tmpfs", inside, "tmpfs", MS_NOSUID | MS_NODEV, TMPFS_SIZE)
            else:  # /dev: the bound devices, and a plain /dev/null where the host's cannot be written
                _mount(libc, "tmpfs", inside, "tmpfs", MS_NOSUID, "size=1m,mode=0755")
                if not spec.get("host_root"):
                    for name in WRITTEN_DEVICES:
                        with open(root + name, "wb"):
                            pass
                        os.chmod(root + name, 0o666)
        elif os.path.islink(source) and os.path.dirname(source) == "/":
            continue  # made as a link above
        else:
            _bind(libc, os.path.realpath(source), inside, writable=kind == "rw" or kind == "dev")
    os.makedirs(root + "/proc", exist_ok=True)
    _mount(libc, "proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chdir(root)
    _check(libc.chroot(b"."), "chroot")
    cwd = spec.get("cwd") or "/"
    os.chdir(cwd if os.path.isdir(cwd) else "/")


def _start(spec: dict[str, Any], argv: Sequence[str]) -> int:
    """In the jail's first process: make the namespaces, fork the namespace's init, wait for it."""
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    spec = spec | {"host_root": uid == 0}  # root's own devices are writable in its namespace
    try:
        _check(libc.unshare(NAMESPACES), "unshare")
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1\n")
        _write("/proc/self/gid_map", f"0 {gid} 1\n")
    except OSError as exc:
        print(f"{PREFIX}namespaces unavailable ({exc.strerror or exc})", file=sys.stderr)
        return EXIT_UNAVAILABLE
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the PID namespace's init
        os.close(ready_r)
        _check(libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(9), 0, 0, 0), "pdeathsig")
        try:
            _enter_root(libc, spec)
            _loopback_up()
            _drop_capabilities(libc)
        except OSError as exc:
            os.write(ready_w, f"{PREFIX}cannot set up the sandbox ({exc.strerror or exc})".encode())
            os._exit(EXIT_UNAVAILABLE)
        os.close(ready_w)
        if spec.get("probe"):
            os._exit(0)
        try:
            os.execve(argv[0], list(argv), dict(os.environ))
        except OSError as exc:
            print(f"{PREFIX}cannot start {argv[0]}: {exc.strerror}", file=sys.stderr)
            os._exit(127)
    os.close(ready_w)
    with os.fdopen(ready_r, "rb") as fh:
        failure = fh.read().decode("utf-8", "replace")
    _, status = os.waitpid(pid, 0)
    if failure:
        print(failure, file=sys.stderr)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


@cache
def available() -> str | None:
    """None when this machine can run a program in the jail; else why not, in a few words."""
    if not sys.platform.startswith("linux"):
        return f"no Linux namespaces on {platform.system() or sys.platform}"
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="planner-jail-") as tmp:
        os.mkdir(os.path.join(tmp, "root"))
        spec = {"probe": True, "root": os.path.join(tmp, "root"), "ro": [sys.prefix], "rw": [], "cwd": "/"}
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "planner.runtime.jail", json.dumps(spec), "--", "/bin/true"],
                capture_output=True,
                text=True,
                timeout=30,
                env=_import_env(),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"the namespace check failed ({exc})"
    if proc.returncode == 0:
        return None
    why = proc.stderr.strip().splitlines()
    return why[-1].removeprefix(PREFIX) if why else f"the namespace check exited {proc.returncode}"


def _import_env() -> dict[str, str]:
    """The environment of the probe: only what it needs to import this module."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": root, "PYTHONDONTWRITEBYTECODE": "1"}


def command(spec: dict[str, Any], argv: Sequence[str]) -> list[str]:
    """The command that runs `argv` in the jail `spec` describes (`root`: an empty folder for the
    new root; `ro`, `rw`: paths seen read-only and writable at the same place; `cwd`)."""
    return [sys.executable, "-m", "planner.runtime.jail", json.dumps(spec), "--", *argv]


def main(args: list[str]) -> int:
    if len(args) < 3 or args[1] != "--":
        print(f"{PREFIX}usage: python -m planner.runtime.jail SPEC -- ARGV...", file=sys.stderr)
        return 2
    return _start(json.loads(args[0]), args[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
