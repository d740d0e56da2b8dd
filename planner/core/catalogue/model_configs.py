"""Transformer architectures by name (the shipped presets) or from a Hugging Face `config.json`.

A preset is the model's published configuration, kept in `runtime_models.yaml` with its page; a
`config.json` is read with the keys its architecture uses, so a Mixtral, Qwen-MoE or DeepSeek file
gives its experts, shared experts and dense first layers as the model counts them
(`planner.core.model.transformer`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from planner.core.catalogue import shipped_data as _data
from planner.core.model.transformer import Transformer


class ModelError(ValueError):
    """A model name or configuration file that cannot be read: one line, naming the file and key."""


_FIELDS = {
    "layers": ("num_hidden_layers", "n_layer"),
    "hidden": ("hidden_size", "n_embd"),
    "heads": ("num_attention_heads", "n_head"),
    "vocab": ("vocab_size",),
}
# architectures whose feed-forward block is two matrices with a GELU between (GPT-2's c_fc and c_proj,
# GPT-NeoX's dense_h_to_4h and dense_4h_to_h), not SwiGLU's three; they tie the output layer to the
# input embedding unless the config says otherwise (Hugging Face's `tie_word_embeddings` default)
TWO_MATRIX_FFN = frozenset({"gpt2", "gpt_neox", "gpt_bigcode", "gptj"})


@lru_cache(maxsize=1)
def presets() -> Mapping[str, Transformer]:
    """The shipped named models (runtime_models.yaml)."""
    raw = _data.raw("runtime_models.yaml")[0]["models"]
    return {name: Transformer(name=name, **{k: v for k, v in spec.items()}) for name, spec in raw.items()}


def _shown(value: object) -> str:
    """A configuration's value in an error: short and on one line (a file may hold anything)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 40 else text[:37] + "..."


def from_hf_config(path: str, config: Mapping[str, Any]) -> Transformer:
    """A model from a Hugging Face `config.json`, read with the keys its architecture uses
    (Llama/Mistral/Qwen: `intermediate_size`; Mixtral: `num_local_experts`; Qwen-MoE:
    `num_experts`, `moe_intermediate_size`; DeepSeek: `n_routed_experts`, `kv_lora_rank`, ...)."""

    def need(key: str) -> int:
        value = config.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ModelError(f"{path}: key '{key}': expected a positive integer, got {_shown(value)}")
        return value

    def opt(*keys: str) -> int:
        for key in keys:
            value = config.get(key)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ModelError(f"{path}: key '{key}': expected a non-negative integer, got {_shown(value)}")
            return value
        return 0

    def named(field: str) -> int:  # Llama's names, else GPT-2's (n_layer, n_embd, n_head)
        key = next((k for k in _FIELDS[field] if k in config), _FIELDS[field][0])
        return need(key)

    layers, hidden, heads, vocab = (named(k) for k in ("layers", "hidden", "heads", "vocab"))
    gated = config.get("model_type") not in TWO_MATRIX_FFN
    kv_lora = opt("kv_lora_rank")
    rope = opt("qk_rope_head_dim")
    head_dim = (opt("qk_nope_head_dim") + rope) if kv_lora else (opt("head_dim") or hidden // heads)
    experts = opt("n_routed_experts", "num_local_experts", "num_experts")
    expert_ffn = opt("moe_intermediate_size") or (opt("intermediate_size") if experts else 0)
    ffn = opt("intermediate_size", "n_inner") or 4 * hidden
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
        gated_ffn=gated,
        tied_embeddings=bool(config.get("tie_word_embeddings", not gated)),
    )
    if model.experts and not model.experts_per_token:
        raise ModelError(f"{path}: key 'num_experts_per_tok': expected the experts each token is routed to")
    return model


def resolve(name_or_path: str, base_dir: str | None = None) -> Transformer:
    """A preset by name, else a `config.json` file (relative to `base_dir`, the folder of the file
    that names it, when given): bad input raises ModelError with one line."""
    found = presets().get(name_or_path)
    if found is not None:
        return found
    if not name_or_path.endswith(".json"):
        known = ", ".join(sorted(presets()))
        raise ModelError(f"model '{name_or_path}': expected one of {known}, or a Hugging Face config.json path")
    from msgspec.structs import replace

    from planner.core.reading.bounded_files import read_regular
    from planner.core.reading.problems import InputError

    path = os.path.join(base_dir, name_or_path) if base_dir else name_or_path
    try:
        config = json.loads(read_regular(path, 1 << 20, "model configuration"))
    except InputError as exc:
        raise ModelError(str(exc)) from None
    except ValueError as exc:
        raise ModelError(f"{name_or_path}: expected a JSON model configuration ({exc})") from None
    if not isinstance(config, dict):
        raise ModelError(f"{name_or_path}: expected a JSON object")
    return replace(from_hf_config(name_or_path, config), source=path)
