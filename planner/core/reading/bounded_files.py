"""Reading and writing files the way a CI job needs: bounded, regular, all or nothing.

Why one module: a path a user names may be a FIFO, `/dev/zero` or a symlink out of the
repository, and a report write may fail half-way (a full disk). Every command reads user
files through `read_regular` (a size limit, regular files only) and writes reports and
rewritten files through `write_atomic` (a temporary file beside the target, then a
rename), so a failure leaves the old file whole and never a truncated one.
"""

from __future__ import annotations

import os
import stat

from planner.core.reading.problems import InputError, Problem


def read_regular(path: str, limit: int, what: str = "") -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them; InputError otherwise.

    Opened non-blocking so that a FIFO cannot hold the run; checked with fstat after
    opening, so what is read is what was checked.
    """
    label = f" {what}" if what else ""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError([Problem(path, None, "", f"cannot read{label}: {exc.strerror or exc}")]) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, FIFO or socket)"
            raise InputError([Problem(path, None, "", f"cannot read{label}: {kind}; expected a regular file")])
        if info.st_size > limit:
            raise InputError([Problem(path, None, "", f"file is {info.st_size} bytes; expected at most {limit}")])
        chunks, size = [], 0
        while size <= limit:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            except OSError as exc:
                raise InputError([Problem(path, None, "", f"cannot read{label}: {exc.strerror or exc}")]) from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # grew while being read
            raise InputError([Problem(path, None, "", f"file is more than {limit} bytes; expected at most {limit}")])
        return b"".join(chunks)
    finally:
        os.close(fd)


def check_output(path: str, key: str = "--output") -> None:
    """Refuse an output path planner would not write, before any work is done: InputError.

    Empty (`-o ""`); a folder; a FIFO, socket or device (a FIFO would hold the run until
    something reads it, a device is not a report), except `/dev/null`, written in place to
    discard the report; a symbolic link, which is refused rather than followed or replaced
    (in a pull request's checkout, a link planted at the report's path could point at any
    file the job may write).
    """
    if path == "":
        raise InputError([Problem("<command line>", None, key, "expected a file path, got an empty string")])
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return  # a new file: written beside its folder's other files
    except OSError as exc:
        raise InputError(
            [Problem(path, None, key, f"cannot write: {exc.strerror or exc}; expected a writable file path")]
        ) from None
    if stat.S_ISREG(info.st_mode):
        return
    if stat.S_ISLNK(info.st_mode):
        why = "is a symbolic link; planner does not write through links (expected a regular file path)"
    elif stat.S_ISDIR(info.st_mode):
        why = "is a folder; expected a file path"
    elif _is_devnull(path):
        return
    else:
        why = "is a device, FIFO or socket; expected a regular file path (or /dev/null to discard the report)"
    raise InputError([Problem(path, None, key, why)])


def _is_devnull(path: str) -> bool:
    try:
        return os.path.samefile(path, os.devnull)
    except OSError:
        return False


def write_atomic(path: str, data: str, key: str = "") -> None:
    """Write `data` (UTF-8) to `path` through a temporary file in the same folder and a rename.

    On any failure the temporary file is removed and `path` keeps its old content;
    InputError names `path` and `key` (the option that named it). A path `check_output`
    refuses (a link, a folder, a device other than `/dev/null`) is refused here too, so
    nothing changes between the check and the write; `/dev/null` is written in place.
    """
    check_output(path, key or "--output")
    try:
        if _is_devnull(path):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(data)
            return
        folder = os.path.dirname(os.path.abspath(path))
        mode = stat.S_IMODE(os.stat(path).st_mode) if os.path.exists(path) else None
        import tempfile  # here, not at the top: only a report written to a file needs it (2 ms of imports)

        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            if mode is not None:
                os.chmod(tmp, mode)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as exc:
        raise InputError(
            [Problem(path, None, key, f"cannot write: {exc.strerror or exc}; expected a writable file path")]
        ) from None


STDOUT = "<standard output>"


def emit(text: str) -> None:
    """Write a report to standard output in one piece and flush it; InputError when it cannot be.

    A closed standard output (`>&-`), a full device (`> /dev/full`) or a reader that went
    away fail here, inside the command, as one line and exit 2: not as a traceback at
    interpreter exit with exit 1, which CI reads as "findings".
    """
    import sys

    out = sys.stdout
    if out is None:
        raise InputError(
            [Problem(STDOUT, None, "", "is closed; expected somewhere to write the report (or use --output)")]
        )
    try:
        out.write(text)
        out.flush()
    except (OSError, ValueError) as exc:
        _silence_stdout()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError([Problem(STDOUT, None, "", f"cannot write the report: {reason}")]) from None


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null so the interpreter's final flush cannot fail again."""
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture it): nothing to silence
        pass
