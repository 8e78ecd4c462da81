import logging

import torch

logger = logging.getLogger("lmdeploy")


class DebugPagedAttention(torch.nn.Module):
    def __init__(self, layer_idx, debug_every=1):
        super().__init__()
        self.layer_idx = layer_idx
        self.debug_every = debug_every

    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        if attn_metadata.step % self.debug_every == 0:
            logger.debug(f"layer {self.layer_idx} k|{k_cache.float().norm():.3f}| shape {tuple(v_cache.shape)}")  # positive: f5 CL001 whole key cache widened inside an f-string
            logger.debug(f"v scale {attn_metadata.v_scale.float().mean():.3f} dtype {v_cache.dtype}")  # negative: a scale and a dtype, no cache conversion
            logger.debug(f"v amax {v_cache.half().abs().amax()!r}")  # positive: f5 CL001 whole value cache converted inside an f-string with a conversion flag
            logger.debug("k head %s", k_cache[attn_metadata.block_offsets[0, 0]].float().sum())  # negative: one block selected first
        return query
