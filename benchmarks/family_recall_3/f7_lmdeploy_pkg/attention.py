import torch

from .cache_engine import BlockCacheEngine
from .context import StepContext


class BlockAttention:
    def __init__(self, engine: BlockCacheEngine, layer_idx: int):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, ctx: StepContext):
        kb, vb = self.engine.layer_blocks(self.layer_idx)
        kb = kb.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f7 CL001 engine accessor from cache_engine.py, view then cast
        k_cache, v_cache = ctx.layer_cache(self.layer_idx)
        v_cache = v_cache.to(query.dtype)  # positive: f7 CL001 step-context accessor from context.py
        seq = ctx.q_seqlens.to(torch.int32)  # negative: seqlens
        return kb, v_cache, seq
