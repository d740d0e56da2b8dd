"""A pull request cannot run its own code, and the program runner is a sealed box: price books,
diffs against a base ref, the provider, outputs and the plan step's imports, each promise held by
a test here that failed before its fix.

The earlier hardening suite is tests/test_hardening.py; docs/security.md names the test below that
holds each promise.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT
from test_action import _repo, run_action
from test_program_plan import HAND_WRITTEN  # a program with one read-back cluster of 2 trn2 instances
from test_provider import construct, plugin  # noqa: F401 - the provider plugin, started as the engine starts it

P5EN = ROOT / "stacks" / "Pulumi.p5en-train.yaml"
LUSTRE_ERROR = ROOT / "tests" / "invalid_stacks" / "Pulumi.lustre-capacity.yaml"


# --- item 1: the Action never runs code from the checkout -----------------------------------------

# Modules a Python started in the checkout would import from its working directory.
HIJACKS = ("json", "venv", "pip", "math", "sys", "typing", "encodings", "site", "sitecustomize", "outputs")


def _plant(repo: Path, marker: Path) -> None:
    """A pull request's root holding Python files that record being run and forge an output."""
    for name in HIJACKS:
        (repo / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\nprint('exit-code=0')\nprint('total-cost=0.00')\n",
            encoding="utf-8",
        )


def test_the_plan_step_imports_nothing_from_the_checkout(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    repo = _repo(tmp_path, P5EN)
    _plant(repo, marker)
    res = run_action(repo, tmp_path)
    assert not marker.exists(), marker.read_text()
    assert res["failed"] is None and res["outputs"]["exit-code"] == "0", res["logs"]
    assert res["outputs"]["total-cost"] == _planned_total(P5EN)  # what planner itself says, not what json.py printed


def _planned_total(stack: Path) -> str:
    from conftest import run_cli

    res = run_cli("plan", str(stack), "--format", "json")
    return f"{json.loads(res.out)['stacks'][0]['cost']['total_usd']:.2f}"


def test_the_install_step_runs_no_python_from_the_checkout(tmp_path: Path) -> None:
    """`python3 -m venv` in the checkout imported its `venv.py`; the step now leaves the
    checkout and runs Python isolated. (Offline, pip then fails to fetch the build backend:
    what matters is that nothing from the checkout ran before it.)"""
    marker = tmp_path / "ran"
    repo = tmp_path / "pr"
    repo.mkdir()
    _plant(repo, marker)
    bin_dir = tmp_path / "bin"  # python3 on PATH, planner not: the step installs
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(runner_temp),
        "ACTION_PATH": str(ROOT),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(tmp_path),
    }
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(ROOT / "action" / "install.sh")],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert not marker.exists(), (marker.read_text(), proc.stderr)
    assert (runner_temp / "planner-venv" / "bin" / "python").exists(), proc.stderr  # the real venv module ran


def test_every_python_the_action_starts_is_isolated() -> None:
    for script in sorted((ROOT / "action").glob("*.sh")):
        for line in script.read_text(encoding="utf-8").splitlines():
            code = line.split("#", 1)[0]
            for m in re.finditer(r"(?:^|[\s(\"'])(\S*python3?\"?)\s+(\S+)", code):
                assert m.group(2) == "-I", f"{script.name}: {line.strip()}"


def test_paths_are_never_read_as_options(tmp_path: Path) -> None:
    """`paths: "stacks/ -h"` printed help and passed the gate over an error in stacks/."""
    repo = _repo(tmp_path, LUSTRE_ERROR)
    res = run_action(repo, tmp_path, paths="stacks/ -h")
    assert res["failed"] == "Gate" and res["outputs"]["exit-code"] == "2", res["logs"]
    assert "usage:" not in res["logs"][1][2]
    # an input that looks like an option is a value of its own option, never another option
    res = run_action(repo, tmp_path, paths="stacks/", **{"fail-on": "--help"})
    assert res["failed"] == "Gate" and res["outputs"]["exit-code"] == "2"


def _values(doc: object, key: str) -> list[str]:
    """Every value of `key` anywhere in a workflow or action document (`uses`, `run`)."""
    if isinstance(doc, dict):
        return [str(v) for k, v in doc.items() if k == key] + [u for v in doc.values() for u in _values(v, key)]
    if isinstance(doc, list):
        return [u for v in doc for u in _values(v, key)]
    return []


