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

from dataclasses import dataclass, field


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
    gated_ffn: bool = True  # SwiGLU's gate, up and down matrices; False: GPT-2's two (up, GELU, down)
    tied_embeddings: bool = False  # one matrix for the input embedding and the output layer (GPT-2)
    title: str = ""
    source: str = ""
    # counts the layout search asks for thousands of times, computed once (not part of the value)
    cache: dict[object, float] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    # derived shapes, set once from the fields (the layout search reads them millions of times)
    moe: bool = field(init=False, repr=False, compare=False)
    blocks: int = field(init=False, repr=False, compare=False)  # layers + multi-token-prediction blocks
    moe_layers: int = field(init=False, repr=False, compare=False)  # blocks with routed experts
    dense_blocks: int = field(init=False, repr=False, compare=False)
    v_dim: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Blocks computed per token: the layers and the multi-token-prediction modules' blocks (one with
        routed experts in an MoE model); the value head size defaults to the head size."""
        moe = self.experts > 0
        blocks = self.layers + self.mtp_layers
        moe_layers = blocks - self.dense_layers if moe else 0
        for name, value in (
            ("moe", moe),
            ("blocks", blocks),
            ("moe_layers", moe_layers),
            ("dense_blocks", blocks - moe_layers),
            ("v_dim", self.v_head_dim or self.head_dim),
        ):
            object.__setattr__(self, name, value)

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
