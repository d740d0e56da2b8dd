"""A workload that names its model: the hours come from the step-time model on the declared
topology (docs/runtime-model.md), the cost follows, and what the topology changes is said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.core.catalogue.model_configs import presets
from planner.core.runtime_model.run_prediction import estimate
from planner.core.runtime_model.step import Run
from tests.conftest import run_cli

P5EN = """
availability_zone: us-east-2a
node_groups:
  - name: gpu
    instance_type: p5en.48xlarge
    count: 16
lustre:
  deployment_type: PERSISTENT_2
  storage_capacity_gib: 4800
  per_unit_storage_throughput: 500
workload:
  {workload}
"""


def _plan(path: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    r = run_cli("plan", str(path), "--format", "json", *extra)
    assert r.code in (0, 1), r.out + r.err
    return json.loads(r.out)["stacks"][0]


def _workload(text: str) -> str:
    return text.strip().replace("\n", "\n  ")


def test_a_named_model_gets_its_hours_and_cost_from_the_prediction(stack_file) -> None:  # noqa: ANN001
    path = stack_file(P5EN.format(workload=_workload("model: llama3-70b\ntokens: 1e12")))
    stack = _plan(path)
    rt = stack["run_time"]
    # the same figure the model gives for this cluster: 16 x p5en, Lustre at 4,800 GiB x 500 MB/s/TiB
    expected = estimate(
        presets()["llama3-70b"], "p5en.48xlarge", 16, Run(4096, 1024), 1e12, lustre_mb_s=4800 / 1024 * 500
    )
    assert expected is not None
    assert rt["prediction"]["run_hours"] == round(expected.run_hours, 2)
    assert rt["trained_on"] == "16 x p5en.48xlarge (node group 'gpu')"
    assert rt["sequence_length"] == 4096 and rt["global_batch_tokens"] == 4 * 1024 * 1024
    assert set(rt["prediction"]["layout"]) == {"tp", "pp", "dp", "cp", "ep", "vp", "micro_batch", "fsdp", "recompute"}
    # no measurement on H200: said, with the references the constants come from
    assert rt["prediction"]["extrapolated_from"] and any("extrapolated" in n for n in rt["notes"])
    cost = stack["cost"]
    assert cost["hours_basis"] == "workload" and cost["run_hours"] == pytest.approx(expected.run_hours, abs=1e-3)
    on_demand = next(i for i in cost["line_items"] if i["name"] == "gpu")
    assert on_demand["quantity"] == pytest.approx(16 * expected.run_hours, rel=1e-3)
    table = run_cli("plan", str(path)).out
    assert "run time:" in table and "predicted on 16 x p5en.48xlarge" in table
    md = run_cli("plan", str(path), "--format", "markdown").out
    assert "**Run time:**" in md


def test_a_given_mfu_overrides_the_prediction_with_the_models_own_flops(stack_file) -> None:  # noqa: ANN001
    path = stack_file(P5EN.format(workload=_workload("model: llama3-70b\ntokens: 1e12\nmfu: 0.4")))
    stack = _plan(path)
    assert "run_time" not in stack
    model = presets()["llama3-70b"]
    from planner.core.catalogue.instance_types import load
    from planner.core.cost.training import dense_peak

    per_instance = dense_peak(load().instance_types["p5en.48xlarge"], "bf16")  # the catalogue's PFLOPS
    assert per_instance is not None
    hours = model.model_flops_per_token(4096) * 1e12 / (16 * per_instance * 1e15 * 0.4) / 3600
    assert stack["cost"]["workload_hours"] == pytest.approx(hours, rel=1e-3)


@pytest.mark.parametrize(
    ("workload", "key", "says"),
    [
        ("tokens: 1e12", "planner:cluster.workload", "missing required key 'parameters'; expected `model`"),
        ("model: llama-70b\ntokens: 1e12", "planner:cluster.workload.model", "expected one of deepseek-v3"),
        (
            "model: llama3-70b\ntokens: 1e12\nglobal_batch_tokens: 5000",
            "planner:cluster.workload.global_batch_tokens",
            "expected a multiple of sequence_length (4,096), got 5,000; 4,096 is the nearest below",
        ),
        (
            "parameters: 7e10\nmfu: 0.4\ntokens: 1e12\nsequence_length: 8192",
            "planner:cluster.workload.sequence_length",
            "applies to a workload with `model`",
        ),
        (
            "model: ../../../../etc/secret.json\ntokens: 1e12",
            "planner:cluster.workload.model",
            "expected a preset name or a config.json path inside the repository",
        ),
        ("model: missing.json\ntokens: 1e12", "planner:cluster.workload.model", "cannot read model configuration"),
    ],
)
def test_a_workload_that_cannot_be_read_is_one_line_and_exit_2(stack_file, workload, key, says) -> None:  # noqa: ANN001
    path = stack_file(P5EN.format(workload=_workload(workload)))
    r = run_cli("plan", str(path))
    assert r.code == 2 and "Traceback" not in r.err
    line = next(x for x in r.err.splitlines() if key in x)
    assert str(path.name) in line and says in line


def test_a_config_json_beside_the_stack_file_is_read_as_its_architecture(stack_file, tmp_path: Path) -> None:  # noqa: ANN001
    config = {  # Mistral 7B's published config.json (https://huggingface.co/mistralai/Mistral-7B-v0.1)
        "architectures": ["MistralForCausalLM"],
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 8,
        "vocab_size": 32000,
    }
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    path = stack_file(P5EN.format(workload=_workload("model: models/config.json\ntokens: 1e11")))
    rt = _plan(path)["run_time"]
    assert rt["model"] == "models/config.json" and rt["model_source"].endswith("models/config.json")
    assert rt["prediction"]["tokens_per_second"] > 0


def test_a_model_too_large_for_the_cluster_is_found_with_the_count_that_fits(stack_file) -> None:  # noqa: ANN001
    small = P5EN.replace("count: 16", "count: 1")
    path = stack_file(small.format(workload=_workload("model: llama3.1-405b\ntokens: 1e12")))
    stack = _plan(path)
    assert stack["run_time"]["unfit"].startswith("llama3.1-405b (")
    assert stack["cost"]["run_hours"] is None  # no hours: rates only, never a made-up figure
    found = next(f for f in stack["findings"] if f["rule"] == "workload-memory")
    assert found["path"] == "planner:cluster.workload.model"
    (edit,) = found["fix"]["edits"]
    assert (edit["path"], edit["op"]) == ("planner:cluster.node_groups[0].count", "set")
    count = edit["value"]
    # the fix's count fits, one fewer (whole instances) does not
    fits = _plan(
        stack_file(
            P5EN.replace("count: 16", f"count: {count}").format(
                workload=_workload("model: llama3.1-405b\ntokens: 1e12")
            ),
            name="fits",
        )
    )
    assert "prediction" in fits["run_time"]
    short = _plan(
        stack_file(
            P5EN.replace("count: 16", f"count: {count - 1}").format(
                workload=_workload("model: llama3.1-405b\ntokens: 1e12")
            ),
            name="short",
        )
    )
    assert "prediction" not in short["run_time"]


def test_an_ultraserver_says_what_its_link_changes_against_separate_instances(stack_file) -> None:  # noqa: ANN001
    ultra = """