def test_third_party_actions_are_pinned_to_full_commit_shas_and_nothing_is_piped_to_a_shell() -> None:
    files = [ROOT / "action.yml", *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]
    seen = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        for uses in _values(yaml.safe_load(text), "uses"):
            if uses.startswith("./"):
                continue
            seen += 1
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), f"{path.name}: {uses}"
        for run in _values(yaml.safe_load(text), "run"):
            assert not re.search(r"(curl|wget)[^\n|]*\|\s*(sudo\s+)?(ba|z)?sh\b", run), f"{path.name}: {run}"
    assert seen >= 5
    # each pin says which release it is, so an update can be reviewed
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"uses: [^.][^@]*@[0-9a-f]{40}", line):
                assert re.search(r"# v\d+\.\d+\.\d+$", line), line


def test_the_sample_workflow_is_safe_for_pull_requests_from_forks() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "planner.yml").read_text(encoding="utf-8"))
    triggers = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1 reads `on:` as true
    assert "pull_request_target" not in triggers and "workflow_run" not in triggers
    assert workflow["permissions"] == {"contents": "read"}
    # the job that runs the pull request's code holds a read-only token (issue 32: the write token
    # is the publish workflow's, tests/test_action_modes.py)
    assert workflow["jobs"]["plan"]["permissions"] == {"contents": "read"}
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
    # the comment is skipped where the token cannot post, even if a caller asks for it
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    comment = next(
        s
        for s in action["runs"]["steps"]
        if "sticky-pull-request-comment" in str(s.get("uses")) and "inputs.mode == 'all'" in s["if"]
    )
    assert "github.event.pull_request.head.repo.full_name == github.repository" in comment["if"]


def test_the_outputs_come_only_from_planners_json(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "action"))
    try:
        import outputs  # action/outputs.py
    finally:
        sys.path.remove(str(ROOT / "action"))
    report = tmp_path / "plan.json"
    assert outputs.outputs("0", str(report)) == {"exit-code": "2", "total-cost": ""}  # no report: never a pass
    report.write_text(json.dumps({"version": 1, "stacks": [{"cost": {"total_usd": 1.5}}, {"cost": {"total_usd": 2}}]}))
    assert outputs.outputs("1", str(report)) == {"exit-code": "1", "total-cost": "3.50"}
    assert outputs.outputs("0; echo", str(report))["exit-code"] == "2"
    for forged in (
        {"stacks": []},
        {"stacks": [{"cost": {"total_usd": "0.00"}}]},
        [1],
        {"stacks": [{"cost": {"total_usd": True}}]},
    ):
        report.write_text(json.dumps(forged))
        assert outputs.outputs("0", str(report)) == {"exit-code": "2", "total-cost": ""}, forged
    report.write_text('{"stacks": [{"cost": {"total_usd": Infinity}}]}')
    assert outputs.outputs("0", str(report))["exit-code"] == "2"
    report.write_text(json.dumps({"stacks": [{"cost": None}]}))
    assert outputs.outputs("0", str(report)) == {"exit-code": "0", "total-cost": "unknown"}


# --- item 2: `--program` is a sealed box ---------------------------------------------------------


def program(tmp_path: Path, main: str, runtime: str = "python", name: str = "app.py") -> Path:
    d = tmp_path / "project"
    (d / "stacks").mkdir(parents=True)
    (d / "Pulumi.yaml").write_text(f"name: sample\nruntime: {runtime}\nmain: {name}\nstackConfigDir: stacks\n")
    (d / name).write_text(main)
    (d / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-2\n")
    return d


def plan_program(d: Path, *extra: str) -> Any:
    from conftest import run_cli

    return run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json", *extra)


def _gone(pid: int) -> bool:
    """The process has ended (a zombie waiting for a reaper counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _wait_gone(pid: int) -> bool:
    import time

    for _ in range(100):  # the kernel delivers SIGKILL at once; a reaper may take a moment
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


# The tests below watch the program's processes by their pids, which only the process guard shows
# (in the namespace jail they are pids of its own namespace): they hold the guard, the fallback where
# Linux namespaces are not available. tests/test_sandbox_isolation.py holds the jail.
GUARD_ONLY = ("--sandbox", "off")

SPAWN = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open({pidfile!r}, "w").write(str(child.pid))
"""


def test_a_finished_program_is_read_at_once_and_its_background_child_is_stopped(tmp_path: Path) -> None:
    """The background child held the output pipe: the run waited for the full timeout, then
    said "did not finish", and the child outlived planner."""
    pidfile = tmp_path / "pid"
    d = program(tmp_path, SPAWN.format(pidfile=str(pidfile)) + HAND_WRITTEN)
    result = plan_program(d, "--program-timeout", "20", *GUARD_ONLY)
    assert result.code == 0, result.err
    assert json.loads(result.out)["stacks"][0]["summary"]["instances"] == 2
    assert _wait_gone(int(pidfile.read_text()))


def test_at_the_timeout_the_whole_process_group_is_stopped(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    d = program(tmp_path, SPAWN.format(pidfile=str(pidfile)) + "import time\ntime.sleep(60)\n")
    result = plan_program(d, "--program-timeout", "3", *GUARD_ONLY)
    assert result.code == 2 and "did not finish within 3 s" in result.err
    assert _wait_gone(int(pidfile.read_text()))


def _planner_running(d: Path, pidfile: Path) -> subprocess.Popen[bytes]:
    """`planner plan --program d` in a process of its own, once the program has written `pidfile`."""
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "planner", "plan", "--program", str(d), "--stack", "dev", *GUARD_ONLY],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    for _ in range(600):  # until the program has written it (at most a minute under load)
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.1)
    return proc


