"""A transformer's shapes, and the parameters and FLOPs that follow from them.

Counting from the shapes (not from a parameter total) is what lets the model see that a
mixture-of-experts model computes with a fraction of its weights, that Llama's grouped-query
attention has small K and V projections, and that attention grows with the sequence. FLOPs are
those of the matrix multiplications: 2 per multiply-add, forward; backward is twice the forward
(Kaplan et al. 2020, https://arxiv.org/abs/2001.08361; Narayanan et al. 2021,
https://arxiv.org/abs/2104.04473). Attention is causal: a token attends to half the sequence on
average (FlashAttention skips the masked half).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from planner.core.catalogue import shipped_data as _data


class ModelError(ValueError):
    """A model name or configuration file that cannot be read: one line, naming the file and key."""


@dataclass(frozen=True)
class Transformer:
    """A decoder-only transformer as its configuration describes it (SwiGLU feed-forward blocks)."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int  # feed-forward width of a dense layer
    vocab: int
    experts: int = 0  # routed experts per mixture-of-experts layer; 0: dense
    experts_per_token: int = 0
    expert_ffn: int = 0
    shared_experts: int = 0
    dense_layers: int = 0  # leading layers that stay dense in an MoE model (DeepSeek's first_k_dense_replace)
    v_head_dim: int = 0  # 0: head_dim
    q_lora_rank: int = 0  # multi-head latent attention (DeepSeek); 0: ordinary attention
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    sliding_window: int = 0  # tokens a sliding-window layer attends to; 0: none
    sliding_layers: int = 0
    mtp_layers: int = 0  # multi-token-prediction modules trained with the model (DeepSeek's num_nextn_predict_layers)
    title: str = ""
    source: str = ""

    @property
    def moe(self) -> bool:
        return self.experts > 0

    @property
    def blocks(self) -> int:
        """Transformer blocks computed per token: the layers and the multi-token-prediction modules' blocks."""
        return self.layers + self.mtp_layers

    @property
    def moe_layers(self) -> int:
        """Blocks with routed experts (a multi-token-prediction module's block is one in an MoE model)."""
        return self.blocks - self.dense_layers if self.moe else 0

    @property
    def dense_blocks(self) -> int:
        return self.blocks - self.moe_layers

    @property
    def v_dim(self) -> int:
        return self.v_head_dim or self.head_dim

    def attention_params(self) -> int:
        """Weights of one attention block's projections."""
        h, n = self.hidden, self.heads
        if self.kv_lora_rank:
            nope = self.head_dim - self.qk_rope_head_dim
            q = (
                h * self.q_lora_rank + self.q_lora_rank * n * self.head_dim
                if self.q_lora_rank
                else h * n * self.head_dim
            )
            kv = h * (self.kv_lora_rank + self.qk_rope_head_dim) + self.kv_lora_rank * n * (nope + self.v_dim)
            return q + kv + n * self.v_dim * h
        return h * n * self.head_dim * 2 + 2 * h * self.kv_heads * self.head_dim

    def dense_mlp_params(self) -> int:
        return 3 * self.hidden * self.ffn

    def expert_params(self) -> int:
        """Weights of one routed expert (gate, up and down projections)."""
        return 3 * self.hidden * self.expert_ffn

    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    def mtp_projection_params(self) -> int:
        """A multi-token-prediction module's projection of the hidden state and the next token's embedding."""
        return 2 * self.hidden * self.hidden

    def total_params(self) -> int:
        """Every weight: embeddings and output layer untied (as all the presets are); a multi-token-prediction
        module shares them."""
        per_moe = self.attention_params() + self.experts * self.expert_params() + self.hidden * self.experts
        per_moe += self.shared_experts * self.expert_params()
        dense = self.attention_params() + self.dense_mlp_params()
        mtp = self.mtp_layers * self.mtp_projection_params()
        return self.dense_blocks * dense + self.moe_layers * per_moe + 2 * self.embedding_params() + mtp

    def expert_weights(self) -> int:
        """Weights held in routed experts (sharded by expert parallelism)."""
        return self.moe_layers * self.experts * self.expert_params()

    def active_matmul_params(self) -> int:
        """Weights one token multiplies by: attention, its experts (routed and shared), the output layer (once
        more in each multi-token-prediction module, with its projection)."""
        active_moe = self.attention_params() + (self.experts_per_token + self.shared_experts) * self.expert_params()
        active_moe += self.hidden * self.experts
        dense = self.attention_params() + self.dense_mlp_params()
        mtp = self.mtp_layers * (self.mtp_projection_params() + self.embedding_params())
        return self.dense_blocks * dense + self.moe_layers * active_moe + self.embedding_params() + mtp

    def attention_flops_forward(self, sequence: int) -> float:
        """Forward FLOPs per token of the score and value products, causal, summed over layers."""
        per_layer_full = self.heads * (self.head_dim + self.v_dim) * sequence  # 2 x n x d x (s / 2) for each
        window = min(self.sliding_window, sequence // 2) if self.sliding_window else 0
        per_layer_window = self.heads * (self.head_dim + self.v_dim) * 2 * window
        return float((self.blocks - self.sliding_layers) * per_layer_full + self.sliding_layers * per_layer_window)

    def model_flops_per_token(self, sequence: int) -> float:
        """Training FLOPs per token without recomputation (what MFU divides by)."""
        return 3 * (2 * self.active_matmul_params() + self.attention_flops_forward(sequence))


_FIELDS = {
    "layers": "num_hidden_layers",
    "hidden": "hidden_size",
    "heads": "num_attention_heads",
    "vocab": "vocab_size",
}


@lru_cache(maxsize=1)
def presets() -> Mapping[str, Transformer]:
    """The shipped named models (runtime_models.yaml)."""
    raw = _data.raw("runtime_models.yaml")[0]["models"]
    return {name: Transformer(name=name, **{k: v for k, v in spec.items()}) for name, spec in raw.items()}


def from_hf_config(path: str, config: Mapping[str, Any]) -> Transformer:
    """A model from a Hugging Face `config.json`, read with the keys its architecture uses
    (Llama/Mistral/Qwen: `intermediate_size`; Mixtral: `num_local_experts`; Qwen-MoE:
    `num_experts`, `moe_intermediate_size`; DeepSeek: `n_routed_experts`, `kv_lora_rank`, ...)."""

    def need(key: str) -> int:
        value = config.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ModelError(f"{path}: key '{key}': expected a positive integer, got {value!r}")
        return value

    def opt(*keys: str) -> int:
        for key in keys:
            value = config.get(key)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ModelError(f"{path}: key '{key}': expected a non-negative integer, got {value!r}")
            return value
        return 0

    layers, hidden, heads, vocab = (need(_FIELDS[k]) for k in ("layers", "hidden", "heads", "vocab"))
    kv_lora = opt("kv_lora_rank")
    rope = opt("qk_rope_head_dim")
    head_dim = (opt("qk_nope_head_dim") + rope) if kv_lora else (opt("head_dim") or hidden // heads)
    experts = opt("n_routed_experts", "num_local_experts", "num_experts")
    expert_ffn = opt("moe_intermediate_size") or (opt("intermediate_size") if experts else 0)
    ffn = opt("intermediate_size") or 4 * hidden
    sliding = opt("sliding_window") if config.get("layer_types") or config.get("use_sliding_window") else 0
    layer_types = config.get("layer_types")
    sliding_layers = (
        sum(1 for t in layer_types if t == "sliding_attention") if isinstance(layer_types, list) and sliding else 0
    )
    model = Transformer(
        name=path,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=opt("num_key_value_heads") or heads,
        head_dim=head_dim,
        ffn=ffn,
        vocab=vocab,
        experts=experts,
        experts_per_token=opt("num_experts_per_tok", "experts_per_token") if experts else 0,
        expert_ffn=expert_ffn,
        shared_experts=opt("n_shared_experts"),
        dense_layers=opt("first_k_dense_replace"),
        v_head_dim=opt("v_head_dim"),
        q_lora_rank=opt("q_lora_rank"),
        kv_lora_rank=kv_lora,
        qk_rope_head_dim=rope,
        sliding_window=sliding,
        sliding_layers=sliding_layers,
        source=path,
    )
    if model.experts and not model.experts_per_token:
        raise ModelError(f"{path}: key 'num_experts_per_tok': expected the experts each token is routed to")
    return model


def resolve(name_or_path: str) -> Transformer:
    """A preset by name, else a `config.json` file: bad input raises ModelError with one line."""
    found = presets().get(name_or_path)
    if found is not None:
        return found
    if not name_or_path.endswith(".json"):
        known = ", ".join(sorted(presets()))
        raise ModelError(f"model '{name_or_path}': expected one of {known}, or a Hugging Face config.json path")
    from planner.core.reading.bounded_files import read_regular
    from planner.core.reading.problems import InputError

    try:
        config = json.loads(read_regular(name_or_path, 1 << 20, "model configuration"))
    except InputError as exc:
        raise ModelError(str(exc)) from None
    except ValueError as exc:
        raise ModelError(f"{name_or_path}: expected a JSON model configuration ({exc})") from None
    if not isinstance(config, dict):
        raise ModelError(f"{name_or_path}: expected a JSON object")
    return from_hf_config(name_or_path, config)