availability_zone: us-east-2b
node_groups:
  - name: ultra
    instance_type: trn2u.48xlarge
    ultraservers: 4
    purchase: capacity-block
workload:
  model: llama3.1-405b
  tokens: 1e12
  sequence_length: 8192
  global_batch_tokens: 8388608
"""
    rt = _plan(stack_file(ultra))["run_time"]
    model, run = presets()["llama3.1-405b"], Run(8192, 1024)
    together = estimate(model, "trn2u.48xlarge", 16, run, 1e12, ultraserver="u-trn2x64")
    apart = estimate(model, "trn2u.48xlarge", 16, run, 1e12)
    assert together is not None and apart is not None
    assert rt["prediction"]["run_hours"] == round(together.run_hours, 2)
    note = next(n for n in rt["notes"] if "u-trn2x64" in n)
    if abs(apart.run_hours / together.run_hours - 1) <= 0.01:
        assert "changes nothing here" in note
    else:
        assert f"{apart.run_hours:,.1f} h" in note


def test_the_pull_request_comment_draws_the_run_before_and_after(tmp_path: Path) -> None:
    """A change from 16 to 32 p5en: the comment says each side's predicted run and draws both
    against cost, the schedule and budget as the chart's lines."""
    for side, count in (("base", 16), ("head", 32)):
        (tmp_path / side).mkdir()
        body = P5EN.replace("count: 16", f"count: {count}").format(
            workload=_workload("model: llama3-70b\ntokens: 1e12")
        )
        body += "schedule:\n  hours: 2000\nbudget:\n  total_usd: 3000000\n"
        text = "\n".join("    " + x if x.strip() else x for x in body.strip("\n").splitlines())
        (tmp_path / side / "Pulumi.train.yaml").write_text(
            f"config:\n  aws:region: us-east-2\n  planner:cluster:\n{text}\n", encoding="utf-8"
        )
    r = run_cli("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--format", "markdown")
    assert r.code in (0, 1), r.err
    assert "- Run time before: " in r.out and "- Run time after: " in r.out
    block = r.out.split("```mermaid\nquadrantChart\n")[1].split("```")[0]
    assert '"before": [' in block and '"after": [' in block and '"4,000 h"' in block
    assert "the vertical line is the deadline, 2,000 h; the horizontal line the budget, $3,000,000.00" in r.out


