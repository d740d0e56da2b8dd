"""`python -m bench.bounds`: hostile stack files are refused quickly, and every deadline holds.

The tests check what planner answers (exit 2 and one line for a hostile file, the
deadline's message for a silent AWS endpoint or a hung program); how long that takes
depends on the machine, and a time limit in a test fails on a loaded CI runner rather than
on slow code. So the times are measured here, against the limits the tests used to hold:

- a hostile document (billion laughs, deep nesting, millions of values, the size limit) is
  refused within `QUICK_S` in process, `PROCESS_S` as a separate process;
- `--aws-timeout N` ends a preflight, a live-price plan or a price refresh within a few
  seconds of N whatever AWS does (no answer, a credential process that hangs);
- `--program-timeout 1` stops a program that sleeps for minutes;
- a device or FIFO named as input is refused without being read.

Prints a table; exit 1 if a limit is missed. `make bench` runs it after `python -m bench`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench import hostile
from bench.timing import ROOT, python

QUICK_S = 5.0  # one hostile document refused (or a near-limit valid one planned), in process
MANY_GROUPS_S = 3 * QUICK_S  # 60,000 node groups: parsed up to the value budget first
PROCESS_S = 30.0  # a hostile document as `python -m planner plan FILE` (start-up included)
DEVICES_S = 10.0  # /dev/zero and a FIFO named as input: refused, never read
STACK = "stacks/Pulumi.trn2-dev.yaml"
# --aws-timeout N ends the command within these seconds (N, plus loading boto3 and writing the answer)
DEADLINES = {
    "credential-process": (1, 15.0),
    "preflight-silent": (3, 20.0),
    "live-prices-silent": (1, 20.0),
    "refresh-silent": (1, 10.0),
}
PROGRAM_TIMEOUT_S = 60.0  # --program-timeout 1 on a program that sleeps 120 s
FAKE_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing"}


def _plan_in_process(*argv: str) -> tuple[float, int, str]:
    """Seconds, exit code and stderr of `planner ARGV` run in this process."""
    from planner.cli import main

    err = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return time.perf_counter() - start, code, err.getvalue()


def _row(
    id_: str, seconds: float, limit: float, code: int, expected: tuple[int, ...], err: str = "", needs: str = ""
) -> dict[str, Any]:
    """One measurement judged: within its limit AND with the answer it should give (else FAIL)."""
    answered = code in expected and (not needs or needs in err)
    return {
        "id": id_,
        "seconds": round(seconds, 3),
        "limit_s": limit,
        "exit_code": code,
        "result": "PASS" if seconds < limit and answered else "FAIL",
        **({} if answered else {"wrong_answer": err.strip().splitlines()[-1:] or [f"exit {code}"]}),
    }


def hostile_documents(work: Path) -> list[dict[str, Any]]:
    """Each hostile document of `bench.hostile`, planned once in this process."""
    cases: list[tuple[str, bytes | str, float, tuple[int, ...], str]] = []
    for kind in hostile.BOMB_KINDS:
        for levels, fan in hostile.BOMB_SHAPES:
            cases.append((f"bomb-{kind}-{levels}x{fan}", hostile.laughs(levels, fan, kind), QUICK_S, (2,), "refused"))
    for style in hostile.DEEP_STYLES:
        cases.append((f"deep-{style}-5000", hostile.deep(5000, style), QUICK_S, (2,), ""))
    for name, body in hostile.DENSE.items():
        cases.append((f"dense-{name}", hostile.dense(body), QUICK_S, (2,), "refused"))
    cases.append(("over-the-size-limit", hostile.over_the_size_limit(), QUICK_S, (2,), "expected at most"))
    cases.append(("large-valid-7MiB", hostile.large_valid(), QUICK_S, (0, 1), ""))
    small, large = hostile.MANY_GROUPS
    cases.append((f"node-groups-{small}", hostile.many_groups(small), MANY_GROUPS_S, (0, 1), ""))
    cases.append((f"node-groups-{large}", hostile.many_groups(large), MANY_GROUPS_S, (2,), "refused"))
    rows = []
    for id_, content, limit, expected, needs in cases:
        path = work / "Pulumi.hostile.yaml"
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        seconds, code, err = _plan_in_process("plan", str(path))
        rows.append(_row(id_, seconds, limit, code, expected, err, needs))
    path = work / "Pulumi.process.yaml"
    path.write_text(hostile.laughs(10, 10, "list"), encoding="utf-8")
    seconds, code, err = _process(["plan", str(path)], dict(os.environ, PYTHONPATH=str(ROOT)))
    rows.append(_row("bomb-in-a-process", seconds, PROCESS_S, code, (2,), err, "refused"))
    return rows


def devices(work: Path) -> list[dict[str, Any]]:
    """/dev/zero as the README to update and as a price book, a FIFO as a stack file: refused unread."""
    fifo = work / "Pulumi.fifo.yaml"
    with contextlib.suppress(FileNotFoundError):
        fifo.unlink()
    os.mkfifo(fifo)
    start = time.perf_counter()
    answers = [
        _plan_in_process("rules", "--update-readme", "/dev/zero"),
        _plan_in_process("plan", str(fifo)),
        _plan_in_process("plan", STACK, "--price-book", "/dev/zero"),
    ]
    seconds = time.perf_counter() - start
    codes = {code for _, code, _ in answers}
    return [
        _row(
            "devices-and-fifos",
            seconds,
            DEVICES_S,
            codes.pop() if len(codes) == 1 else -1,
            (2,),
            answers[1][2],
            "not a regular file",
        )
    ]


def _process(args: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        python("-m", "planner", *args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    return time.perf_counter() - start, proc.returncode, proc.stderr + proc.stdout


@contextlib.contextmanager
def silent_endpoint() -> Iterator[str]:
    """A TCP server that accepts connections and never answers (an AWS endpoint gone quiet)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for s in held:
            s.close()
        server.close()


