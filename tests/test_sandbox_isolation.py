"""A hostile pull request's program, run by `plan --program` and `diff --program --base-ref`, as a
CI runner runs planner: with secrets in planner's environment and the runner's files beside it.

Each test is one thing such a program tried (docs/security.md names the test behind each promise):
in the namespace jail (planner.runtime.jail) it reaches nothing; where the jail is unavailable,
the process guard's part is held too (`--sandbox off`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.runtime import jail
from tests.conftest import ROOT, run_cli

pytestmark = pytest.mark.skipif(jail.available() is not None, reason=f"no Linux namespaces here: {jail.available()}")

SECRET = "planner-test-secret-4f1c9e"
# a program that declares a cluster planner can read back, after `{attack}`
DECLARES = """
import pulumi_aws as aws
aws.ec2.Instance("gpu", instance_type="p5en.48xlarge", ami="ami-0123456789abcdef0", availability_zone="us-east-2a")
"""


def program(where: Path, attack: str) -> Path:
    d = where / "project"
    (d / "stacks").mkdir(parents=True)
    (d / "Pulumi.yaml").write_text("name: sample\nruntime: python\nmain: app.py\nstackConfigDir: stacks\n")
    (d / "app.py").write_text(attack + DECLARES)
    (d / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-2\n")
    return d


USERS = ["runner", "ordinary user"]
AS_NOBODY = (
    "setpriv",
    "--reuid=65534",
    "--regid=65534",
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--",
)  # planner as this test runs (root on CI here), and as uid 65534


def planner(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120, user: str = "runner"
) -> subprocess.CompletedProcess[str]:
    """`python -m planner ARGS` as CI runs it: a process of its own, secrets in its environment;
    as `user` (an ordinary user: uid 65534, when the test runs as root)."""
    full = dict(os.environ, PYTHONPATH=str(ROOT), AWS_SECRET_ACCESS_KEY=SECRET, GITHUB_TOKEN=SECRET) | (env or {})
    prefix: list[str] = []
    if user != "runner" and os.getuid() == 0:
        prefix = [*AS_NOBODY]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "planner", *args],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _ordinary_user_can_run_python() -> bool:
    if os.getuid() != 0:
        return True
    nested = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True)"
    probe = [*AS_NOBODY, sys.executable, "-c", nested]
    try:
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _as(user: str) -> None:
    if user != "runner" and not _ordinary_user_can_run_python():
        pytest.skip(f"uid 65534 cannot run {sys.executable} here (its folders are closed to other users)")


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder any user may read and write (the program and the runner's files for uid 65534)."""
    import shutil
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="planner-test-"))
    d.chmod(0o777)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _open_to_all(d: Path) -> Path:
    for p in [d, *d.rglob("*")]:
        p.chmod(0o777 if p.is_dir() else 0o666)
    return d


