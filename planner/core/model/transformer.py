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

from functools import cached_property

from msgspec import Struct


class Transformer(Struct, frozen=True, dict=True):
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
    gated_ffn: bool = True  # SwiGLU's gate, up and down matrices; False: GPT-2's two (up, GELU, down)
    tied_embeddings: bool = False  # one matrix for the input embedding and the output layer (GPT-2)
    title: str = ""
    source: str = ""
    # derived shapes, computed once from the fields on first use (the layout search reads them millions of
    # times); they live in the instance's `__dict__` (`dict=True`), not among the fields, so they are not part of
    # the value: not compared, hashed, repeated in `repr` or given to the constructor

    @cached_property
    def cache(self) -> dict[object, float]:
        """Counts the layout search asks for thousands of times, computed once."""
        return {}

    @cached_property
    def moe(self) -> bool:
        return self.experts > 0

    @cached_property
    def blocks(self) -> int:
        """Blocks computed per token: the layers and the multi-token-prediction modules' blocks."""
        return self.layers + self.mtp_layers

    @cached_property
    def moe_layers(self) -> int:
        """Blocks with routed experts (a multi-token-prediction block has them in an MoE model)."""
        return self.blocks - self.dense_layers if self.moe else 0

    @cached_property
    def dense_blocks(self) -> int:
        return self.blocks - self.moe_layers

    @cached_property
    def v_dim(self) -> int:
        """The value head size: the head size unless the configuration gives its own."""
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

    @property
    def ffn_matrices(self) -> int:
        """Matrices of a dense feed-forward block: gate, up and down (SwiGLU), or up and down."""
        return 3 if self.gated_ffn else 2

    def dense_mlp_params(self) -> int:
        return self.ffn_matrices * self.hidden * self.ffn

    def expert_params(self) -> int:
        """Weights of one routed expert (gate, up and down projections)."""
        return 3 * self.hidden * self.expert_ffn

    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    @property
    def embedding_matrices(self) -> int:
        """The input embedding and the output layer: two, or one when tied."""
        return 1 if self.tied_embeddings else 2

    def mtp_projection_params(self) -> int:
        """A multi-token-prediction module's projection of the hidden state and the next token's embedding."""
        return 2 * self.hidden * self.hidden

    def total_params(self) -> int:
        """Every weight: embeddings and output layer untied (as all the presets are); a multi-token-prediction
        module shares them."""
        known = self.cache.get("total")
        if known is None:
            known = self.cache["total"] = self._total_params()
        return int(known)

    def _total_params(self) -> int:
        per_moe = self.attention_params() + self.experts * self.expert_params() + self.hidden * self.experts
        per_moe += self.shared_experts * self.expert_params()
        dense = self.attention_params() + self.dense_mlp_params()
        mtp = self.mtp_layers * self.mtp_projection_params()
        return (
            self.dense_blocks * dense
            + self.moe_layers * per_moe
            + self.embedding_matrices * self.embedding_params()
            + mtp
        )

    def expert_weights(self) -> int:
        """Weights held in routed experts (sharded by expert parallelism)."""
        known = self.cache.get("experts")
        if known is None:
            known = self.cache["experts"] = self.moe_layers * self.experts * self.expert_params()
        return int(known)

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