def test_when_planner_is_stopped_the_programs_group_is_stopped_too(tmp_path: Path) -> None:
    """SIGTERM to planner (a cancelled CI job) left the program and its children running."""
    pidfile = tmp_path / "pid"
    d = program(tmp_path, SPAWN.format(pidfile=str(pidfile)) + "import time\ntime.sleep(60)\n")
    proc = _planner_running(d, pidfile)
    try:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == -signal.SIGTERM  # planner still ends as the signal asks
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    assert _wait_gone(int(pidfile.read_text()))


# A program whose children leave its process group: one in a session of its own (setsid), one
# a daemon (fork, setsid, fork: its parent exits at once, so nothing leads back to the program).
ESCAPE = """
import os, subprocess, sys, time
sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
first = os.fork()
if first == 0:
    os.setsid()
    if os.fork() == 0:
        open({daemonfile!r}, "w").write(str(os.getpid()))
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)"])
    os._exit(0)
os.waitpid(first, 0)
while not os.path.exists({daemonfile!r}):
    time.sleep(0.01)
open({pidfile!r}, "w").write(str(sleeper.pid))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="found through /proc: Linux only")
def test_a_child_that_leaves_the_programs_group_is_stopped_too(tmp_path: Path) -> None:
    """A child in a session of its own (and a double-forked daemon) outlived the group kill."""
    pidfile, daemonfile = tmp_path / "pid", tmp_path / "daemon"
    d = program(tmp_path, ESCAPE.format(pidfile=str(pidfile), daemonfile=str(daemonfile)) + HAND_WRITTEN)
    result = plan_program(d, "--program-timeout", "60", *GUARD_ONLY)
    assert result.code == 0, result.err
    assert _wait_gone(int(pidfile.read_text())) and _wait_gone(int(daemonfile.read_text()))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_programs_process_has_the_death_signal_set(tmp_path: Path) -> None:
    asks = (
        "import ctypes, signal\nsig = ctypes.c_int(-1)\n"
        "ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)  # PR_GET_PDEATHSIG\n"
        "print('death signal', sig.value)\n"
    )
    result = plan_program(program(tmp_path, asks + HAND_WRITTEN))
    assert result.code == 0, result.err
    assert f"planner: program: death signal {int(signal.SIGKILL)}" in result.err.splitlines(), result.err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_when_planner_is_killed_the_program_and_all_it_started_die_with_it(tmp_path: Path) -> None:
    """SIGKILL cannot be handled: planner stopped nothing, and the program, its group and what
    left the group ran on. Now Linux ends the program's process (its death signal) and the
    watchdog, seeing planner's pipe close, the rest."""
    pidfile, daemonfile, programfile = tmp_path / "pid", tmp_path / "daemon", tmp_path / "program"
    main = (
        ESCAPE.format(pidfile=str(pidfile), daemonfile=str(daemonfile))
        + SPAWN.format(pidfile=str(tmp_path / "grouped"))
        + f"open({str(programfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n"
    )
    proc = _planner_running(program(tmp_path, main), programfile)
    try:
        proc.kill()
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    for left in (programfile, pidfile, daemonfile, tmp_path / "grouped"):
        assert _wait_gone(int(left.read_text())), left.name


def test_what_the_program_prints_is_data_never_control(tmp_path: Path) -> None:
    noisy = (
        "import os, sys\n"
        "print('::error file=x::forged')\n"
        "print('ok\\r::warning::overwritten')\n"
        "sys.stderr.write('\\x1b]52;c;aGVsbG8=\\x07 clipboard \\x1b]8;;https://evil.example\\x07link\\x1b]8;;\\x07\\n')\n"
        "os.write(1, b'\\n::add-mask::x\\xff\\n')\n"
    )
    d = program(tmp_path, noisy + HAND_WRITTEN)
    result = plan_program(d)
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    assert lines and all(line.startswith("planner: ") for line in lines), lines
    assert not any(c in result.err for c in "\x1b\x07\r")
    assert "planner: program: ::error file=x::forged" in lines
    assert "planner: program: ok\\r::warning::overwritten" in lines
    assert any("\\x1b]52;c;aGVsbG8=\\x07 clipboard" in line for line in lines)


