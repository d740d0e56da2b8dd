"""The benchmark's own parts: generated stacks are what they claim, targets are judged honestly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import run_cli

from bench import run, stacks
from bench.timing import ROOT, Sample


def test_ultracluster_of_100k_chips_is_whole_ultraservers_on_blocks_of_64(tmp_path: Path) -> None:
    u = stacks.ultracluster(100_000)
    # 100,000 chips are 1,562.5 UltraServers of 64 chips: rounded down to whole ones
    assert (u.ultraservers, u.instances, u.chips, u.node_groups) == (1562, 6248, 99_968, 98)
    path = tmp_path / "Pulumi.ultra.yaml"
    path.write_text(u.text, encoding="utf-8")
    result = run_cli("plan", str(path), "--format", "json")
    assert result.code == 0, result.out  # valid: no error finding, so the largest valid cluster
    summary = json.loads(result.out)["stacks"][0]["summary"]
    assert summary["accelerators"] == u.chips and summary["ultraservers"] == u.ultraservers
    sizes = [g["instances"] for g in summary["node_groups"]]
    assert max(sizes) == stacks.BLOCK_MAX_INSTANCES and all(s % 4 == 0 for s in sizes) and len(sizes) == 98


def test_ultracluster_variants_keep_groups_and_shrink_instances() -> None:
    same_groups = stacks.ultracluster(100_000, ultraservers_per_group=1, groups=98)
    assert (same_groups.node_groups, same_groups.instances) == (98, 392)
    assert stacks.ultracluster(100_000, groups=1).instances == 64


def test_generated_team_stacks_are_valid_input(tmp_path: Path) -> None:
    folder = stacks.write_folder(tmp_path / "many", 40)
    assert len(list(folder.glob("Pulumi.gen-*.yaml"))) == 40
    result = run_cli("plan", str(folder), "--format", "json")
    assert result.code in (0, 1), result.err
    types = {s["summary"]["node_groups"][0]["instance_type"] for s in json.loads(result.out)["stacks"]}
    assert len(types) == 4


def test_targets_report_a_miss_as_fail() -> None:
    fast, slow = Sample((0.03, 0.03, 0.03), (0, 0, 0)), Sample((0.2, 0.2, 0.2), (0, 0, 0))
    proc = {
        "floor": fast,
        "dependencies": fast,
        "imports": fast,
        "bundled": slow,
        "ultracluster": fast,
        **{f"stacks-{n}": Sample((11.0,), (0,)) for n in run.COUNTS},
    }
    inproc = {n: Sample((n * 0.001,), (0,)) for n in run.COUNTS}
    u = stacks.ultracluster(100_000)
    mocked = {
        name: {
            "instances": 1,
            "node_groups": 1,
            "plan_exit": 0,
            "resources": r,
            "error": None,
            "program_s": 0.1,
            "process_median_s": 0.5,
        }
        for name, r in (("ultracluster-100k", 7), ("ultracluster-98x1", 5), ("ultracluster-1x16", 2))
    }
    r = run._results(3, 1, ["yaml"], ["pulumi"], proc, inproc, u, fast, mocked)
    results = {t["id"]: t["result"] for t in r["targets"]}
    assert results == {
        "startup-ratio": "FAIL",
        "thousand-stacks": "FAIL",
        "linear": "pass",
        "no-heavy-imports": "FAIL",
        "resources-not-instances": "FAIL",
    }
    assert "FAIL" in run.table(r)
    quadratic = {n: Sample((n * n * 1e-5,), (0,)) for n in run.COUNTS}
    r = run._results(3, 1, ["yaml"], [], proc, quadratic, u, fast, mocked)
    assert {t["id"]: t["result"] for t in r["targets"]}["linear"] == "FAIL"


def test_program_under_mocks_registers_per_group_not_per_instance(tmp_path: Path) -> None:
    """The runner executes the program Pulumi.yaml names in its own process and counts what it
    registers: the same number of resources for 2 groups of 16 UltraServers as for 2 groups of 1."""
    counts = []
    for per_group in (16, 1):
        path = tmp_path / f"Pulumi.us-{per_group}.yaml"
        path.write_text(stacks.ultracluster(100_000, ultraservers_per_group=per_group, groups=2).text, encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "-m", "bench.mocks", str(path)],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["error"] is None and out["program"] == "planner/pulumi_program"
        assert out["resources"] == out["custom_resources"] + out["component_resources"] == sum(out["by_type"].values())
        assert out["by_type"]["aws:autoscaling/group:Group"] == 2
        counts.append(out["resources"])
    assert counts[0] == counts[1]


def test_program_readback_target_is_judged_on_the_whole_process() -> None:
    fast = Sample((0.03, 0.03, 0.03), (0, 0, 0))
    proc = {
        "floor": fast,
        "dependencies": fast,
        "imports": fast,
        "bundled": fast,
        "ultracluster": fast,
        **{f"stacks-{n}": Sample((1.0,), (0,)) for n in run.COUNTS},
    }
    inproc = {n: Sample((n * 0.001,), (0,)) for n in run.COUNTS}
    u = stacks.ultracluster(100_000)
    for seconds, code, verdict in ((2.5, 1, "pass"), (3.2, 0, "FAIL"), (1.0, 2, "FAIL")):
        r = run._results(3, 1, ["yaml"], [], {**proc, "program": Sample((seconds,), (code,))}, inproc, u, fast, {})
        assert {t["id"]: t["result"] for t in r["targets"]}["program-readback"] == verdict
        assert run.PROGRAM in run.table(r)


def test_the_benchmarked_program_is_the_largest_of_the_corpus() -> None:
    """Largest by resources registered: counted from a real run of each corpus program."""
    from planner.runtime.offline_run import collect

    sizes = {}
    for folder in sorted((ROOT / "tests" / "corpus").iterdir()):
        if (folder / "Pulumi.yaml").is_file():
            message = collect(str(folder), "test", str(ROOT))
            sizes[folder.name] = len([r for r in message["resources"] if r["custom"]])
    assert max(sizes, key=sizes.get) == Path(run.PROGRAM).name