def _host_processes_with(word: str) -> list[int]:
    """Host pids whose command line holds `word` (what a program's leftover process would show)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    if word.encode() in fh.read():
                        found.append(int(name))
            except OSError:
                continue
    return found


def _none_left(word: str, tries: int = 100) -> bool:
    """No host process holds `word`, checked every 0.1 s a bounded number of times (the kernel ends a
    namespace's processes asynchronously)."""
    for _ in range(tries):
        if not _host_processes_with(word):
            return True
        time.sleep(0.1)
    return False


READ_ENVIRONS = """
import os
seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            seen.append(open(f"/proc/{pid}/environ", "rb").read())
        except OSError:
            pass
print("READ", len(seen), b"%s" in b"".join(seen))
"""


@pytest.mark.parametrize(("mode", "user"), [("auto", "runner"), ("auto", "ordinary user"), ("off", "ordinary user")])
def test_the_program_cannot_read_planners_environment(shared_tmp: Path, mode: str, user: str) -> None:
    """It read /proc/<planner's pid>/environ and printed the AWS secret key. In the jail planner is
    not in its PID namespace; with the guard only, planner (and its watchdog) are non-dumpable, their
    /proc files closed to a program of the same user. (Under root the guard cannot close them: root
    reads any process's files. docs/security.md lists it; the jail is what holds there.)"""
    _as(user)
    d = _open_to_all(program(shared_tmp, READ_ENVIRONS % SECRET))
    res = planner("plan", "--program", str(d), "--stack", "dev", "--sandbox", mode, user=user)
    assert res.returncode in (0, 1), res.stderr
    (line,) = [x for x in res.stderr.splitlines() if "READ" in x]
    assert line.endswith("False") and SECRET not in res.stderr + res.stdout
    if mode == "auto":
        assert "READ 1 False" in line  # only itself: pid 1 of its own namespace


@pytest.mark.parametrize("user", USERS)
def test_the_program_cannot_write_the_runners_files(shared_tmp: Path, user: str) -> None:
    """It appended `exit-code=0` to $GITHUB_OUTPUT and renamed its own file over the comment file."""
    _as(user)
    tmp_path = shared_tmp
    output, comment = tmp_path / "github_output", tmp_path / "comment.md"
    output.write_text("")
    comment.write_text("planner's comment\n")
    attack = (
        "import os\n"
        "for path, text in ((os.environ.get('GITHUB_OUTPUT', ''), 'exit-code=0\\n'), (%r, 'forged')):\n"
        "    try:\n"
        "        open(path, 'a').write(text); print('WROTE', path)\n"
        "    except OSError as exc:\n"
        "        print('REFUSED', type(exc).__name__)\n"
    ) % str(comment)
    d = _open_to_all(program(tmp_path, attack))
    output.chmod(0o666)
    comment.chmod(0o666)
    res = planner("plan", "--program", str(d), "--stack", "dev", env={"GITHUB_OUTPUT": str(output)}, user=user)
    assert res.returncode in (0, 1), res.stderr
    # in the jail a write lands, if anywhere, in its own /tmp: the runner's files are untouched
    assert output.read_text() == "" and comment.read_text() == "planner's comment\n"


def test_no_bytecode_is_left_in_the_programs_folder(tmp_path: Path) -> None:
    d = program(tmp_path, "import helper\n")
    (d / "helper.py").write_text("X = 1\n")
    for mode in ("auto", "off"):
        assert run_cli("plan", "--program", str(d), "--stack", "dev", "--sandbox", mode).code in (0, 1)
        assert not list(d.rglob("__pycache__")) and not list(d.rglob("*.pyc"))


STOP_AND_LINGER = """
import os, signal, subprocess, sys
for pid in os.listdir("/proc"):  # everything it can see but itself: stopped, then killed
    if pid.isdigit() and int(pid) != os.getpid():
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(int(pid), sig)
            except OSError:
                pass
try:
    os.kill(os.getppid(), signal.SIGSTOP)
except OSError:
    pass
subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(%s)"], start_new_session=True)
if os.getuid() == 0:
    subprocess.Popen([sys.executable, "-c", "import os, time\\ntry: os.setuid(65534)\\nexcept OSError: pass\\ntime.sleep(%s)"])
import time
time.sleep(%s)
"""


def test_a_program_that_stops_kills_and_outlives_planner_is_still_bounded(tmp_path: Path) -> None:
    """SIGSTOP to its parent defeated --program-timeout; killing the watchdog and planner, a setsid
    child or one that changed its uid outlived the run. In the jail none of them is in reach, and
    the namespace ends with its first process."""
    marker = "3141.59"
    d = program(tmp_path, STOP_AND_LINGER % (marker, marker, marker))
    # a run that did not end by itself would raise subprocess.TimeoutExpired here
    res = planner("plan", "--program", str(d), "--stack", "dev", "--program-timeout", "5", timeout=90)
    assert res.returncode == 2 and "did not finish within 5 s" in res.stderr
    assert _none_left(marker)


def test_sigterm_during_diff_program_leaves_no_folder_and_no_process(tmp_path: Path) -> None:
    """A cancelled job (SIGTERM) during `diff --program --base-ref` left its worktree, its temporary
    folders and the program running."""
    repo = tmp_path / "repo"
    marker = "2718.28"
    d = program(
        repo,
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep({marker})'])\n"
        f"time.sleep({marker})\n",
    )
    _git_repo(repo)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp))
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner", "diff", "--program", str(d), "--stack", "dev", "--base-ref", "HEAD"],
        cwd=repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    for _ in range(600):  # until the program runs (at most a minute under load)
        if _host_processes_with(marker):
            break
        time.sleep(0.1)
    assert _host_processes_with(marker), "the program never started"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM
    assert _none_left(marker)
    assert list(tmp.iterdir()) == []
    assert b"worktree" not in subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True).stdout[60:]