def test_the_programs_output_is_capped_and_the_rest_counted(tmp_path: Path) -> None:
    """120 MB of output took planner to 406 MB: now the first 1 MiB is shown, the rest counted."""
    flood = "import sys\nline = 'x' * 1023 + '\\n'\nfor _ in range(3 * 1024):\n    sys.stdout.write(line)\nsys.stdout.flush()\n"
    d = program(tmp_path, flood + HAND_WRITTEN)
    result = plan_program(d)
    assert result.code == 0, result.err
    shown = [line for line in result.err.splitlines() if line.startswith("planner: program: xxx")]
    assert len(shown) == 1024  # 1 MiB of 1 KiB lines
    m = re.search(
        r"planner: program: \.\.\. ([\d,]+) more bytes of output not shown \(planner shows the first 1 MiB\)",
        result.err,
    )
    assert m and int(m.group(1).replace(",", "")) == 2 * 1024 * 1024, result.err[-300:]
    # one endless line is cut into pieces, never held whole
    d2 = program(tmp_path / "long", "import os\nos.write(1, b'y' * (3 * 1024 * 1024))\n" + HAND_WRITTEN)
    result = plan_program(d2)
    assert result.code == 0 and len(result.err) < 1100 * 1024
    assert "2,097,152 more bytes of output not shown" in result.err


def test_the_programs_memory_and_open_files_are_bounded_with_one_line(tmp_path: Path) -> None:
    hog = program(tmp_path / "mem", "buf = bytearray(64 * 1024 ** 3)\n" + HAND_WRITTEN)
    result = plan_program(hog)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1, result.err
    assert "went over planner's limit of 8 GiB of address space for a program (MemoryError" in result.err
    files = program(tmp_path / "files", "import os\nfds = [os.open(os.devnull, os.O_RDONLY) for _ in range(5000)]\n")
    result = plan_program(files)
    assert result.code == 2 and "went over planner's limit of 1,024 open files for a program" in result.err, result.err
    seen = program(
        tmp_path / "seen",
        "import resource\nprint('limits', resource.getrlimit(resource.RLIMIT_AS), "
        "resource.getrlimit(resource.RLIMIT_NOFILE))\n" + HAND_WRITTEN,
    )
    result = plan_program(seen)
    assert f"limits ({8 * 1024**3}, {8 * 1024**3}) (1024, 1024)" in result.err, result.err


def test_the_program_never_sees_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {
        "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "s3cr3t-aws",
        "AWS_SESSION_TOKEN": "tok-aws",
        "AWS_PROFILE": "prod",
        "GITHUB_TOKEN": "ghs_secret",
        "GH_TOKEN": "gho_secret",
        "ACTIONS_RUNTIME_TOKEN": "rt-secret",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "https://oidc.example",
        "PULUMI_ACCESS_TOKEN": "pul-secret",
        "NPM_TOKEN": "npm-secret",
        "MY_DB_PASSWORD": "pw-secret",
    }
    for k, v in secrets.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("AWS_REGION", "us-east-2")
    monkeypatch.setenv("HARMLESS_SETTING", "kept")
    d = program(tmp_path, "import os\nprint('env', sorted(os.environ.items()))\n" + HAND_WRITTEN)
    result = plan_program(d)
    assert result.code == 0, result.err
    for k, v in secrets.items():
        assert k not in result.err and v not in result.err, k
    assert "('AWS_REGION', 'us-east-2')" in result.err and "('HARMLESS_SETTING', 'kept')" in result.err
    assert "('AWS_EC2_METADATA_DISABLED', 'true')" in result.err