def _aws_env(work: Path, credentials: bool = True, **more: str) -> dict[str, str]:
    """Nothing of the real AWS environment: fake (or no) credentials, a config of our own, no IMDS."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(FAKE_CREDENTIALS if credentials else {})
    env.update(
        AWS_CONFIG_FILE=str(work / "aws-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(work / "aws-credentials"),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_DEFAULT_REGION="us-east-1",
        XDG_CACHE_HOME=str(work / "cache"),
        PYTHONPATH=str(ROOT),
        **more,
    )
    return env


def deadlines(work: Path) -> list[dict[str, Any]]:
    """`--aws-timeout` against AWS that never answers, and `--program-timeout` on a program that sleeps."""
    rows = []
    (work / "aws-config").write_text("[default]\ncredential_process = sleep 30\n", encoding="utf-8")
    n, limit = DEADLINES["credential-process"]
    seconds, code, out = _process(["preflight", STACK, "--aws-timeout", str(n)], _aws_env(work, credentials=False))
    rows.append(_row("credential-process", seconds, limit, code, (2,), out, f"no answer from AWS within {n} s"))
    (work / "aws-config").write_text("", encoding="utf-8")
    with silent_endpoint() as url:
        env = _aws_env(work, AWS_ENDPOINT_URL=url)
        n, limit = DEADLINES["preflight-silent"]
        seconds, code, out = _process(["preflight", STACK, "--aws-timeout", str(n), "--format", "json"], env)
        rows.append(_row("preflight-silent", seconds, limit, code, (1,), out, f"no answer from AWS within {n} s"))
        n, limit = DEADLINES["live-prices-silent"]
        seconds, code, out = _process(
            ["plan", STACK, "--live-prices", "--aws-timeout", str(n), "--format", "json"], env
        )
        rows.append(_row("live-prices-silent", seconds, limit, code, (0, 1), out, "live prices unavailable"))
        n, limit = DEADLINES["refresh-silent"]
        seconds, code, out = _process(
            [
                "prices",
                "refresh",
                "-o",
                str(work / "book.yaml"),
                "--region",
                "us-east-2",
                "--no-capacity-blocks",
                "--aws-timeout",
                str(n),
            ],
            env,
        )
        rows.append(_row("refresh-silent", seconds, limit, code, (1, 2), out, "--aws-timeout"))
    rows.append(_program_timeout(work))
    return rows


def _program_timeout(work: Path) -> dict[str, Any]:
    project = work / "sleeper"
    (project / "stacks").mkdir(parents=True, exist_ok=True)
    (project / "Pulumi.yaml").write_text(
        "name: sleeper\nruntime: python\nmain: app.py\nstackConfigDir: stacks\n", encoding="utf-8"
    )
    (project / "app.py").write_text("import time\ntime.sleep(120)\n", encoding="utf-8")
    (project / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-2\n", encoding="utf-8")
    seconds, code, out = _process(
        ["plan", "--program", str(project), "--stack", "dev", "--program-timeout", "1"],
        dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    return _row("program-timeout", seconds, PROGRAM_TIMEOUT_S, code, (2,), out, "did not finish within 1 s")


def measure(log: Callable[[str], None], aws: bool = True) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="planner-bounds-") as tmp:
        work = Path(tmp)
        log("hostile documents ...")
        rows = hostile_documents(work) + devices(work)
        if aws:
            log("deadlines (boto3, a silent endpoint, a sleeping program) ...")
            rows += deadlines(work)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    width = max(len(r["id"]) for r in rows)
    lines = [f"{'bound':<{width}}  {'seconds':>8}  {'limit':>6}  result"]
    for r in rows:
        wrong = f"  (wrong answer: {r['wrong_answer'][0][:80]})" if "wrong_answer" in r else ""
        lines.append(f"{r['id']:<{width}}  {r['seconds']:>8.3f}  {r['limit_s']:>6g}  {r['result']}{wrong}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bounds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-aws", action="store_true", help="only the hostile documents (no boto3 needed)")
    parser.add_argument("--output", default=None, help="also write the rows as JSON to this file")
    args = parser.parse_args(argv)
    rows = measure(lambda msg: print(msg, file=sys.stderr, flush=True), aws=not args.no_aws)
    sys.stdout.write(table(rows))
    if args.output:
        Path(args.output).write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 1 if any(r["result"] == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
