"""`planner plan`: exit codes, the JSON contract, and the summary arithmetic."""

from __future__ import annotations

import json

from planner.core.catalogue.instance_types import load
from tests.conftest import run_cli, run_process

CAT = load()


def test_plan_bundled_stacks_json_shape():
    res = run_cli("plan", "--format", "json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["version"] == 2 and data["command"] == "plan" and data["problems"] == []
    names = [s["stack"] for s in data["stacks"]]
    assert names == sorted(names) and {"trn2-dev", "ultraserver-prod", "p5en-train"} <= set(names)
    for s in data["stacks"]:
        assert set(s) == {"stack", "file", "region", "summary", "findings", "cost", "topology"}
        assert s["file"].startswith("stacks/Pulumi.")
        assert set(s["summary"]["peak_pflops"]) == {"bf16_dense", "fp8_dense", "fp8_sparse"}


def test_ultraserver_summary_is_catalogue_arithmetic():
    data = json.loads(run_cli("plan", "--format", "json", "stacks/Pulumi.ultraserver-prod.yaml").out)
    s = data["stacks"][0]["summary"]
    t = CAT.instance_types["trn2u.48xlarge"]
    assert (s["instances"], s["ultraservers"], s["accelerators"]) == (16, 4, 16 * t.accelerator_count)
    assert s["accelerator_memory_gib"] == 16 * t.accelerator_count * t.accelerator.memory_gib
    assert s["efa_bandwidth_gbps"] == 16 * t.network_bandwidth_gbps
    assert s["neuron_cores"] == 16 * t.neuron_cores
    for p in ("bf16_dense", "fp8_dense", "fp8_sparse"):
        assert s["peak_pflops"][p] == round(16 * t.peak_pflops(p), 3)


def test_mixed_cluster_without_sparse_figure_reports_null(stack_file):
    path = stack_file(
        "availability_zone: us-east-1a\nnode_groups:\n  - {name: a, instance_type: trn1.32xlarge, count: 2}\n"
        "  - {name: b, instance_type: p5.48xlarge, count: 1}",
        region="us-east-1",
    )
    s = json.loads(run_cli("plan", "--format", "json", str(path)).out)["stacks"][0]["summary"]
    assert s["peak_pflops"]["fp8_sparse"] is None  # Trainium publishes no sparse figure: never guess
    assert s["accelerators"] == 2 * 16 + 8


def test_table_output_names_every_stack():
    res = run_cli("plan")
    assert res.code == 0
    for name in ("trn2-dev", "ultraserver-prod", "p5en-train"):
        assert f"Stack {name}" in res.out
    assert "peak PFLOPS: BF16 dense" in res.out


def test_invalid_input_exits_2_and_writes_only_the_problems(stack_file, tmp_path):
    path = stack_file(
        "availability_zone: us-east-2b\nnode_groups:\n  - {name: a, instance_type: trn2.48xlarge, count: -1}"
    )
    out = tmp_path / "report.json"
    res = run_cli("plan", "--format", "json", "-o", str(out), str(path))
    assert res.code == 2 and res.out == ""
    assert json.loads(out.read_text(encoding="utf-8"))["problems"] == [  # no plan: the report of the problem
        {
            "file": str(path),
            "line": 6,
            "key": "planner:cluster.node_groups[0].count",
            "message": "expected a positive integer, got -1",
        }
    ]
    assert res.err.strip().splitlines() == [
        f"planner: {path}:6: planner:cluster.node_groups[0].count: expected a positive integer, got -1"
    ]


def test_missing_path_and_empty_folder(tmp_path):
    res = run_cli("plan", str(tmp_path / "nope"))
    assert res.code == 2 and "no such file or folder" in res.err
    res = run_cli("plan", str(tmp_path))
    assert res.code == 2 and "no stack files" in res.err


def test_usage_error_exits_2_in_one_line():
    res = run_cli("plan", "--format", "yaml")
    assert res.code == 2 and "invalid choice" in res.err and "Traceback" not in res.err


def test_as_a_process_output_is_identical_and_deterministic():
    first = run_process("plan", "--format", "json", "stacks")
    second = run_process("plan", "--format", "json", "stacks")
    assert first.code == 0 and first.out == second.out
    assert first.out == run_cli("plan", "--format", "json", "stacks").out


def test_bad_file_as_a_process_has_no_traceback(tmp_path):
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_bytes(b"config:\n  aws:region: [\x00\n")
    res = run_process("plan", str(bad))
    assert res.code == 2 and "Traceback" not in res.err and str(bad) in res.err


def test_unwritable_output_is_one_line_exit_2(tmp_path):
    target = tmp_path / "missing" / "report.json"
    res = run_process("plan", "--format", "json", "-o", str(target), "stacks")
    assert res.code == 2 and "Traceback" not in res.err, res.err
    (line,) = res.err.strip().splitlines()
    assert line.startswith(f"planner: {target}: --output: cannot write: ") and line.endswith(
        "expected a writable file path"
    )
    # a folder is refused before anything is planned (issue 21, item 6; tests/test_untrusted_pull_requests.py)
    res = run_process("plan", "--format", "json", "-o", str(tmp_path), "stacks")
    assert res.code == 2 and res.err.strip() == f"planner: {tmp_path}: --output: is a folder; expected a file path"


def test_a_stack_named_twice_is_planned_once():
    res = run_cli("plan", "--format", "json", "stacks/Pulumi.trn2-dev.yaml", "stacks", "./stacks/Pulumi.trn2-dev.yaml")
    assert res.code == 0, res.err
    files = [s["file"] for s in json.loads(res.out)["stacks"]]
    assert files[0] == "stacks/Pulumi.trn2-dev.yaml"
    assert sorted(s.rsplit("/", 1)[1] for s in files) == [
        "Pulumi.p5en-train.yaml",
        "Pulumi.trn2-dev.yaml",
        "Pulumi.ultraserver-prod.yaml",
    ]