def test_a_double_colon_in_a_resource_name_keeps_the_resource(tmp_path: Path) -> None:
    """4 p5en instances, 3 named `extra::N`, were counted as 1 (the URN was split at every `::`)."""
    main = (
        "\n".join(
            ["import pulumi_aws as aws"]
            + [
                f"aws.ec2.Instance({name!r}, instance_type='p5en.48xlarge', ami='ami-0123456789abcdef0', "
                "availability_zone='us-east-1a')"
                for name in ("main", "extra::1", "extra::2", "extra::3")
            ]
        )
        + "\n"
    )
    d = program(tmp_path, main)
    (d / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    result = plan_program(d)
    assert result.code in (0, 1), result.err
    assert sum(s["summary"]["instances"] for s in json.loads(result.out)["stacks"]) == 4


@pytest.mark.parametrize(
    "runtime", ["nodejs", "go", "dotnet", "java", "yaml", "{name: nodejs, options: {typescript: false}}"]
)
def test_a_project_of_another_runtime_is_one_line_not_run_as_python(tmp_path: Path, runtime: str) -> None:
    marker = tmp_path / "ran"
    # valid Python and valid JavaScript alike: if run as Python it leaves the marker
    d = program(tmp_path, f"open({str(marker)!r}, 'w')\n", runtime=runtime, name="index.js")
    result = plan_program(d)
    assert result.code == 2 and not marker.exists()
    shown_runtime = "nodejs" if runtime.startswith("{") else runtime
    assert result.err.strip() == (
        f"planner: {d / 'Pulumi.yaml'}:2: runtime: runtime {shown_runtime} cannot be planned "
        "with --program, which runs Python programs only (runtime: python); expected a "
        "Python Pulumi project"
    )


# --- item 3: `prices refresh` never writes a book planner refuses ---------------------------------


def _refresh_args(out: Path) -> Any:
    import argparse

    return argparse.Namespace(
        output=str(out), region=["us-east-2"], no_capacity_blocks=True, profile=None, aws_timeout=60.0
    )


def _hostile_price_list(aws: Any) -> list[str]:
    """Stub the Price List: the on-demand types answer Infinity, 1e308, 5e-324, a SKU with an
    escape sequence, then good prices; FSx and EBS as in tests/test_prices_refresh.py."""
    from test_live_prices import LUSTRE_ROWS, ebs_product, ec2_product
    from test_prices_refresh import _sold

    from planner.aws import pricing

    types = _sold("on-demand")
    answers = [("Infinity", "SKUINF"), ("1e308", "SKUBIG"), ("5e-324", "SKUTINY"), ("40.5", "SKU\x1b]8;;https://x\x07")]
    answers += [(f"{20 + i}.25", f"SKUOK{i}") for i in range(len(types) - len(answers))]
    stub = aws.stub("pricing", "us-east-1")
    for itype, (usd, sku) in zip(types, answers):
        stub.add_response(
            "get_products",
            {"FormatVersion": "aws_v1", "PriceList": [ec2_product(itype, "us-east-2", usd, sku)]},
            {"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "Filters": pricing.ec2_filters(itype, "us-east-2")},
        )
    stub.add_response(
        "get_products",
        {"FormatVersion": "aws_v1", "PriceList": LUSTRE_ROWS},
        {"ServiceCode": "AmazonFSx", "FormatVersion": "aws_v1", "Filters": pricing.lustre_filters("us-east-2")},
    )
    stub.add_response(
        "get_products",
        {"FormatVersion": "aws_v1", "PriceList": [ebs_product("us-east-2", "gp3", "0.08", "GP3")]},
        {"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1", "Filters": pricing.ebs_filters("us-east-2")},
    )
    return types


@pytest.mark.usefixtures("isolated_aws")
def test_refresh_leaves_out_what_price_book_refuses_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_preflight_helpers import StubbedAws

    from planner.commands import prices
    from planner.core.cost import load_price_book
    from planner.core.cost.book import load_file

    aws = StubbedAws()
    types = _hostile_price_list(aws)
    out = tmp_path / "aws.yaml"
    code = prices.run(_refresh_args(out), client=aws.client)
    printed = capsys.readouterr()
    err = printed.err
    assert code == 1  # partial
    # refused where AWS's answer is read (an infinite or huge price is no price: issue 32), or
    # where the price book would refuse it (a price too small to show)
    left_out = [line for line in err.splitlines() if "left out, --price-book would refuse it:" in line]
    not_a_price = [line for line in err.splitlines() if "is not a price" in line]
    assert len(left_out) + len(not_a_price) == 4, err
    assert all(f"{t} on-demand us-east-2" in "".join(left_out + not_a_price) for t in types[:4])
    assert "\x1b" not in err
    load_price_book(str(out))  # the file written is one `--price-book` reads
    book = load_file(str(out))  # alone, without the built-in book under it
    assert book.instance(types[4], "us-east-2", "on-demand").usd == 20.25
    assert all(book.instances.get((t, "us-east-2", "on-demand")) is None for t in types[:4])
    assert f"wrote {out}: {len(types) - 4} instance," in printed.out
    assert re.search(r"; partial: \d+ of \d+ items not priced", printed.out)  # the 4 left out count as not priced


def test_the_price_book_refuses_a_price_that_would_show_as_zero(tmp_path: Path) -> None:
    from planner.core.cost.book import parse_data
    from planner.core.reading.problems import InputError

    entry = {
        "instance_type": "p5en.48xlarge",
        "region": "us-east-1",
        "purchase": "on-demand",
        "source": "x",
        "as_of": "2026",
    }
    for usd in (5e-324, 1e-9, "5e-324"):
        with pytest.raises(InputError, match="expected at least 0.0001 USD"):
            parse_data({"instances": [entry | {"usd_per_hour": usd}]}, "book.yaml")
    assert parse_data({"instances": [entry | {"usd_per_hour": 0.0001}]}, "book.yaml").instances


@pytest.mark.usefixtures("isolated_aws")
def test_refresh_keeps_the_mode_of_the_book_it_replaces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import stat

    from test_preflight_helpers import StubbedAws

    from planner.commands import prices

    out = tmp_path / "aws.yaml"
    out.write_text("name: old\n", encoding="utf-8")
    out.chmod(0o644)
    aws = StubbedAws()
    _hostile_price_list(aws)
    assert prices.run(_refresh_args(out), client=aws.client) == 1
    assert stat.S_IMODE(out.stat().st_mode) == 0o644 and "name: aws-" in out.read_text(encoding="utf-8")
    new = tmp_path / "new.yaml"
    aws = StubbedAws()
    _hostile_price_list(aws)
    umask = os.umask(0o027)
    try:
        prices.run(_refresh_args(new), client=aws.client)
    finally:
        os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o640


@pytest.mark.usefixtures("isolated_aws")
@pytest.mark.parametrize("status", [200, 502, 503])
def test_an_html_page_from_the_endpoint_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], status: int
) -> None:
    """A captive portal's HTTP 200 page was `internal error: NotAwsAnswer`; a 5xx page was asked again for every item."""
    from botocore.awsrequest import AWSResponse
    from botocore.config import Config
    from test_preflight_helpers import fake_session

    from planner.commands import prices

    class Raw:
        def stream(self, **_: Any) -> Any:
            yield b"<html><body><h1>502 Bad Gateway</h1></body></html>"

    session, made = fake_session(), {}

    def client(service: str, region: str) -> Any:
        if (service, region) not in made:
            from planner.aws.errors import require_aws_answer

            c = session.client(service, region_name=region, config=Config(retries={"total_max_attempts": 1}))
            c.meta.events.register("after-call", require_aws_answer)
            c.meta.events.register_first(
                "before-send",
                lambda request, **_: AWSResponse(request.url, status, {"Content-Type": "text/html"}, Raw()),
            )
            made[(service, region)] = c
        return made[(service, region)]

    out = tmp_path / "aws.yaml"
    args = _refresh_args(out)
    args.no_capacity_blocks = False
    assert prices.run(args, client=client) == 1 and not out.exists()
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    assert "the endpoint https://api.pricing.us-east-1.amazonaws.com " in err
    # one failing answer per endpoint, then that endpoint is not asked again
    assert sum("not priced:" in line for line in err.splitlines()) == 2, err
    assert all(line.startswith("planner: ") for line in err.splitlines())


