"""lmdeploy int8-KV SDPA fallback: a dataclass with an InitVar engine fills k/v (init=False fields) in __post_init__; forward converts them."""
from dataclasses import InitVar, dataclass, field

import torch


@dataclass
class _StepKV:
    engine: InitVar[object]
    layer_idx: int
    k: torch.Tensor = field(init=False)
    v: torch.Tensor = field(init=False)

    def __post_init__(self, engine):
        self.k, self.v = engine.gpu_cache[self.layer_idx]


class Int8SDPAFallbackAttention:
    def __init__(self, cache_engine, scale):
        self.cache_engine = cache_engine
        self.scale = scale

    def forward(self, query, attn_metadata, layer_idx, k_scales_zeros):
        rec = _StepKV(self.cache_engine, layer_idx)
        if attn_metadata.is_decoding:
            k, v = rec.k.to(query.dtype), rec.v.to(query.dtype)  # positive: f3 CL001 both whole caches carried by the record (one line)
        else:
            blocks = attn_metadata.block_offsets.flatten()
            k, v = rec.k[blocks].to(query.dtype), rec.v[blocks].to(query.dtype)  # negative: blocks of this batch
        sz = k_scales_zeros.to(query.dtype)  # negative: scales and zeros
        return torch.nn.functional.scaled_dot_product_attention(query, k * sz[..., :1], v, scale=self.scale)
