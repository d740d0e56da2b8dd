"""The step-time model (planner/core/runtime_model): shapes to parameters and FLOPs, the topology's
effect on the step, memory, the layout search and the checkpoint term."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from msgspec.structs import replace

from planner.core.catalogue.instance_types import load
from planner.core.catalogue.model_configs import ModelError, from_hf_config, presets, resolve
from planner.core.document import codec
from planner.core.runtime_model import calibration, checkpoint, hardware, search
from planner.core.runtime_model.step import Layout, Run, fitting, memory, predict

CONSTANTS = calibration.shipped_fit()


def _system(name: str, instances: int, ultra: str | None = None) -> hardware.System:
    cat = load()
    s = hardware.for_instances(cat.instance_types[name], instances, cat.ultraserver_types[ultra] if ultra else None)
    assert s is not None
    return s


@pytest.mark.parametrize(
    ("model", "params_billion"),
    # the publishers' own totals: Meta (8B, 70B, 405B), Mistral (46.7B), DeepSeek (671B), OpenAI (117B), Qwen
    [
        ("llama3-8b", 8.0),
        ("llama3-70b", 70.6),
        ("llama3.1-405b", 405.8),
        ("mixtral-8x7b", 46.7),
        ("deepseek-v3", 671.0),
        ("gpt-oss-120b", 116.8),
        ("qwen3-30b-a3b", 30.5),
        ("qwen3-235b-a22b", 235.1),
    ],
)
def test_parameter_totals_follow_from_the_shapes(model: str, params_billion: float) -> None:
    assert presets()[model].total_params() / 1e9 == pytest.approx(params_billion, rel=0.01)


@pytest.mark.parametrize(
    ("model", "sequence", "tflops", "tokens"),
    # Megatron Bridge 25.11 performance summary, DGX-H100/B200/GB200: model TFLOP/s per GPU over tokens/s per GPU
    [
        ("llama3-8b", 8192, 744, 14451),
        ("llama3-70b", 8192, 719, 1602),
        ("llama3.1-405b", 8192, 737, 292),
        ("deepseek-v3", 4096, 782, 3139),  # DGX-GB200, without its multi-token prediction
        ("qwen3-235b-a22b", 4096, 484, 3269),
        ("qwen3-30b-a3b", 4096, 121, 5275),
    ],
)
def test_flops_per_token_are_the_ones_nvidia_counts(model: str, sequence: int, tflops: float, tokens: float) -> None:
    assert presets()[model].model_flops_per_token(sequence) == pytest.approx(tflops * 1e12 / tokens, rel=0.01)


def test_moe_computes_with_its_active_experts_only() -> None:
    ds = presets()["deepseek-v3"]
    assert ds.active_matmul_params() / 1e9 == pytest.approx(37, rel=0.05)  # "37B activated" (DeepSeek)
    assert ds.model_flops_per_token(4096) < presets()["llama3.1-405b"].model_flops_per_token(4096) / 5


def test_a_multi_token_prediction_module_costs_one_more_block_and_output_layer() -> None:
    """DeepSeek-V3 trained with its MTP module: 557 TFLOP/s per GPU at 2,139 tokens/s (DGX-B200, 25.11)."""
    ds = presets()["deepseek-v3"]
    mtp = replace(ds, mtp_layers=1)
    assert mtp.model_flops_per_token(4096) == pytest.approx(557e12 / 2139, rel=0.01)
    assert mtp.blocks == ds.blocks + 1 and mtp.moe_layers == ds.moe_layers + 1
    system, run = _system("p6-b200.48xlarge", 32), Run(4096, 2048, "fp8")
    lay, constants = Layout(tp=1, pp=16, dp=16, ep=8), CONSTANTS.for_stack("nvidia")
    assert (
        predict(mtp, system, lay, run, constants).step_seconds > predict(ds, system, lay, run, constants).step_seconds
    )


def test_a_config_json_reads_as_its_preset(tmp_path: Path) -> None:
    config = {
        "architectures": ["LlamaForCausalLM"],
        "num_hidden_layers": 80,
        "hidden_size": 8192,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "intermediate_size": 28672,
        "vocab_size": 128256,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    read = resolve(str(path))
    preset = presets()["llama3-70b"]
    assert read.total_params() == preset.total_params()
    assert read.model_flops_per_token(8192) == preset.model_flops_per_token(8192)


def test_deepseek_config_keys_read_as_deepseek_reads_them() -> None:
    config = {
        "num_hidden_layers": 61,
        "hidden_size": 7168,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "vocab_size": 129280,
    }
    assert from_hf_config("config.json", config).total_params() == presets()["deepseek-v3"].total_params()


def test_bad_model_input_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="model 'llama-9000': expected one of .*llama3-8b"):
        resolve("llama-9000")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"num_hidden_layers": 2, "hidden_size": "big"}), encoding="utf-8")
    with pytest.raises(ModelError) as err:
        resolve(str(path))
    assert "config.json: key 'hidden_size': expected a positive integer" in str(err.value)
    assert "\n" not in str(err.value)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelError, match="expected a JSON model configuration"):
        resolve(str(path))


def test_an_ultraserver_joins_its_instances_by_neuronlink() -> None:
    separate, ultra = _system("trn2.48xlarge", 4), _system("trn2u.48xlarge", 4, "u-trn2x64")
    assert separate.domain == 16 and ultra.domain == 64
    assert separate.bandwidth(64, 1) == separate.efa_bandwidth < ultra.bandwidth(64, 1) == ultra.scale_up_bandwidth
    # tensor parallelism across the 64 chips: over EFA on four instances, over NeuronLink on one UltraServer
    model, run = presets()["llama3-70b"], Run(8192, 64, "bf16")
    lay = Layout(tp=32, pp=1, dp=2)
    slow = predict(model, separate, lay, run, CONSTANTS.for_stack("neuron"))
    fast = predict(model, ultra, lay, run, CONSTANTS.for_stack("neuron"))
    assert fast.step_seconds < slow.step_seconds
    assert fast.breakdown.compute == slow.breakdown.compute
    assert fast.breakdown.exposed_communication < slow.breakdown.exposed_communication / 5


def test_an_expert_group_beyond_the_nvlink_domain_sends_its_remote_share_over_efa() -> None:
    """gpt-oss-120b on eight p6-b200 instances: EP 8 stays on NVLink; EP 64 sends 56 of every 64 tokens over EFA."""
    model, run, constants = presets()["gpt-oss-120b"], Run(4096, 512, "bf16"), CONSTANTS.for_stack("nvidia")
    system = _system("p6-b200.48xlarge", 8)
    inside = predict(model, system, Layout(tp=1, pp=1, dp=64, ep=8, micro_batch=4), run, constants)
    across = predict(model, system, Layout(tp=1, pp=1, dp=64, ep=64, micro_batch=4), run, constants)
    routed = 4 * 4096 * model.experts_per_token * model.hidden * 2.0  # BF16 tokens a GPU sends per all-to-all
    a2a = model.moe_layers * (512 // 64 // 4) * 4 * routed * 56 / 64 / system.efa_bandwidth  # 4 per layer
    assert across.breakdown.exposed_communication >= constants.exposed_comm * a2a
    assert inside.breakdown.exposed_communication < a2a / 5


def test_moe_dispatch_and_overlap_follow_what_megatron_supports() -> None:
    gb200, b200 = _system("p6e-gb200.36xlarge", 16, "u-p6e-gb200x72"), _system("p6-b200.48xlarge", 8)
    # HybridEP's fused dispatch inside an NVL72 domain only; never on Neuron
    assert search.fused_dispatch(gb200, 1, 1, 64) and not search.fused_dispatch(b200, 1, 1, 8)
    assert not search.fused_dispatch(_system("trn2u.48xlarge", 4, "u-trn2x64"), 1, 1, 64)
    # the all-to-all overlap needs interleaved stages when pipelined
    assert search.a2a_overlap(b200, 1, 1) and search.a2a_overlap(b200, 8, 2) and not search.a2a_overlap(b200, 8, 1)
    model, run, constants = presets()["deepseek-v3"], Run(4096, 1024, "bf16"), CONSTANTS.for_stack("nvidia")
    lay = Layout(tp=1, pp=4, dp=16, ep=64, vp=4)
    permuted = predict(model, gb200, lay, run, constants)
    fused = predict(model, gb200, replace(lay, fused_dispatch=True), run, constants)
    overlapped = predict(model, gb200, replace(lay, fused_dispatch=True, a2a_overlap=True), run, constants)
    assert overlapped.step_seconds < fused.step_seconds < permuted.step_seconds
    # Megatron cannot overlap the all-to-all of layers recomputed whole
    tight = fitting(model, gb200, replace(lay, a2a_overlap=True, micro_batch=2), run, constants)
    assert tight is not None and tight.recompute > 0 and not tight.a2a_overlap


def test_tensor_parallelism_on_trainium_runs_on_neuroncores() -> None:
    trn1, p5 = _system("trn1.32xlarge", 2), _system("p5.48xlarge", 4)
    assert (trn1.ranks, _system("trn2.48xlarge", 1).ranks, p5.ranks) == (2, 4, 1)
    model, run = presets()["llama3-8b"], Run(8192, 64, "bf16")
    # 32 heads: 16 Trainium chips (32 NeuronCores) at most
    assert max(lay.tp for lay in search.layouts(model, trn1, run)) == 16
    # 8 K/V heads over 32 NeuronCores: each core computes one (NeuronX Distributed's kv_replicator), so grouped-
    # query attention saves nothing in the projections there, as it does with 8 GPUs of tensor parallelism
    mha = replace(model, kv_heads=model.heads)
    for system, tp in ((trn1, 16), (p5, 8)):
        lay, constants = Layout(tp=tp, pp=1, dp=system.accelerators // tp), CONSTANTS.for_stack(system.stack)
        ratio = (
            predict(mha, system, lay, run, constants).breakdown.compute
            / predict(model, system, lay, run, constants).breakdown.compute
        )
        assert ratio == pytest.approx(1.0, abs=0.01) if system is trn1 else ratio > 1.03


def test_neuron_zero1_waits_for_its_data_parallel_collectives() -> None:
    """Megatron hides the gradient reduce-scatter behind the last backward; Neuron's ZeRO-1 runs it in the
    optimizer step."""
    model = presets()["llama3-8b"]
    for name, tp, hidden in (("trn1.32xlarge", 16, False), ("p5.48xlarge", 8, True)):
        one, two = _system(name, 1), _system(name, 2)
        constants = CONSTANTS.for_stack(one.stack)
        # the same 128 micro-batches per accelerator, alone and with a data-parallel partner
        alone = predict(model, one, Layout(tp=tp, pp=1, dp=1), Run(8192, 128, "bf16"), constants)
        paired = predict(model, two, Layout(tp=tp, pp=1, dp=2), Run(8192, 256, "bf16"), constants)
        exposed = paired.breakdown.exposed_communication - alone.breakdown.exposed_communication
        assert exposed == pytest.approx(0.0) if hidden else exposed > 0.1


def test_more_hbm_bandwidth_and_memory_run_faster_per_flop() -> None:
    """p5 and p5en have the same peak; H200's faster, larger HBM still shortens the step."""
    model, run = presets()["llama3-70b"], Run(8192, 128, "fp8")
    p5 = search.best(model, _system("p5.48xlarge", 8), run, CONSTANTS.for_stack("nvidia"))
    p5en = search.best(model, _system("p5en.48xlarge", 8), run, CONSTANTS.for_stack("nvidia"))
    assert p5 is not None and p5en is not None
    assert p5en.step_seconds < p5.step_seconds