def test_a_missing_output_folder_is_named_in_one_line(tmp_path: Path) -> None:
    from conftest import run_cli

    res = run_cli("prices", "refresh", "-o", str(tmp_path / "no" / "such" / "aws.yaml"))
    assert res.code == 2 and res.err.strip().splitlines() == [
        f"planner: <command line>: --output: no such directory: {tmp_path / 'no' / 'such'}"
    ]


# --- item 4: price books: one price per key; a --price that prices nothing says so ---------------

ENTRY = (
    "instance_type: p5en.48xlarge\n    region: us-east-1\n    purchase: capacity-block\n    usd_per_hour: {usd}\n"
    "    source: https://aws.amazon.com/ec2/capacityblocks/pricing/\n    as_of: 2026-11-01\n"
)


@pytest.mark.parametrize("how", ["twice", "merge key"])
def test_two_prices_for_one_key_are_an_input_error_naming_both_lines(tmp_path: Path, how: str) -> None:
    from conftest import no_plan, run_cli

    if how == "twice":
        body = f"  - {ENTRY.format(usd=30)}  - {ENTRY.format(usd=1)}"
    else:  # the second entry copies the first through a YAML merge key and changes only the price
        body = f"  - &first\n    {ENTRY.format(usd=30)}  - <<: *first\n    usd_per_hour: 1\n"
    book = tmp_path / "book.yaml"
    book.write_text(f"name: mine\ninstances:\n{body}", encoding="utf-8")
    res = run_cli("plan", str(P5EN), "--price-book", str(book), "--format", "json")
    assert res.code == 2 and no_plan(res.out)
    second = 9 if how == "twice" else 10
    assert res.err.strip() == (
        f"planner: {book}:{second}: instances[1]: a second price for p5en.48xlarge capacity-block "
        "in us-east-1 (the first is at line 3); expected one entry per key"
    )


