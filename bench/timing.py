"""Wall-clock timing of whole processes, measured side by side.

Commands are run round-robin (a, b, c, a, b, c, ...) after one warm-up each, so a burst
of load on a shared machine slows every command alike instead of skewing one figure;
the median of the runs is reported with the minimum and maximum beside it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".work"


@dataclass(frozen=True)
class Sample:
    """Seconds of `runs` runs of one command, and the exit codes it returned."""

    seconds: tuple[float, ...]
    exit_codes: tuple[int, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    def to_json(self) -> dict[str, object]:
        return {
            "median_s": round(self.median, 4),
            "min_s": round(min(self.seconds), 4),
            "max_s": round(max(self.seconds), 4),
            "runs": len(self.seconds),
            "exit_codes": sorted(set(self.exit_codes)),
        }


def environment() -> dict[str, str]:
    """The environment users have: bytecode cached (kept under bench/.work, not beside the sources).

    A shell that sets PYTHONDONTWRITEBYTECODE would make every run recompile planner from
    source, which no installed package does; the benchmark measures the installed case.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(WORK / "pycache")
    env["PYTHONPATH"] = str(ROOT)
    return env


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def run_once(cmd: Sequence[str], env: Mapping[str, str], cwd: Path = ROOT) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(
        list(cmd), cwd=cwd, env=dict(env), check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start, proc.returncode


def side_by_side(
    commands: Mapping[str, Sequence[str]], runs: int, env: Mapping[str, str] | None = None, cwd: Path = ROOT
) -> dict[str, Sample]:
    """Median-ready samples of each command, run round-robin after one warm-up each."""
    env = env or environment()
    for cmd in commands.values():
        run_once(cmd, env, cwd)
    times: dict[str, list[float]] = {k: [] for k in commands}
    codes: dict[str, list[int]] = {k: [] for k in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            seconds, code = run_once(cmd, env, cwd)
            times[name].append(seconds)
            codes[name].append(code)
    return {k: Sample(tuple(times[k]), tuple(codes[k])) for k in commands}