def test_a_larger_cluster_pays_in_communication_and_bubble() -> None:
    model, constants = presets()["llama3-70b"], CONSTANTS.for_stack("nvidia")
    run = Run(8192, 512, "bf16")
    small = search.best(model, _system("p5.48xlarge", 8), run, constants)
    large = search.best(model, _system("p5.48xlarge", 64), run, constants)
    assert small is not None and large is not None
    assert large.tokens_per_second / 64 < small.tokens_per_second / 8
    assert large.mfu < small.mfu


def test_memory_decides_what_fits() -> None:
    model, run = presets()["llama3.1-405b"], Run(8192, 512, "bf16")
    constants = CONSTANTS.for_stack("neuron")
    # 405B parameters with gradients and Adam states need more than four instances' 1.5 TiB each
    assert search.best(model, _system("trn2.48xlarge", 4), run, constants) is None
    found = search.best(model, _system("trn2.48xlarge", 16), run, constants)
    assert found is not None and found.memory_bytes <= found.memory_budget
    # without model parallelism the weights alone overflow one accelerator
    assert memory(model, _system("trn2.48xlarge", 16), Layout(tp=1, pp=1, dp=256), run) > 96 * 2**30


def test_recomputation_is_added_only_as_memory_needs() -> None:
    model, system, run = presets()["llama3-70b"], _system("p5.48xlarge", 8), Run(8192, 128, "bf16")
    constants = CONSTANTS.for_stack("nvidia")
    roomy = fitting(model, system, Layout(tp=8, pp=8, dp=1), run, constants)
    tight = fitting(model, system, Layout(tp=2, pp=4, dp=8, micro_batch=2), run, constants)
    assert roomy is not None and roomy.recompute == 0 and not roomy.selective
    assert tight is None or tight.selective or tight.recompute > 0