def test_two_prices_for_one_lustre_or_ebs_key_are_refused_too() -> None:
    from planner.core.cost.book import parse_data
    from planner.core.reading.problems import InputError

    lustre = {
        "region": "us-east-1",
        "deployment_type": "PERSISTENT_2",
        "per_unit_storage_throughput": 125,
        "usd_per_gb_month": 0.145,
        "source": "x",
        "as_of": "2026",
    }
    ebs = {"region": "us-east-1", "volume_type": "gp3", "usd_per_gb_month": 0.08, "source": "x", "as_of": "2026"}
    with pytest.raises(InputError, match=r"lustre\[1\]: a second price for FSx for Lustre PERSISTENT_2 125 MB/s/TiB"):
        parse_data({"lustre": [lustre, lustre | {"usd_per_gb_month": 0.1}]}, "book.yaml")
    with pytest.raises(InputError, match=r"ebs\[1\]: a second price for EBS gp3 in us-east-1"):
        parse_data({"ebs": [ebs, ebs]}, "book.yaml")
    # SCRATCH prices have no throughput in their key: a throughput written on one is not a second key
    scratch = {
        "region": "us-east-1",
        "deployment_type": "SCRATCH_2",
        "usd_per_gb_month": 0.14,
        "source": "x",
        "as_of": "2026",
    }
    with pytest.raises(InputError, match="a second price for FSx for Lustre SCRATCH_2 in us-east-1"):
        parse_data({"lustre": [scratch, scratch | {"per_unit_storage_throughput": 200}]}, "book.yaml")


def test_a_price_that_matches_no_declared_node_group_says_so() -> None:
    from conftest import run_cli

    res = run_cli(
        "plan",
        str(P5EN),
        "--price",
        "p5.48xlarge=10",
        "--price",
        "p5en.48xlarge@us-east-2=50",
        "--price",
        "p5en.48xlarge:capacity-block=40",
        "--format",
        "json",
    )
    assert res.code == 0
    assert res.err.splitlines() == [
        f"planner: warning: --price {text} matches no node group of the stacks planned (they declare: "
        "p5en.48xlarge:capacity-block@us-east-1); it prices nothing"
        for text in ("p5.48xlarge=10", "p5en.48xlarge@us-east-2=50")
    ]
    # the one that matches is used
    items = json.loads(res.out)["stacks"][0]["cost"]["line_items"]
    assert any("--price p5en.48xlarge:capacity-block=40" in json.dumps(item) for item in items)


# --- item 5: `diff --base-ref` reads names git would quote ----------------------------------------


@pytest.mark.parametrize("folder", ["stäcks", 'st"acks', "st\\acks", "st acks"])
def test_diff_base_ref_compares_folders_git_quotes(tmp_path: Path, folder: str) -> None:
    from conftest import run_cli

    repo = tmp_path / "repo"
    (repo / folder).mkdir(parents=True)
    (repo / folder / "Pulumi.p5en-train.yaml").write_bytes(P5EN.read_bytes())
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.quotePath=true"]
    for argv in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "base"]):
        subprocess.run([*git, *argv], cwd=repo, check=True, timeout=30, capture_output=True)
    res = run_cli("diff", "--base-ref", "main", "--format", "json", "--", folder, cwd=repo)
    assert res.code == 0, res.err
    (stack,) = json.loads(res.out)["diff"]["stacks"]
    assert stack["status"] == "unchanged" and stack["base_file"] is not None, stack


def test_diff_base_ref_refuses_an_option_as_the_ref(tmp_path: Path) -> None:
    from conftest import run_cli

    res = run_cli("diff", "--base-ref=--output=/tmp/x", "--", "stacks/")
    assert res.code == 2 and "--base-ref: expected a git ref (a branch, tag or commit), not an option" in res.err


# --- item 6: `--output` -----------------------------------------------------------------------------


def test_an_empty_output_is_an_input_error() -> None:
    from conftest import run_cli

    compare = ("compare", "--parameters", "7e9", "--tokens", "1e11", "--mfu", "0.4", "--instances", "4")
    for command in (("plan", str(P5EN)), ("diff", str(P5EN), str(P5EN)), compare):
        res = run_cli(*command, "-o", "")
        assert res.code == 2 and res.out == "", command
        assert res.err.strip() == "planner: <command line>: --output: expected a file path, got an empty string", (
            res.err
        )


