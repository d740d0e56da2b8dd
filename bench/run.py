"""The benchmark run: every figure measured in one session, then a table and results.json.

Targets (issues 8 and 23): the bundled-stack plan within 3x the `python -c pass` floor (in this
checkout's virtualenv and from the installed wheel, `bench.speed`), in-process JSON planning
at most 0.6 ms a stack, 1,000 stacks in under 10 seconds, per-stack time that does not grow
with the count, no pulumi/boto3 at CLI start-up, and Pulumi resources that grow with node
groups, not with instances.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import run_time, speed, stacks, startup, wheel
from bench.speed import target as _target
from bench.timing import ROOT, WORK, Sample, environment, python, side_by_side
from bench.wheel import DEPENDENCIES
from planner.core.model.cluster import Stack

MOCKS_MODULE = "bench.mocks"
FLOOR_RATIO_MAX = (
    2.0  # over the imports alone, in this checkout's virtualenv (its editable finder in both); the wheel: bench.speed
)
THOUSAND_STACKS_MAX_S = 10.0
LINEAR_GROWTH_MAX = 1.5  # per-stack time at one count over the previous count (10 -> 100 -> 1,000)
COUNTS = (10, 100, 1000)
CHIPS = 100_000
_BUNDLED = "stacks"
MOCKS_TIMEOUT_S = 600
# `planner plan --program` on the largest corpus program (most resources: 32 EFA interfaces, 2 instances)
PROGRAM = "tests/corpus/instances-p5en-efa-enis"
PROGRAM_MAX_S = 3.0


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model or platform.processor(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }


def _in_process(argvs: dict[Any, list[str]], runs: int, repeat: dict[Any, int]) -> dict[Any, Sample]:
    """Seconds of each `planner ARGV` run in this process, round-robin like the processes.

    Arguments are parsed once, then the command itself is timed: start-up, imports and
    building the argument parser are left out, so what remains grows with the input.
    Each sample is the mean of `repeat[k]` back-to-back runs, so that small inputs (10
    stacks, a few milliseconds) are timed long enough to rise above the clock's noise.
    """
    from planner.cli import build_parser

    parsed = {k: build_parser().parse_args(argv) for k, argv in argvs.items()}
    seconds: dict[Any, list[float]] = {k: [] for k in argvs}
    codes: dict[Any, list[int]] = {k: [] for k in argvs}
    for i in range(runs + 1):  # the first round warms caches (catalogue, price book, rules) and is dropped
        for k, args in parsed.items():
            start = time.perf_counter()
            for _ in range(repeat[k]):
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    code = args.run(args)
            if i:
                seconds[k].append((time.perf_counter() - start) / repeat[k])
                codes[k].append(code)
    return {k: Sample(tuple(seconds[k]), tuple(codes[k])) for k in argvs}


def _plan_exit(path: Path) -> int:
    from planner.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(["plan", str(path), "--format", "json"])


def _mocks(file: Path, runs: int, env: dict[str, str], moto: bool = False) -> dict[str, Any]:
    """The program under mocks for one stack, `runs` times in fresh processes; medians."""
    outs, walls = [], []
    for _ in range(runs):
        start = time.perf_counter()
        cmd = python("-m", MOCKS_MODULE, str(file), *(["--moto"] if moto else []))
        try:
            proc = subprocess.run(
                cmd, cwd=ROOT, env=env, check=False, capture_output=True, text=True, timeout=MOCKS_TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {MOCKS_TIMEOUT_S} s"}
        walls.append(time.perf_counter() - start)
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return {"error": f"exit {proc.returncode}: {tail}"}
        outs.append(json.loads(proc.stdout))
    first = outs[0]
    if any(o["resources"] != first["resources"] for o in outs):
        first["error"] = f"resource count varied between runs: {[o['resources'] for o in outs]}"
    first["program_s"] = round(statistics.median(o["program_s"] for o in outs), 4)
    first["process_median_s"] = round(statistics.median(walls), 4)
    first["runs"] = runs
    return first


def largest_valid(mocked: dict[str, dict[str, Any]]) -> str | None:
    """The candidate with the most instances that plans without error findings and runs under mocks."""
    valid = [k for k, v in mocked.items() if v.get("plan_exit") == 0 and not v.get("error")]
    return max(valid, key=lambda k: (mocked[k]["instances"], k)) if valid else None


def measure(runs: int, mock_runs: int, log: Callable[[str], None]) -> dict[str, Any]:
    env = environment()
    load_at_start = round(os.getloadavg()[0], 2)  # a shared machine: say how busy it was
    WORK.mkdir(parents=True, exist_ok=True)
    log("generating stacks ...")
    ultra = stacks.ultracluster(CHIPS)
    ultra_file = WORK / "ultracluster" / "Pulumi.ultracluster-100k.yaml"
    ultra_file.parent.mkdir(parents=True, exist_ok=True)
    ultra_file.write_text(ultra.text, encoding="utf-8")
    folders = {n: stacks.write_folder(WORK / f"stacks-{n}", n) for n in COUNTS}

    log("start-up: which modules `planner plan` imports (-X importtime) ...")
    floor_modules = startup.imported_modules(["-c", "pass"], env, str(ROOT))
    plan_modules = startup.imported_modules(["-m", "planner", "plan", _BUNDLED], env, str(ROOT))
    deps = startup.third_party(plan_modules, floor_modules)

    commands = {
        "floor": python("-c", "pass"),
        "dependencies": python("-c", "import " + ", ".join(deps) if deps else "pass"),
        "imports": python("-c", wheel.DEPENDENCIES),
        "bundled": python("-m", "planner", "plan", _BUNDLED),
        "ultracluster": python("-m", "planner", "plan", str(ultra_file)),
        **{f"stacks-{n}": python("-m", "planner", "plan", str(folders[n])) for n in COUNTS},
        "program": python("-m", "planner", "plan", "--program", PROGRAM, "--stack", "test", "--format", "json"),
    }
    log(f"timing {len(commands)} commands side by side, {runs} runs each ...")
    proc = side_by_side(commands, runs, env)
    log("the wheel: built, installed into a fresh virtualenv, timed side by side ...")
    where = wheel.install()
    wheel_proc = side_by_side(
        wheel.commands(where, ROOT / _BUNDLED), runs, wheel.user_environment(), cwd=wheel.WHEEL_WORK
    )

    log("in-process plan times (start-up excluded) ...")
    timed = _in_process(
        {
            **{n: ["plan", str(folders[n]), "-o", os.devnull] for n in COUNTS},
            "ultracluster": ["plan", str(ultra_file), "-o", os.devnull],
            "json": ["plan", str(folders[COUNTS[-1]]), "--format", "json", "-o", os.devnull],
        },
        runs,
        {**{n: COUNTS[-1] // n for n in COUNTS}, "ultracluster": 1, "json": 1},
    )
    ultra_inproc = timed.pop("ultracluster")
    json_inproc = timed.pop("json")
    inproc = timed

    log("run-time predictions and compare --model ...")
    run_times = run_time.measure(runs, env)

    log("Pulumi program under mocks ...")
    variants = {
        "ultracluster-100k": ultra,
        "ultracluster-98x1": stacks.ultracluster(CHIPS, ultraservers_per_group=1, groups=ultra.node_groups),
        "ultracluster-1x16": stacks.ultracluster(CHIPS, groups=1),
    }
    mock_files: dict[str, tuple[Path, dict[str, int]]] = {}
    bundled: list[str] = []
    for name, u in variants.items():
        f = WORK / "ultracluster" / f"Pulumi.{name}.yaml"
        f.write_text(u.text, encoding="utf-8")
        mock_files[name] = (f, u.describe())
    for f in sorted((ROOT / _BUNDLED).glob("Pulumi.*.yaml")):
        s = _load(f)
        bundled.append(s.name)
        mock_files[s.name] = (
            f,
            {"instances": sum(g.count for g in s.cluster.node_groups), "node_groups": len(s.cluster.node_groups)},
        )
    mocked = {}
    for name, (f, shape) in mock_files.items():
        mocked[name] = {**shape, "plan_exit": _plan_exit(f), **_mocks(f, mock_runs, env)}
    moto_names = dict.fromkeys(n for n in (largest_valid(mocked), largest_valid({k: mocked[k] for k in bundled})) if n)
    log(f"Pulumi program under moto-backed mocks: {', '.join(moto_names)} (one run each) ...")
    moto = {n: {**mock_files[n][1], **_mocks(mock_files[n][0], 1, env, moto=True)} for n in moto_names}
    results = _results(
        runs,
        mock_runs,
        deps,
        startup.heavy(plan_modules),
        proc,
        inproc,
        ultra,
        ultra_inproc,
        mocked,
        moto,
        wheel_proc,
        json_inproc,
        run_times,
    )
    results["machine"]["load_average_1m_at_start"] = load_at_start
    return results


def _load(f: Path) -> Stack:
    from planner.core.input.stack_files import load_stack

    return load_stack(str(f))


def _results(
    runs: int,
    mock_runs: int,
    deps: list[str],
    heavy: list[str],
    proc: dict[str, Sample],
    inproc: dict[int, Sample],
    ultra: stacks.Ultracluster,
    ultra_inproc: Sample,
    mocked: dict[str, dict[str, Any]],
    moto: dict[str, dict[str, Any]] | None = None,
    wheel_proc: dict[str, Sample] | None = None,
    json_inproc: Sample | None = None,
    run_times: dict[str, Any] | None = None,
) -> dict[str, Any]:
    ratio = proc["bundled"].median / proc["imports"].median
    per_stack = {n: inproc[n].median / n for n in COUNTS}
    # linear: the time per stack does not rise as the count does (a quadratic step would
    # multiply it by ten from one count to the next)
    growth = max(per_stack[b] / per_stack[a] for a, b in itertools.pairwise(COUNTS))
    thousand = proc[f"stacks-{COUNTS[-1]}"]
    largest = largest_valid(mocked)
    a, b, c = (mocked.get(k, {}) for k in ("ultracluster-100k", "ultracluster-98x1", "ultracluster-1x16"))
    counted = all("resources" in m and not m.get("error") for m in (a, b, c))
    grows_with_instances = None if not counted or a["resources"] == 0 else a["resources"] != b["resources"]
    targets = [
        _target(
            "startup-ratio",
            f'bundled-stack plan within {FLOOR_RATIO_MAX:g}x `python -c "{wheel.DEPENDENCIES}"` (this checkout\'s virtualenv)',
            round(ratio, 2),
            f"<= {FLOOR_RATIO_MAX}",
            ratio <= FLOOR_RATIO_MAX and set(proc["bundled"].exit_codes) <= {0, 1},
        ),
        _target(
            "thousand-stacks",
            "1,000 stacks planned in under 10 s (whole process)",
            round(thousand.median, 3),
            f"< {THOUSAND_STACKS_MAX_S} s",
            thousand.median < THOUSAND_STACKS_MAX_S and set(thousand.exit_codes) <= {0, 1},
        ),
        _target(
            "linear",
            "time per stack does not grow from 10 to 100 to 1,000 stacks (largest step ratio)",
            round(growth, 2),
            f"<= {LINEAR_GROWTH_MAX}",
            growth <= LINEAR_GROWTH_MAX,
        ),
        _target("no-heavy-imports", "`planner plan` imports no pulumi, boto3 or botocore", heavy, "none", not heavy),
        _target(
            "resources-not-instances",
            "Pulumi resources grow with node groups, not instances (98 groups of 16 vs 98 groups of 1 UltraServer)",
            None if not counted else [a["resources"], b["resources"]],
            "equal",
            None if grows_with_instances is None else not grows_with_instances,
        ),
    ]
    if "program" in proc:
        p = proc["program"]
        targets.append(
            _target(
                "program-readback",
                f"`planner plan --program {PROGRAM}` (read back from its resources) "
                f"in under {PROGRAM_MAX_S:g} s (whole process)",
                round(p.median, 3),
                f"< {PROGRAM_MAX_S:g} s",
                p.median < PROGRAM_MAX_S and set(p.exit_codes) <= {0, 1},
            )
        )
    targets += speed.targets(wheel_proc, json_inproc, COUNTS[-1])
    if run_times is not None:
        targets += run_time.targets(run_times)
    return {
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "runs": runs,
        "mock_runs": mock_runs,
        "timing": "median wall-clock seconds of whole processes run round-robin after one warm-up each; "
        "bytecode cached; in-process times exclude interpreter start-up and imports; per_stack_ms is "
        "the in-process time for N stacks over N",
        "startup": {
            "floor_python_c_pass": proc["floor"].to_json(),
            "dependencies": {"modules": deps, **proc["dependencies"].to_json()},
            "imports": proc["imports"].to_json() if "imports" in proc else None,
            "bundled_plan": proc["bundled"].to_json(),
            "ratio_to_floor": round(proc["bundled"].median / proc["floor"].median, 2),
            "ratio_to_imports": round(ratio, 2),
            "heavy_modules_imported": heavy,
        },
        "ultracluster": {
            **ultra.describe(),
            "process": proc["ultracluster"].to_json(),
            "in_process": ultra_inproc.to_json(),
        },
        "many_stacks": {
            str(n): {
                "process": proc[f"stacks-{n}"].to_json(),
                "in_process": inproc[n].to_json(),
                "per_stack_ms": round(per_stack[n] * 1000, 3),
            }
            for n in COUNTS
        },
        "pulumi_mocks": {"stacks": mocked, "largest_valid": largest, "moto": moto or {}},
        **({"program": {"path": PROGRAM, "process": proc["program"].to_json()}} if "program" in proc else {}),
        **speed.results(wheel_proc, json_inproc, COUNTS[-1]),
        **({"run_time": run_times} if run_times is not None else {}),
        "targets": targets,
    }


def table(r: dict[str, Any]) -> str:
    from planner.core.text.terminal import Term, fit, grid

    s, u = r["startup"], r["ultracluster"]
    rows = [
        ("python -c pass (floor)", f"{s['floor_python_c_pass']['median_s']:.3f}", ""),
        (
            f"python -c 'import {', '.join(s['dependencies']['modules']) or 'nothing'}'",
            f"{s['dependencies']['median_s']:.3f}",
            "",
        ),
        *(
            [(f"python -c '{DEPENDENCIES.removeprefix('import ')}' imported", f"{s['imports']['median_s']:.3f}", "")]
            if s.get("imports")
            else []
        ),
        (
            "planner plan stacks (3 bundled)",
            f"{s['bundled_plan']['median_s']:.3f}",
            f"{s['ratio_to_floor']}x floor, {s['ratio_to_imports']}x the imports",
        ),
        (
            f"planner plan: {u['chips']:,} Trainium2 chips ({u['instances']:,} instances, {u['node_groups']} groups)",
            f"{u['process']['median_s']:.3f}",
            f"in-process {u['in_process']['median_s']:.3f} s",
        ),
    ]
    for n in map(str, COUNTS):
        m = r["many_stacks"][n]
        rows.append(
            (
                f"planner plan: {int(n):,} generated stacks",
                f"{m['process']['median_s']:.3f}",
                f"in-process {m['per_stack_ms']:.2f} ms per stack",
            )
        )
    rows += speed.rows(r)
    if "program" in r:
        rows.append(
            (
                f"planner plan --program {r['program']['path']}",
                f"{r['program']['process']['median_s']:.3f}",
                "read back from the program's resources; the program runs in a child process",
            )
        )
    for kind, stacks_ in (("mocks", r["pulumi_mocks"]["stacks"]), ("moto-backed mocks", r["pulumi_mocks"]["moto"])):
        for name, m in stacks_.items():
            label = f"Pulumi program under {kind}: {name}"
            if m.get("error") and "resources" not in m:
                rows.append((label, "-", f"{m['instances']:,} instances in {m['node_groups']} groups; {m['error']}"))
                continue
            note = f"{m['resources']} resources for {m['instances']:,} instances in {m['node_groups']} groups"
            note += f"; program {m['program_s']:.3f} s" + (
                "" if m.get("plan_exit", 0) == 0 else f"; plan exit {m['plan_exit']}"
            )
            note += f"; {m['error']}" if m.get("error") else ""
            rows.append((label, f"{m['process_median_s']:.3f}", note))
    m = r["machine"]
    lines = [
        (
            f"planner benchmarks, {r['date']}, {m['cpus']} CPUs ({m['cpu_model']}), Python {m['python']}, "
            f"load average {m.get('load_average_1m_at_start', '?')} at start, {m['load_average_1m_at_end']} at end; "
            f"medians of {r['runs']} runs ({r['mock_runs']} under mocks, 1 under moto)"
        ),
        "",
    ]
    lines += grid(("measurement", "seconds", "notes"), rows, right=(1,), width=None)
    lines += [
        "",
        *grid(
            ("target", "measured", "limit", "result"),
            [(t["target"], json.dumps(t["measured"]), t["limit"], t["result"]) for t in r["targets"]],
            width=None,
        ),
    ]
    largest = r["pulumi_mocks"]["largest_valid"]
    lines += ["", f"Largest valid cluster under mocks: {largest or 'none (every candidate had error findings)'}."]
    return "\n".join(fit(lines, Term(wide=True))) + "\n"  # a file for docs/benchmarks.md: rows kept whole


def main(runs: int, mock_runs: int, output: str | None) -> int:
    results = measure(runs, mock_runs, lambda msg: print(msg, file=sys.stderr, flush=True))
    out = Path(output) if output else ROOT / "bench" / "results.json"
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    sys.stdout.write(table(results))
    print(f"written: {out}", file=sys.stderr)
    return 1 if any(t["result"] == "FAIL" for t in results["targets"]) else 0
