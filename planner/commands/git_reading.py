"""Reading a git ref of a repository a pull request controls, without running anything it configures.

`diff --base-ref` reads stack files and, with `--program`, a whole program at the base. By then
the pull request's own program has run: it may have written `.git/hooks/*` or `.git/config`
(a `core.fsmonitor` command, a smudge filter), which git runs on a checkout or an index read.
So planner never checks anything out: it lists and reads objects (`rev-parse`, `ls-tree`,
`cat-file`), also to write a commit's files into a temporary folder, commands that run no hook,
filter or fsmonitor (`git archive` would run a smudge filter); every call also sets `core.hooksPath` to nothing and
`core.fsmonitor` off, reads no system or global config, and gets an environment without
credentials (`planner.runtime.sandbox.scrubbed_env`). Sizes are checked before a blob is read
(`git cat-file -s`) and counted while a tree streams, so a 200 MB file at the base costs
nothing.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence

from planner.core.reading.problems import InputError, Problem

# what every call overrides of the repository's own config (git config -c wins over .git/config)
SAFE_CONFIG = (
    "-c",
    f"core.hooksPath={os.devnull}",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "protocol.allow=never",  # no fetch of a submodule or a promisor remote: nothing leaves the machine
)
TREE_LIMIT_BYTES = 512 * 1024 * 1024  # a program's repository at the base, exported; more is refused


def git_env() -> dict[str, str]:
    """The environment of planner's git calls: no credentials, no system or global config, no prompt."""
    from planner.runtime.sandbox import scrubbed_env

    return scrubbed_env(os.environ) | {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
    }


def _missing_git() -> InputError:
    return InputError([Problem("<command line>", None, "--base-ref", "git is not installed; expected git on PATH")])


def git(args: Sequence[str], what: str) -> bytes:
    """`git ARGS`'s standard output; InputError naming `what` if it fails."""
    try:
        proc = subprocess.run(["git", *SAFE_CONFIG, *args], capture_output=True, timeout=60, env=git_env())
    except FileNotFoundError:
        raise _missing_git() from None
    if proc.returncode:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError([Problem("<command line>", None, "--base-ref", f"{what}: {msg[0][:200]}" if msg else what)])
    return proc.stdout


def object_type(ref: str, path: str) -> str | None:
    """`tree`, `blob`, ... for `REF:./path`; None if there is no such object."""
    try:
        proc = subprocess.run(
            ["git", *SAFE_CONFIG, "cat-file", "-t", f"{ref}:./{path}"], capture_output=True, timeout=60, env=git_env()
        )
    except FileNotFoundError:
        raise _missing_git() from None
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def blob(ref: str, path: str, limit: int, what: str) -> bytes:
    """The file `path` at `ref`, read only if git says it is at most `limit` bytes (and never more read)."""
    size = int(git(["cat-file", "-s", f"{ref}:./{path}"], what).strip() or b"0")
    if size > limit:
        raise InputError([Problem(f"{ref}:{path}", None, "", f"file is {size} bytes; expected at most {limit}")])
    try:
        proc = subprocess.Popen(
            ["git", *SAFE_CONFIG, "cat-file", "blob", f"{ref}:./{path}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=git_env(),
        )
    except FileNotFoundError:
        raise _missing_git() from None
    assert proc.stdout is not None
    data = proc.stdout.read(limit + 1)
    proc.stdout.close()
    proc.kill()
    proc.wait()
    if len(data) > limit:  # the object changed between the two calls: still never more than the limit
        raise InputError([Problem(f"{ref}:{path}", None, "", f"file is over {limit} bytes; expected at most {limit}")])
    return data


def export_tree(top: str, ref: str, dest: str, limit: int = TREE_LIMIT_BYTES) -> None:
    """The regular files of commit `ref` of the repository at `top`, written under `dest` as git
    stores them: listed by `ls-tree -r` and read by `cat-file --batch`, which apply no filter or
    attribute (`git archive` would run a smudge filter the repository's config names). Symbolic
    links and submodules are left out. Refused before anything is read when the files add up to
    more than `limit` bytes."""
    listing = git(["-C", top, "ls-tree", "-r", "-l", "-z", ref], f"cannot list '{ref}'")
    files: list[tuple[str, str, int, bool]] = []
    total = 0
    for record in listing.split(b"\0"):
        meta, tab, raw_name = record.partition(b"\t")
        fields = meta.split()
        if not tab or len(fields) != 4 or fields[0] not in (b"100644", b"100755"):
            continue
        size = int(fields[3])
        total += size
        files.append((fields[2].decode("ascii"), os.fsdecode(raw_name), size, fields[0] == b"100755"))
    if total > limit:
        raise InputError(
            [
                Problem(
                    "<command line>",
                    None,
                    "--base-ref",
                    f"the repository at '{ref}' holds {total:,} bytes of files; planner reads at most "
                    f"{limit // 1024**2} MiB to run the program at the base",
                )
            ]
        )
    root = os.path.realpath(dest)
    os.makedirs(root, exist_ok=True)
    try:
        proc = subprocess.Popen(
            ["git", *SAFE_CONFIG, "-C", top, "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=git_env(),
        )
    except FileNotFoundError:
        raise _missing_git() from None
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for sha, name, size, executable in files:
            target = os.path.realpath(os.path.join(root, name))
            if not target.startswith(root + os.sep):  # git never stores such a name; never written
                continue
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob" or int(header[2]) != size:
                raise InputError([Problem("<command line>", None, "--base-ref", f"cannot read {name} at '{ref}'")])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                left = size
                while left:
                    chunk = proc.stdout.read(min(left, 1024 * 1024))
                    if not chunk:
                        raise InputError(
                            [Problem("<command line>", None, "--base-ref", f"cannot read {name} at '{ref}'")]
                        )
                    out.write(chunk)
                    left -= len(chunk)
            proc.stdout.read(1)  # the line feed after each object
            os.chmod(target, 0o755 if executable else 0o644)
    finally:
        proc.stdin.close()
        proc.kill()
        proc.stdout.close()
        proc.wait()