def test_a_component_declared_with_a_model_gets_the_same_predicted_cost(
    stack_file, isolated_aws, moto, monkeypatch
) -> None:  # noqa: ANN001
    """The components take `WorkloadArgs(model=..., tokens=...)` and plan it with the same code: the
    cost they output is the stack file's, on the hours predicted for the same topology."""
    from typing import Any

    from planner.components import ClusterArgs, P5enCluster
    from planner.components.args import NodeGroupArgs, WorkloadArgs
    from planner.core.input.stack_files import load_stack
    from planner.core.planning.pipeline import plan_stack
    from planner.runtime import declared_clusters as registry
    from planner.testing import MotoMocks, run

    path = stack_file(
        "availability_zone: us-east-2a\nnode_groups:\n  - name: gpu\n    instance_type: p5en.48xlarge\n"
        "    count: 16\nworkload:\n  model: llama3-70b\n  tokens: 1e12\n"
    )
    stack = load_stack(str(path))
    args = ClusterArgs.from_model(stack.cluster)
    assert args.workload == WorkloadArgs(tokens=1e12, model="llama3-70b")
    seen: dict[str, Any] = {}
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    registry.reset()

    def declare() -> None:
        c = P5enCluster(
            "train",
            ClusterArgs(
                availability_zone="us-east-2a",
                node_groups=[NodeGroupArgs("gpu", count=16)],
                workload=WorkloadArgs(tokens=1e12, model="llama3-70b"),
            ),
        )
        c.cost.apply(lambda s: seen.__setitem__("cost", s))

    run(declare, MotoMocks("us-east-2"))
    expected = plan_stack(stack).cost
    assert expected is not None and expected.hours_basis == "workload"
    assert seen["cost"]["run_hours"] == expected.to_json()["run_hours"]
    assert seen["cost"]["total_usd"] == expected.to_json()["total_usd"]


def test_a_gpt2_style_config_is_read_with_its_two_matrix_ffn_and_tied_embeddings() -> None:
    """GPT-2 XL's published config.json (https://huggingface.co/openai-community/gpt2-xl): 48 layers of
    1,600, 25 heads, n_inner unset (4 x 1,600), GELU between two matrices, the output layer tied to the
    embedding; Hugging Face and OpenAI give it 1.5B parameters (1.558B with the position embeddings
    this count leaves out)."""
    from msgspec.structs import replace

    from planner.core.catalogue.model_configs import from_hf_config

    config = {"model_type": "gpt2", "n_layer": 48, "n_embd": 1600, "n_head": 25, "vocab_size": 50257}
    m = from_hf_config("gpt2-xl.json", config)
    assert (m.layers, m.hidden, m.heads, m.ffn) == (48, 1600, 25, 6400)
    assert not m.gated_ffn and m.tied_embeddings
    per_layer = 4 * 1600 * 1600 + 2 * 1600 * 6400  # Q, K, V, O and the two FFN matrices
    assert m.total_params() == 48 * per_layer + 50257 * 1600
    assert 1.5e9 < m.total_params() < 1.56e9
    gated = replace(m, gated_ffn=True)  # the same shapes with SwiGLU's third matrix cost more to train
    assert gated.model_flops_per_token(1024) > m.model_flops_per_token(1024)
    e = estimate(m, "p5.48xlarge", 1, Run(1024, 512), 1e10)
    g = estimate(gated, "p5.48xlarge", 1, Run(1024, 512), 1e10)
    assert e is not None and g is not None and e.run_hours < g.run_hours


def test_a_program_plans_a_workload_model_like_the_stack_file(tmp_path: Path) -> None:
    """The components' program (its clusters cross the process boundary as JSON, the model with them)
    and a hand-written program whose stack config holds the workload: both predicted as the stack file is."""
    from tests.test_program_plan import HAND_WRITTEN, project

    cluster = P5EN.format(workload=_workload("model: llama3-70b\ntokens: 1e12"))
    (tmp_path / "file").mkdir()
    (tmp_path / "file" / "Pulumi.dev.yaml").write_text(
        "config:\n  aws:region: us-east-2\n  planner:cluster:\n"
        + "".join(f"    {line}\n" for line in cluster.strip().splitlines()),
        encoding="utf-8",
    )
    expected = _plan(tmp_path / "file" / "Pulumi.dev.yaml")["run_time"]["prediction"]
    (tmp_path / "components").mkdir()
    (tmp_path / "hand").mkdir()
    d = project(tmp_path / "components", cluster)
    r = run_cli("plan", "--program", str(d), "--stack", "dev", "--format", "json")
    assert r.code in (0, 1), r.err
    (stack,) = json.loads(r.out)["stacks"]
    assert stack["run_time"]["prediction"] == expected
    hand = project(tmp_path / "hand", "workload:\n  model: llama3-70b\n  tokens: 1e12\n", main=HAND_WRITTEN)
    r = run_cli("plan", "--program", str(hand), "--stack", "dev", "--format", "json")
    assert r.code in (0, 1), r.err
    (stack,) = json.loads(r.out)["stacks"]
    assert stack["run_time"]["model"] == "llama3-70b" and stack["cost"]["hours_basis"] == "workload"
    assert stack["cost"]["run_hours"] == pytest.approx(stack["run_time"]["prediction"]["run_hours"], abs=0.01)