def test_the_search_covers_the_cluster_and_beats_or_matches_the_published_layout() -> None:
    ref = next(r for r in calibration.references() if r.id == "h100-llama3-70b-fp8")
    system, model = calibration.system_of(ref), calibration.model_of(ref)
    constants = CONSTANTS.for_stack(ref.stack)
    for lay in search.layouts(model, system, ref.run):
        assert lay.size == system.accelerators and ref.run.global_batch % (lay.dp * lay.micro_batch) == 0
    best = search.best(model, system, ref.run, constants)
    published = fitting(model, system, ref.layout, ref.run, constants)
    assert best is not None and published is not None
    assert best.step_seconds <= predict(model, system, published, ref.run, constants).step_seconds


def test_the_breakdown_adds_up_and_checkpoints_cost_their_write() -> None:
    model, system, run = presets()["llama3-8b"], _system("p5.48xlarge", 1), Run(8192, 128, "bf16")
    p = search.best(model, system, run, CONSTANTS.for_stack("nvidia"))
    assert p is not None
    b = p.breakdown
    assert b.step == pytest.approx(b.compute + b.recompute + b.exposed_communication + b.bubble + b.optimizer)
    assert p.tokens_per_second == pytest.approx(128 * 8192 / b.step)
    # 8B parameters x 14 bytes = 112 GB; at 1,200 MB/s (a 6 TiB PERSISTENT_2 file system at 200 MB/s/TiB)
    write = checkpoint.write_seconds(model, 1200)
    assert write == pytest.approx(model.total_params() * 14 / 1.2e9)
    slow = checkpoint.with_checkpoints(p, write, 3600)
    assert slow.breakdown.checkpoint == pytest.approx(b.step * write / 3600)
    assert slow.tokens_per_second < p.tokens_per_second and slow.mfu < p.mfu