def _git_repo(repo: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base")


HOOKS = """
import os, stat
git = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".git")
marker = %r
for hook in ("post-checkout", "post-merge", "reference-transaction", "fsmonitor-watchman"):
    path = os.path.join(git, "hooks", hook)
    try:
        open(path, "w").write("#!/bin/sh\\ntouch " + marker + "\\n")
        os.chmod(path, 0o755)
        print("HOOK WRITTEN", hook)
    except OSError as exc:
        print("HOOK REFUSED", type(exc).__name__)
try:
    with open(os.path.join(git, "config"), "a") as fh:
        fh.write("[core]\\n\\tfsmonitor = touch " + marker + "\\n[filter \\"x\\"]\\n\\tsmudge = touch " + marker + "\\n")
    print("CONFIG WRITTEN")
except OSError as exc:
    print("CONFIG REFUSED", type(exc).__name__)
"""


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_git_hooks_and_config_the_program_writes_never_run(tmp_path: Path, mode: str) -> None:
    """A program wrote .git/hooks/post-checkout; planner's own `git worktree add` ran it, outside the
    sandbox, with planner's environment. Now the base is exported, never checked out, and git runs
    with hooks and fsmonitor off; in the jail the program cannot even write them."""
    repo = tmp_path / "repo"
    ran = tmp_path / "hook-ran"
    d = program(repo, HOOKS % str(ran))
    (repo / ".gitattributes").write_text("* filter=x\n")
    _git_repo(repo)
    res = subprocess.run(
        [sys.executable, "-m", "planner", "diff", "--program", str(d), "--stack", "dev", "--base-ref", "HEAD"]
        + ["--sandbox", mode],
        cwd=repo,
        env=dict(os.environ, PYTHONPATH=str(ROOT), AWS_SECRET_ACCESS_KEY=SECRET),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode in (0, 1), res.stderr
    assert not ran.exists()
    if mode == "auto":
        assert "HOOK WRITTEN" not in res.stderr and "CONFIG WRITTEN" not in res.stderr
    else:  # the guard alone lets it write them: what matters is that planner's git never runs them
        assert "HOOK WRITTEN post-checkout" in res.stderr and "CONFIG WRITTEN" in res.stderr


def test_a_large_blob_at_the_base_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 200 MB file at the base ref was read whole (415 MB peak) before the 8 MiB limit applied:
    now git says its size first, and a blob over the limit is never read."""
    from planner.commands import git_reading
    from planner.core.reading.problems import InputError

    repo = tmp_path / "repo"
    (repo / "stacks").mkdir(parents=True)
    (repo / "stacks" / "Pulumi.big.yaml").write_bytes(b"# " + b"x" * (9 * 1024 * 1024) + b"\n")
    _git_repo(repo)
    monkeypatch.chdir(repo)
    reads = []
    real = subprocess.Popen

    def popen(args: list[str], **kw: object) -> subprocess.Popen[bytes]:
        reads.append(args)
        return real(args, **kw)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(git_reading.subprocess, "Popen", popen)
    with pytest.raises(InputError) as err:
        git_reading.blob("HEAD", "stacks/Pulumi.big.yaml", 8 * 1024 * 1024, "cannot read")
    assert str(err.value.problems[0]).endswith(f"file is {9 * 1024 * 1024 + 3} bytes; expected at most 8388608")
    assert not [a for a in reads if "blob" in a]  # the blob itself was never streamed
    res = run_cli("diff", "--base-ref", "HEAD", "stacks", cwd=repo)
    assert res.code == 2 and "expected at most 8388608" in res.err


def test_required_refuses_where_namespaces_are_missing_and_auto_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = program(tmp_path, "")
    jail.available.cache_clear()
    monkeypatch.setattr(jail, "available", lambda: "unshare: Operation not permitted")
    res = run_cli("plan", "--program", str(d), "--stack", "dev", "--sandbox", "required", "--format", "json")
    assert res.code == 2 and json.loads(res.out)["stacks"] == []
    assert [p["message"] for p in json.loads(res.out)["problems"]] == [
        "required, but this machine cannot make Linux namespaces (unshare: Operation not permitted); "
        "the program was not run"
    ]
    res = run_cli("plan", "--program", str(d), "--stack", "dev")
    assert res.code in (0, 1)
    assert res.err.splitlines()[0] == (
        "planner: no namespace sandbox here (unshare: Operation not permitted): the program runs with the "
        "process guard only"
    )
