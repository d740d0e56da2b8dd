"""One training step's time and memory on one accelerator, for a model, a cluster and a parallel layout.

The step is Megatron-style (Narayanan et al. 2021, https://arxiv.org/abs/2104.04473; Korthikanti
et al. 2022, https://arxiv.org/abs/2205.05198): tensor parallelism with sequence parallelism (tp),
context parallelism (cp, ring attention), pipeline parallelism with 1F1B and interleaved virtual
stages (pp, vp), data parallelism with a distributed optimizer or fully sharded (dp), expert
parallelism for MoE layers (ep). Everything is counted per accelerator:

* matrix multiplications: a roofline per GEMM (its FLOPs at `gemm_efficiency` of the dense peak
  at the run's precision, plus its operands' bytes at the HBM bandwidth), so narrow GEMMs (MoE
  experts, wide tensor parallelism) run at a lower fraction of peak, as they do. Tensor
  parallelism splits GEMMs over the accelerator's ranks (`System.ranks`: a Trainium chip runs two
  NeuronCores as two ranks), each reading its whole input; K and V heads are replicated when the
  ranks outnumber them (NeuronX Distributed's kv_replicator);
* attention scores and values at `attention_efficiency` of the BF16 peak (FlashAttention runs in
  BF16 in the published FP8 recipes);
* element-wise work (norms, residuals, RoPE, SwiGLU) as bytes at HBM bandwidth;
* MoE layers: the routed tokens' way between router and experts (permutation, sorting by expert,
  unpermutation: `routed_bytes` per routed element, fitted; a fused dispatcher's 16), a fixed time
  per layer and micro-batch (`moe_layer_seconds`, fitted), and the all-to-all, whose share for
  peers in the same scale-up domain goes over NVLink and the rest over EFA;
* tensor-, expert- and pipeline-parallel traffic at the bandwidth of the link the group spans
  (`System.bandwidth`), a fitted fraction of tensor and expert traffic exposed (the rest overlaps
  with GEMMs); ring attention's traffic hidden behind attention while it is shorter;
* data-parallel gradient reduce-scatter and parameter all-gather: behind one micro-batch where the
  stack overlaps them (Megatron), after the last backward where it does not (Neuron's ZeRO-1);
* the pipeline bubble, (pp - 1) / vp micro-batches;
* the optimizer step and the checkpoint write (state bytes at the file system's throughput).

Memory: weights (BF16, plus an FP8 copy), gradients (BF16 on NVIDIA's recipes, FP32 on Neuron),
12 bytes of Adam state per parameter sharded over data parallelism, the activations 1F1B keeps in
flight (about one micro-batch of every layer on the first stage), and the logits on the last
stage. Layers are recomputed (Megatron's `recompute_num_layers`) only as far as memory needs.
"""

from __future__ import annotations

from msgspec import Struct
from msgspec.structs import replace

from planner.core.model.transformer import Transformer
from planner.core.runtime_model.hardware import System