def test_one_prediction_is_cheap() -> None:
    """Not a timing test: a search of a 512-accelerator cluster stays a few hundred predictions."""
    model, system, run = presets()["llama3.1-405b"], _system("p5.48xlarge", 64), Run(8192, 512, "bf16")
    assert len(list(search.layouts(model, system, run))) < 2000


def test_an_estimate_gives_hours_layout_band_and_says_when_it_extrapolates() -> None:
    from planner.core.runtime_model.run_prediction import estimate

    model, run = presets()["llama3-70b"], Run(8192, 512, "bf16")
    measured = estimate(model, "p5.48xlarge", 16, run, 1e12)
    assert measured is not None and measured.extrapolated_from == ()
    assert measured.run_hours == pytest.approx(1e12 / measured.tokens_per_second / 3600)
    doc = codec.dump_record(measured.report())
    assert set(doc["layout"]) >= {"tp", "pp", "dp", "cp", "ep", "micro_batch"}  # type: ignore[arg-type]
    assert doc["error_band"] == calibration.error_band()
    trn2 = estimate(model, "trn2u.48xlarge", 4, run, 1e12, ultraserver="u-trn2x64")
    assert trn2 is not None
    assert trn2.extrapolated_from == calibration.stack_references("neuron")  # from the trn1 references
    # a slow file system's checkpoints lengthen the run
    slow = estimate(model, "p5.48xlarge", 16, run, 1e12, lustre_mb_s=240, checkpoint_interval_hours=1)
    assert slow is not None and slow.run_hours > measured.run_hours and slow.breakdown.checkpoint > 0
