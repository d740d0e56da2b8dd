"""Same input, same bytes: every `planner plan --format` output is byte-identical run to run.

Reports are committed, diffed in pull requests and uploaded as SARIF; an output that
changes with dict or set order (PYTHONHASHSEED) makes noise in every review. The formats
are read from the CLI's own parser, so a format added later is covered without editing
this file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, run_cli, run_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.stacks import team_stack, ultracluster
from planner.cli import build_parser
from planner.core.catalogue import instance_types as catalogue
from planner.core.model.cluster import LUSTRE_DEPLOYMENTS, PURCHASES

SEEDS = ("0", "1", "4242")


def plan_formats() -> tuple[str, ...]:
    """The choices of `planner plan --format`, as the parser declares them."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    fmt = next(a for a in sub.choices["plan"]._actions if "--format" in a.option_strings)
    return tuple(fmt.choices)


FORMATS = plan_formats()


def test_formats_are_read_from_the_parser() -> None:
    assert "json" in FORMATS and "table" in FORMATS


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled stacks, generated team stacks of every shape, a 98-group UltraServer cluster,
    and a stack with findings and suppressions, in one folder."""
    folder = tmp_path_factory.mktemp("determinism")
    for f in (ROOT / "stacks").glob("Pulumi.*.yaml"):
        (folder / f.name).write_bytes(f.read_bytes())
    for i in range(12):
        (folder / f"Pulumi.team-{i:02d}.yaml").write_text(team_stack(i), encoding="utf-8")
    (folder / "Pulumi.ultracluster.yaml").write_text(ultracluster(100_000).text, encoding="utf-8")
    (folder / "Pulumi.findings.yaml").write_text(
        """config:
  aws:region: us-east-2
  planner:cluster:
    availability_zone: us-east-2a
    node_groups:
      - {name: odd, instance_type: trn2u.48xlarge, count: 6, purchase: capacity-block}
      - {name: spot, instance_type: p5.48xlarge, count: 3, purchase: spot, efa: false, availability_zone: us-east-2c}
      - {name: mixed, instance_type: trn1.32xlarge, count: 5, public_ip: true}
    lustre: {deployment_type: SCRATCH_1, storage_capacity_gib: 1300, efa_enabled: true, availability_zone: us-east-2b}
    workload: {parameters: 405e9, tokens: 15e12, precision: fp8, mfu: 0.9}
    budget: {total_usd: 1000, monthly_usd: 10}
    schedule: {hours: 5000}
    suppress:
      - {rule: placement-group, reason: "Capacity Blocks place instances themselves; \u00e9quipe ML"}
""",
        encoding="utf-8",
    )
    return folder


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_input_twice_in_one_process(corpus: Path, fmt: str) -> None:
    first = run_cli("plan", str(corpus), "--format", fmt)
    second = run_cli("plan", str(corpus), "--format", fmt)
    assert first.code in (0, 1), first.err
    assert first.out and first.out == second.out and first.code == second.code


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_input_across_processes_and_hash_seeds(corpus: Path, fmt: str, tmp_path: Path) -> None:
    """Separate processes with different PYTHONHASHSEED (set and dict-of-str order) agree byte for byte,
    on standard output and in the `--output` file."""
    outs, files = set(), set()
    for seed in SEEDS:
        result = run_process("plan", str(corpus), "--format", fmt, env={"PYTHONHASHSEED": seed})
        assert result.code in (0, 1), result.err
        outs.add(result.out.encode("utf-8"))
        target = tmp_path / f"report-{seed}"
        assert (
            run_process("plan", str(corpus), "--format", fmt, "-o", str(target), env={"PYTHONHASHSEED": seed}).code
            == result.code
        )
        files.add(target.read_bytes())
    assert len(outs) == 1 and len(files) == 1
    assert files == outs


def test_input_errors_are_deterministic_across_hash_seeds(tmp_path: Path) -> None:
    """Problems (exit 2) come out in the same order whatever the hash seed."""
    for i, snippet in enumerate(
        [
            "{nodes: 1, zone: x, budget: {}, lustre: []}",
            "{availability_zone: us-east-9a, node_groups: [{name: A, count: -1, x: 1, y: 2}]}",
        ]
    ):
        (tmp_path / f"Pulumi.bad-{i}.yaml").write_text(
            f"config:\n  aws:region: us-east-2\n  planner:cluster: {snippet}\n", encoding="utf-8"
        )
    errs = {run_process("plan", str(tmp_path), env={"PYTHONHASHSEED": seed}).err for seed in SEEDS}
    assert len(errs) == 1 and next(iter(errs)).count("\n") >= 4


# --- random valid clusters: every format renders them the same way twice ---------------------

_TYPES = sorted(catalogue.load().instance_types)
_GROUP = st.fixed_dictionaries(
    {"instance_type": st.sampled_from(_TYPES), "count": st.integers(1, 200), "purchase": st.sampled_from(PURCHASES)},
    optional={
        "efa": st.booleans(),
        "public_ip": st.booleans(),
        "availability_zone": st.sampled_from(["us-east-2a", "us-east-2c"]),
    },
)
_CLUSTER = st.fixed_dictionaries(
    {"availability_zone": st.just("us-east-2b"), "node_groups": st.lists(_GROUP, min_size=1, max_size=6)},
    optional={
        "placement_group": st.sampled_from(["cluster", "none"]),
        "lustre": st.fixed_dictionaries(
            {
                "deployment_type": st.sampled_from(LUSTRE_DEPLOYMENTS),
                "storage_capacity_gib": st.sampled_from([1200, 2400, 4800, 3600, 1000]),
            }
        ),
        "schedule": st.fixed_dictionaries({"hours": st.integers(1, 5000)}),
        "workload": st.fixed_dictionaries(
            {
                "parameters": st.sampled_from([7e9, 70e9, 405e9]),
                "tokens": st.sampled_from([1e12, 15e12]),
                "mfu": st.floats(0.05, 1.0),
            }
        ),
        "budget": st.fixed_dictionaries({"total_usd": st.integers(1, 10**8)}),
    },
)


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cluster=_CLUSTER)
def test_random_valid_clusters_render_identically(tmp_path: Path, cluster: dict[str, Any]) -> None:
    for i, g in enumerate(cluster["node_groups"]):
        g["name"] = f"g{i}"
    path = tmp_path / "Pulumi.random.yaml"
    path.write_text(
        yaml.safe_dump({"config": {"aws:region": "us-east-2", "planner:cluster": cluster}}), encoding="utf-8"
    )
    for fmt in FORMATS:
        first, second = run_cli("plan", str(path), "--format", fmt), run_cli("plan", str(path), "--format", fmt)
        assert first.code in (0, 1, 2) and "Traceback" not in first.err
        assert (first.code, first.out, first.err) == (second.code, second.out, second.err)