ADAM_STATE_BYTES = 12  # FP32 master weights, first and second moments (Megatron's distributed optimizer)
# Bytes per gradient in the buffers data parallelism reduces, by software stack. NVIDIA's Megatron Bridge
# performance recipes reduce in BF16: every pre-training recipe of scripts/performance sets
# grad_reduce_in_fp32 = False (Llama 3, Llama 3.1, DeepSeek-V3, Qwen3, gpt-oss; release r0.2.0, NeMo 25.11).
# NeuronX Distributed accumulates in FP32 (use_fp32_grad_acc in its Llama examples' mixed precision).
GRAD_BYTES = {"nvidia": 2, "neuron": 4}
# Whether data parallelism's collectives overlap the backward and forward passes, by software stack: Megatron
# reduces gradient buckets during the last micro-batch's backward and gathers parameters during the first forward
# (overlap_grad_reduce, overlap_param_gather in Megatron Bridge's recipes); Neuron's ZeRO-1 (PyTorch/XLA's
# ZeroRedundancyOptimizer) reduce-scatters and all-gathers inside optimizer.step(), after the last backward.
DP_OVERLAP = {"nvidia": True, "neuron": False}
# Bytes per logit the loss keeps, by software stack: Megatron Bridge's recipes compute the cross-entropy with
# Transformer Engine's fused kernel (cross_entropy_fusion_impl "te"), which writes the gradient into the BF16
# logits; elsewhere FP32 logits and their gradient are assumed.
LOGIT_BYTES = {"nvidia": 2.0, "neuron": 8.0}
PARAM_GATHER_BYTES = 2  # BF16 parameters all-gathered after the optimizer step
OPTIMIZER_STEP_BYTES = 30  # read gradient, master, moments (16); write master, moments, BF16 weight (14)
# A fused dispatcher (Megatron's HybridEP) reads each routed token's BF16 hidden vector once and writes it once
# into its expert's buffer, and back for the combine: 2 + 2 bytes per element, dispatch and combine, forward and
# backward. Without it the tokens are permuted, sorted by expert, exchanged and unpermuted in separate passes
# (Constants.routed_bytes, fitted).
FUSED_ROUTED_BYTES = 16.0


class Constants(Struct, frozen=True):
    """The fitted efficiencies of one software stack (runtime_constants.yaml)."""

    gemm_efficiency: float  # fraction of the dense peak a large GEMM reaches
    attention_efficiency: float  # fraction of the BF16 peak FlashAttention reaches
    exposed_comm: float  # fraction of tensor- and expert-parallel traffic not hidden behind GEMMs
    moe_layer_seconds: float  # fixed time of one MoE layer per micro-batch: routing, host syncs, launches
    routed_bytes: float  # HBM bytes per routed token and hidden element between router and experts, both passes
    memory_usable: float  # fraction of HBM a framework can fill (context, buffers, fragmentation)


class Layout(Struct, frozen=True):
    """A parallel layout; `recompute` is the fraction of layers recomputed in the backward pass."""

    tp: int
    pp: int
    dp: int
    cp: int = 1
    ep: int = 1
    vp: int = 1
    micro_batch: int = 1
    fsdp: bool = False
    selective: bool = False  # recompute norms and activation functions (Megatron's selective modules)
    recompute: float = 0.0
    fused_dispatch: bool = False  # MoE tokens sent to their experts by one fused kernel (HybridEP), not permuted
    a2a_overlap: bool = (
        False  # one micro-batch's all-to-all behind another's compute (overlap_moe_expert_parallel_comm)
    )

    @property
    def size(self) -> int:
        return self.tp * self.pp * self.dp * self.cp


class Run(Struct, frozen=True):
    """What is trained: sequences of `sequence` tokens, `global_batch` sequences a step."""

    sequence: int
    global_batch: int
    precision: str = "bf16"  # bf16 | fp8


class Breakdown(Struct, frozen=True):
    """A step's seconds, by what the accelerators wait for (they add up to `step`)."""

    compute: float
    recompute: float
    exposed_communication: float
    bubble: float
    optimizer: float
    checkpoint: float

    @property
    def step(self) -> float:
        return (
            self.compute + self.recompute + self.exposed_communication + self.bubble + self.optimizer + self.checkpoint
        )


class Prediction(Struct, frozen=True):
    layout: Layout
    breakdown: Breakdown
    memory_bytes: float
    memory_budget: float
    tokens_per_second: float
    mfu: float

    @property
    def step_seconds(self) -> float:
        return self.breakdown.step


def _gemm(m: float, k: float, n: float, peak: float, eff: float, elem: float, bw: float) -> float:
    """Seconds of one GEMM and its two backward GEMMs: FLOPs at the efficient peak plus operand bytes at HBM speed."""
    if m <= 0 or k <= 0 or n <= 0:
        return 0.0
    flops = 2.0 * m * k * n
    moved = elem * (m * k + k * n) + 2.0 * m * n
    return 3.0 * (flops / (peak * eff) + moved / bw)