def test_a_fifo_a_device_or_a_folder_is_refused_before_anything_is_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import run_cli

    import planner.core.planning.pipeline

    planned: list[int] = []
    original = planner.core.planning.pipeline.plan_stacks
    monkeypatch.setattr(
        planner.core.planning.pipeline, "plan_stacks", lambda *a, **k: planned.append(1) or original(*a, **k)
    )
    cases = {"/dev/zero": "is a device, FIFO or socket", str(tmp_path): "is a folder; expected a file path"}
    for path, why in cases.items():
        res = run_cli("plan", str(P5EN), "-o", path)
        assert res.code == 2 and res.err.strip().startswith(f"planner: {path}: --output: {why}"), res.err
    assert planned == []
    assert run_cli("plan", str(P5EN), "-o", os.devnull).code == 0  # /dev/null still discards the report
    # a FIFO no one reads held the run for ever: in a process of its own, so that would fail, not hang
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [sys.executable, "-m", "planner", "plan", str(P5EN), "-o", str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert proc.returncode == 2 and proc.stderr.strip().startswith(
        f"planner: {fifo}: --output: is a device, FIFO or socket"
    )


def test_a_symlinked_output_is_refused_never_replaced(tmp_path: Path) -> None:
    from conftest import run_cli

    target = tmp_path / "elsewhere.json"
    target.write_text("keep\n", encoding="utf-8")
    link = tmp_path / "report.json"
    link.symlink_to(target)
    res = run_cli("plan", str(P5EN), "--format", "json", "-o", str(link))
    assert res.code == 2
    assert res.err.strip() == (
        f"planner: {link}: --output: is a symbolic link; planner does not write through links "
        "(expected a regular file path)"
    )
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "keep\n"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    assert run_cli("plan", str(P5EN), "-o", str(dangling)).code == 2 and not (tmp_path / "nowhere.json").exists()


# --- item 7: the component provider answers unusable input with INVALID_ARGUMENT and one line each --

UNUSABLE = {
    "infinity": (
        "Trn2Cluster",
        {"availabilityZone": "us-east-2b", "nodeGroups": [{"name": "t", "count": math.inf}]},
        ["nodeGroups[0].count: expected a finite number, got inf"],
    ),
    "a string for a number": (
        "Trn2Cluster",
        {"availabilityZone": "us-east-2b", "nodeGroups": [{"name": "t", "count": "two"}]},
        ["nodeGroups[0].count: expected a whole number, got 'two'"],
    ),
    "a string for a list": (
        "Trn2Cluster",
        {"availabilityZone": "us-east-2b", "nodeGroups": "x"},
        ["nodeGroups: expected a list, got 'x'"],
    ),
    "a string for an object": (
        "Trn2Cluster",
        {"availabilityZone": "us-east-2b", "nodeGroups": [{"name": "t", "count": 2}], "lustre": "big"},
        ["lustre: expected an object (Lustre), got 'big'"],
    ),
    "a missing input": (
        "Trn2Cluster",
        {"availabilityZone": "us-east-2b"},
        ["nodeGroups: missing; expected a value (a required input)"],
    ),
    "several at once": (
        "LustreStorage",
        {
            "lustre": {"deploymentType": "SCRATCH_2", "storageCapacityGib": math.inf},
            "subnetId": 3,
            "securityGroupIds": "sg",
            "availabilityZone": "us-east-2b",
        },
        [
            "lustre.storageCapacityGib: expected a finite number, got inf",
            "subnetId: expected a string, got 3.0",
            "securityGroupIds: expected a list, got 'sg'",
        ],
    ),
}


@pytest.mark.parametrize("case", list(UNUSABLE))
def test_the_provider_answers_unusable_input_with_invalid_argument_and_one_line_each(plugin: Any, case: str) -> None:
    """Infinity was `UNKNOWN` with the Python stack in the details; a string for a number or
    a missing input was `INVALID_ARGUMENT` with an empty message."""
    import grpc

    component, inputs, lines = UNUSABLE[case]
    name = case.replace(" ", "-")
    with pytest.raises(grpc.RpcError) as err:
        construct(plugin, component, name, inputs)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details().splitlines() == [f"{component}('{name}'): {line}" for line in lines]
    details = dict(err.value.trailing_metadata())["grpc-status-details-bin"]
    assert b"Traceback" not in details and b'File "' not in details
    assert all(line.split(":")[0].encode() in details for line in lines)  # each problem names its property


def test_the_provider_answers_an_unknown_component_type_with_invalid_argument(plugin: Any) -> None:
    import grpc

    with pytest.raises(grpc.RpcError) as err:
        construct(plugin, "Nope", "x", {"a": 1})
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details() == (
        "planner:index:Nope: unknown component type; expected one of: planner:index:Trn2Cluster, "
        "planner:index:UltraServerCluster, planner:index:P5enCluster, planner:index:EfaNetwork, "
        "planner:index:LustreStorage"
    )
    assert 'File "' not in err.value.details()


# --- docs/security.md names the test that holds each promise ----------------------------------------


def test_every_test_security_md_names_exists_and_every_test_here_is_named() -> None:
    page = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    named = set(re.findall(r"::(test_\w+)", page))
    here = set(re.findall(r"^def (test_\w+)", Path(__file__).read_text(encoding="utf-8"), re.M))
    for path, name in re.findall(r"`(tests/[\w/]+\.py)::(test_\w+)`", page):
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), (path, name)
        if path != "tests/test_untrusted_pull_requests.py":
            named.discard(name)
    assert named <= here, named - here
    assert here - {"test_every_test_security_md_names_exists_and_every_test_here_is_named"} <= named, here - named