def _all_to_all(sent: float, group: int, stride: int, system: System) -> float:
    """Seconds of an all-to-all in which each rank sends `sent` bytes spread evenly over `group` ranks `stride`
    apart: the share for peers in its own scale-up domain over the link, the rest over EFA, both at once."""
    if group <= 1:
        return 0.0
    local = min(group, max(1, system.domain // stride))
    inside = sent * (local - 1) / group / system.scale_up_bandwidth
    outside = sent * (group - local) / group / system.efa_bandwidth if group > local else 0.0
    return max(inside, outside)


def _activation_bytes(model: Transformer, moe_layer: bool, elem: float, selective: bool = False) -> float:
    """Bytes kept per token and layer for the backward pass, before tensor parallelism divides them."""
    h = model.hidden
    q = model.heads * model.head_dim
    out = model.heads * model.v_dim
    kv = 2 * model.kv_heads * model.head_dim if not model.kv_lora_rank else q + out  # MLA: K like Q, V like out
    qkv = q + kv
    if selective and model.kv_lora_rank:  # Q, K and V rebuilt from the latents (Megatron's mla_up_proj)
        qkv = (model.q_lora_rank or q) + model.kv_lora_rank + model.qk_rope_head_dim
    if moe_layer:
        f = (model.experts_per_token + model.shared_experts) * model.expert_ffn
        # the permuted tokens, the experts' input (Megatron weights the experts' activations by the router's
        # probabilities, so the unpermutation keeps nothing for its backward)
        extra = elem * model.experts_per_token * h
    else:
        f = model.ffn
        extra = 0.0
    # norms' inputs (BF16), GEMM inputs at the precision, Q/K/V and attention output for FlashAttention,
    # SwiGLU's two inputs (BF16); selective recomputation rebuilds the normed and activated GEMM inputs
    gemm_inputs = elem * (out + (0 if selective else 2 * h + f))
    activation_inputs = 2 if moe_layer or model.gated_ffn else 1  # SwiGLU keeps two inputs of f, GELU one
    return 2 * 2 * h + gemm_inputs + 2 * (qkv + out) + 2 * activation_inputs * f + extra


def _per_token_activations(model: Transformer, elem: float, selective: bool, dense_share: float) -> float:
    """Bytes kept per token and layer, averaged over dense and MoE layers (cached on the model: the
    layout search asks for it for every layout and recomputation it tries)."""
    key = ("activations", elem, selective)
    known = model.cache.get(key)
    if known is None:
        known = dense_share * _activation_bytes(model, False, elem, selective)
        if model.moe:
            known += (1 - dense_share) * _activation_bytes(model, True, elem, selective)
        model.cache[key] = known
    return known


def _elementwise_bytes(model: Transformer, moe_layer: bool) -> float:
    """HBM bytes of one token's element-wise work in one layer, forward and backward."""
    h = model.hidden
    f = (model.experts_per_token + model.shared_experts) * model.expert_ffn if moe_layer else model.ffn
    # two norms and two residual adds (read and write h each), RoPE on Q and K, SwiGLU (read 2f, write f)
    act = 3 * f if moe_layer or model.gated_ffn else 2 * f  # SwiGLU reads 2f and writes f; GELU reads and writes f
    fwd = 2.0 * (4 * h + 4 * h + 2 * (model.heads + model.kv_heads) * model.head_dim + act)
    return 3.0 * fwd


def micro_batch_compute(
    model: Transformer,
    system: System,
    lay: Layout,
    run: Run,
    constants: Constants,
    computed: dict[tuple[object, ...], tuple[float, float, float, float]] | None,
) -> tuple[float, float, float, float]:
    """One micro-batch's compute on one accelerator: a dense layer, an MoE layer, attention over every
    layer, and the output layer(s); they depend on tp, cp, ep, the micro-batch and the dispatcher only,
    so a search keeps them in `computed`."""
    key = (lay.tp, lay.cp, lay.ep, lay.micro_batch, lay.fused_dispatch)
    known = None if computed is None else computed.get(key)
    if known is not None:
        return known
    tp, cp, ep = lay.tp, lay.cp, lay.ep
    peak = system.peak_flops[run.precision]
    bf16 = system.peak_flops["bf16"]
    elem = 1.0 if run.precision == "fp8" else 2.0
    bw = system.hbm_bandwidth
    eff = constants.gemm_efficiency
    tokens = lay.micro_batch * run.sequence / cp
    h = model.hidden
    # tensor parallelism runs on the accelerator's ranks (NeuronCores: two per Trainium chip): each rank reads the
    # whole input of a column-parallel GEMM and writes the whole partial output of a row-parallel one
    ranks = system.ranks
    tpr, rpeak, rbw = tp * ranks, peak / ranks, bw / ranks
    attn_in = model.attention_params() - model.heads * model.v_dim * h
    if not model.kv_lora_rank and model.kv_heads < tpr:  # K and V heads replicated: one per rank
        attn_in += 2 * h * model.head_dim * (tpr - model.kv_heads)

    # one micro-batch, forward + backward, all layers, on one accelerator of its tp group
    def layer_time(moe_layer: bool) -> float:
        t = _gemm(tokens, h, attn_in / h / tpr, rpeak, eff, elem, rbw)
        t += _gemm(tokens, model.heads * model.v_dim / tpr, h, rpeak, eff, elem, rbw)
        if moe_layer:
            rows = tokens * model.experts_per_token / tp
            local_experts = max(1.0, model.experts / ep)
            per_expert = rows / local_experts
            t += local_experts * _gemm(per_expert, h, 2 * model.expert_ffn, peak, eff, elem, bw)
            t += local_experts * _gemm(per_expert, model.expert_ffn, h, peak, eff, elem, bw)
            if model.shared_experts:
                f = model.shared_experts * model.expert_ffn
                t += _gemm(tokens, h, 2 * f / tpr, rpeak, eff, elem, rbw)
                t += _gemm(tokens, f / tpr, h, rpeak, eff, elem, rbw)
        else:
            t += _gemm(tokens, h, (model.ffn_matrices - 1) * model.ffn / tpr, rpeak, eff, elem, rbw)
            t += _gemm(tokens, model.ffn / tpr, h, rpeak, eff, elem, rbw)
        t += tokens * _elementwise_bytes(model, moe_layer) / tp / bw
        if moe_layer:  # the routed tokens' way to their experts and back, and the layer's fixed time
            routed = FUSED_ROUTED_BYTES if lay.fused_dispatch else constants.routed_bytes
            t += tokens * model.experts_per_token * h * routed / tp / bw + constants.moe_layer_seconds
        return t

    dense_t, moe_t = layer_time(False), layer_time(True) if model.moe else 0.0
    attention = (
        3.0 * model.attention_flops_forward(run.sequence) * tokens / tp / (bf16 * constants.attention_efficiency)
    )
    # the output layer, once more for each multi-token-prediction module with its projection
    head = (1 + model.mtp_layers) * _gemm(tokens, h, model.vocab / tpr, rpeak, eff, elem, rbw)
    head += model.mtp_layers * _gemm(tokens, 2 * h, h / tpr, rpeak, eff, elem, rbw)
    found = (dense_t, moe_t, attention, head)
    if computed is not None:
        computed[key] = found
    return found


def compute_floor(
    model: Transformer,
    system: System,
    layout: Layout,
    run: Run,
    constants: Constants,
    computed: dict[tuple[object, ...], tuple[float, float, float, float]] | None = None,
) -> float:
    """Seconds a step of `layout` takes at least, whatever it recomputes: its micro-batches' compute and
    the pipeline bubble of that compute (communication, recomputation and the optimizer only add)."""
    dense_t, moe_t, attention, head = micro_batch_compute(model, system, layout, run, constants, computed)
    pp = layout.pp
    compute_mb = (model.dense_blocks * dense_t + model.moe_layers * moe_t + attention + head) / pp
    micro_batches = max(1, run.global_batch // (layout.dp * layout.micro_batch))
    return compute_mb * (micro_batches + ((pp - 1) / layout.vp if pp > 1 else 0))


def predict(
    model: Transformer,
    system: System,
    layout: Layout,
    run: Run,
    constants: Constants,
    checkpoint_seconds_per_step: float = 0.0,
    memory_bytes: float | None = None,
    computed: dict[tuple[object, ...], tuple[float, float, float, float]] | None = None,
) -> Prediction:
    """The step of `layout` (which must cover the cluster); memory is reported, not enforced.

    `memory_bytes`: the layout's memory when the caller has it (`fitting_memory`); `computed`: a search's
    store of layer times, which depend on tp, cp, ep, the micro-batch and the dispatcher only."""
    found = faster_than(
        model, system, layout, run, constants, None, checkpoint_seconds_per_step, memory_bytes, computed
    )
    assert found is not None
    return found


def faster_than(
    model: Transformer,
    system: System,
    layout: Layout,
    run: Run,
    constants: Constants,
    beat: float | None,
    checkpoint_seconds_per_step: float = 0.0,
    memory_bytes: float | None = None,
    computed: dict[tuple[object, ...], tuple[float, float, float, float]] | None = None,
) -> Prediction | None:
    """`predict`, or None as soon as the layout's compute and the bubble of that compute alone take at
    least `beat` seconds (the step a search already has): it cannot be faster, so it is not timed further."""
    lay = layout
    tp, pp, dp, cp, ep = lay.tp, lay.pp, lay.dp, lay.cp, lay.ep
    peak = system.peak_flops[run.precision]
    elem = 1.0 if run.precision == "fp8" else 2.0
    bw = system.hbm_bandwidth
    eff = constants.gemm_efficiency
    grad_bytes = GRAD_BYTES[system.stack]
    micro_batches = max(1, run.global_batch // (dp * lay.micro_batch))
    tokens = lay.micro_batch * run.sequence / cp  # tokens of one micro-batch on one accelerator's cp shard

    h = model.hidden
    ranks = system.ranks
    tpr, rpeak, rbw = tp * ranks, peak / ranks, bw / ranks
    dense_t, moe_t, attention, head = micro_batch_compute(model, system, lay, run, constants, computed)
    layers_dense = model.dense_blocks
    compute_mb = (layers_dense * dense_t + model.moe_layers * moe_t + attention + head) / pp
    if beat is not None and compute_mb * (micro_batches + ((pp - 1) / lay.vp if pp > 1 else 0)) >= beat:
        return None  # its compute and the bubble of that compute alone: no faster than the step found
    attention_per_layer = attention / model.blocks

    # communication per micro-batch on one accelerator, for its stage's layers
    layers_stage = model.blocks / pp
    act = tokens * h * 2.0  # one micro-batch's activations on a cp shard, BF16
    tp_comm = 0.0
    if tp > 1:
        tp_comm = layers_stage * 8 * act * (tp - 1) / tp / system.bandwidth(tp, 1)
    cp_comm = 0.0
    if cp > 1:
        kv = (
            2 * model.kv_heads * model.head_dim
            if not model.kv_lora_rank
            else model.heads * (model.head_dim + model.v_dim)
        )
        per_layer = 3 * (cp - 1) * tokens * kv * 2.0 / tp / system.bandwidth(cp, tp)
        cp_comm = layers_stage * max(0.0, per_layer - attention_per_layer)
    ep_comm = 0.0
    if model.moe and ep > 1:
        moe_stage = model.moe_layers / pp
        rows = tokens * model.experts_per_token / tp
        # dispatch and combine, forward and backward: the routed tokens' BF16 activations
        ep_comm = moe_stage * 4 * _all_to_all(rows * h * 2.0, ep, tp * cp, system)
    pp_comm = 0.0
    if pp > 1:
        pp_comm = 2 * act / tp / system.bandwidth(pp, tp * cp * dp) * lay.vp
    if lay.a2a_overlap:  # Megatron runs one micro-batch's forward with another's backward, each hiding the other's
        ep_comm = max(0.0, ep_comm - compute_mb)
    exposed_mb = constants.exposed_comm * (tp_comm + ep_comm) + cp_comm + pp_comm

    recompute_mb = lay.recompute * (compute_mb - head / pp) / 3.0
    if lay.selective:
        elementwise = layers_dense * _elementwise_bytes(model, False) + model.moe_layers * _elementwise_bytes(
            model, True
        )
        recompute_mb += (1 - lay.recompute) * elementwise * tokens / tp / bw / 3.0 / pp
        if model.kv_lora_rank:  # multi-head latent attention's up-projections, forward again
            nope = model.head_dim - model.qk_rope_head_dim
            up = _gemm(tokens, model.q_lora_rank, model.heads * model.head_dim / tpr, rpeak, eff, elem, rbw)
            up += _gemm(tokens, model.kv_lora_rank, model.heads * (nope + model.v_dim) / tpr, rpeak, eff, elem, rbw)
            recompute_mb += (1 - lay.recompute) * model.blocks * up / 3.0 / pp
    stage_mb = compute_mb + recompute_mb + exposed_mb
    bubble = (pp - 1) / lay.vp * stage_mb if pp > 1 else 0.0

    # data parallelism: gradient reduce-scatter and parameter all-gather over the dp (x cp) ranks
    dense_params = (model.total_params() - model.expert_weights()) / (tp * pp)
    expert_params = model.expert_weights() / (ep * pp)
    dp_dense, dp_expert = dp * cp, max(1, dp * cp * tp // ep)
    reduce = gather = 0.0  # gradient reduce-scatter, parameter all-gather
    if dp_dense > 1:
        share = dense_params * (dp_dense - 1) / dp_dense / system.bandwidth(dp_dense, tp)
        reduce, gather = reduce + grad_bytes * share, gather + PARAM_GATHER_BYTES * share
    if expert_params and dp_expert > 1:
        share = expert_params * (dp_expert - 1) / dp_expert / system.bandwidth(dp_expert, ep)
        reduce, gather = reduce + grad_bytes * share, gather + PARAM_GATHER_BYTES * share
    if lay.fsdp:  # parameters gathered for the forward and the backward, gradients reduced, every micro-batch
        exposed_dp = micro_batches * max(0.0, reduce + 2 * gather - stage_mb)
    elif not DP_OVERLAP[system.stack]:  # both inside the optimizer step, after the last backward
        exposed_dp = reduce + gather
    else:  # gradients reduced behind the last micro-batch's backward, parameters gathered behind the first forward
        exposed_dp = max(0.0, reduce - stage_mb * 2 / 3) + max(0.0, gather - stage_mb / 3)
    shard = dense_params / dp_dense + expert_params / dp_expert
    optimizer = shard * OPTIMIZER_STEP_BYTES / bw

    breakdown = Breakdown(
        compute=micro_batches * compute_mb,
        recompute=micro_batches * recompute_mb,
        exposed_communication=micro_batches * exposed_mb + exposed_dp,
        bubble=bubble,
        optimizer=optimizer,
        checkpoint=checkpoint_seconds_per_step,
    )
    step = breakdown.step
    tokens_step = run.global_batch * run.sequence
    tps = tokens_step / step
    mfu = model.model_flops_per_token(run.sequence) * tps / (system.accelerators * peak)
    held = memory(model, system, layout, run) if memory_bytes is None else memory_bytes
    return Prediction(layout, breakdown, held, system.hbm_bytes * constants.memory_usable, tps, mfu)


def states_bytes(model: Transformer, system: System, layout: Layout, run: Run) -> float:
    """Bytes of weights, gradients and optimizer state on the busiest accelerator: what no recomputation
    frees (`fitting_memory` refuses a layout on them alone)."""
    lay = layout
    tp, pp, dp, cp, ep = lay.tp, lay.pp, lay.dp, lay.cp, lay.ep
    dense_params = (model.total_params() - model.expert_weights()) / (tp * pp)
    expert_params = model.expert_weights() / (ep * pp)
    dp_dense, dp_expert = dp * cp, max(1, dp * cp * tp // ep)
    weight_bytes = 2.0 + (1.0 if run.precision == "fp8" else 0.0)
    grad_bytes = GRAD_BYTES[system.stack]
    if lay.fsdp:
        states = (dense_params / dp_dense + expert_params / dp_expert) * (weight_bytes + grad_bytes + ADAM_STATE_BYTES)
        states += 2 * (dense_params + expert_params) * weight_bytes / (model.layers / pp)  # two gathered layers
    else:
        states = (dense_params + expert_params) * (weight_bytes + grad_bytes)
        states += (dense_params / dp_dense + expert_params / dp_expert) * ADAM_STATE_BYTES
    return states


def memory(
    model: Transformer,
    system: System,
    layout: Layout,
    run: Run,
    selective: bool | None = None,
    recompute: float | None = None,
) -> float:
    """Bytes the busiest accelerator (the first pipeline stage) holds at its peak; `selective` and
    `recompute` in place of the layout's (`fitting` tries them without building a layout each time)."""
    lay = layout
    if selective is None:
        selective = lay.selective
    if recompute is None:
        recompute = lay.recompute
    tp, pp, dp, cp = lay.tp, lay.pp, lay.dp, lay.cp
    elem = 1.0 if run.precision == "fp8" else 2.0
    states = states_bytes(model, system, lay, run)
    tokens = lay.micro_batch * run.sequence / cp
    micro_batches = max(1, run.global_batch // (dp * lay.micro_batch))
    in_flight = min(pp, micro_batches) * (1 + (pp - 1) / (pp * lay.vp) if lay.vp > 1 else 1)
    layers_stage = model.layers / pp
    dense_share = model.dense_blocks / model.blocks
    per_token = _per_token_activations(model, elem, selective, dense_share)
    kept = (1 - recompute) * per_token + recompute * 2.0 * model.hidden
    stage = kept * tokens / tp * layers_stage  # one micro-batch's activations of one stage's layers
    recomputing = per_token * tokens / tp if recompute else 0.0  # the layer being recomputed
    logits = tokens * model.vocab / tp * LOGIT_BYTES[system.stack]  # the last stage's
    # 1F1B: the first stage holds `in_flight` micro-batches, the last (with the logits) its warm-up's: one, or
    # (vp - 1) x pp + 1 chunks of 1 / vp of its layers when interleaved
    last_in_flight = max(1.0, min(pp, micro_batches) - (pp - 1) / lay.vp) if lay.vp > 1 else 1.0
    if pp == 1:
        return states + stage * in_flight + recomputing + logits
    return states + recomputing + max(stage * in_flight, stage * last_in_flight + logits)


def fitting(model: Transformer, system: System, layout: Layout, run: Run, constants: Constants) -> Layout | None:
    """`layout` with the least recomputation that fits memory: none, then selective, then eighths of the
    layers in full; None if nothing fits."""
    found = fitting_memory(model, system, layout, run, constants)
    return None if found is None else found[0]


def fitting_memory(
    model: Transformer, system: System, layout: Layout, run: Run, constants: Constants
) -> tuple[Layout, float] | None:
    """`fitting`'s layout with the bytes it holds."""
    budget = system.hbm_bytes * constants.memory_usable
    if states_bytes(model, system, layout, run) > budget:
        return None
    held = memory(model, system, layout, run)
    if held <= budget:
        return layout, held

    def bytes_at(eighth: int) -> float:
        return memory(model, system, layout, run, True, eighth / 8)

    held = bytes_at(0)
    if held <= budget:
        return replace(layout, selective=True, recompute=0.0), held
    held = bytes_at(8)
    if held > budget:
        return None
    # from one eighth on, each more eighth recomputed holds less: the least that fits, halving
    low, high = 0, 8  # low does not fit, high does
    while high - low > 1:
        mid = (low + high) // 2
        at = bytes_at(mid)
        if at <= budget:
            high, held = mid, at
        else:
            low = mid
    # Megatron turns the all-to-all overlap off with whole layers recomputed (it cannot split their backward)
    return replace(layout, selective=True, recompute=high / 8, a2a_overlap=False), held
