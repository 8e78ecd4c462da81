"""lmdeploy FP8-KV fallback attention reaching the cache engine through a link object to the model agent (three hops)."""
import torch

from lmdeploy.pytorch.kernels.cuda import paged_attention_fwd


class _AgentLink:
    def __init__(self, agent):
        self.agent = agent


class Fp8FallbackAttentionImpl:
    def __init__(self, ctx_mgr, layer_idx, quant_dtype=torch.float8_e4m3fn):
        self.link = _AgentLink(ctx_mgr.agent)
        self.layer_idx = layer_idx
        self.quant_dtype = quant_dtype

    def _engine_caches(self):
        return self.link.agent.cache_engine.gpu_cache[self.layer_idx]

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None):
        k_cache, v_cache = self._engine_caches()
        if attn_metadata.is_decoding:
            k_half = k_cache.to(query.dtype)  # positive: f1 CL001 whole layer key cache through link.agent.cache_engine
            v_half = v_cache.to(query.dtype)  # positive: f1 CL001 whole layer value cache
        else:
            first = attn_metadata.block_offsets[:, 0]
            k_half = k_cache[first].to(query.dtype)  # negative: first block of each sequence
            v_half = v_cache[first].to(query.dtype)  # negative: first block of each sequence
        fresh = key.to(self.quant_dtype)  # negative: new tokens quantised for the write
        out = torch.empty_like(query)
        paged_attention_fwd(query, k_half, v_half, out, attn_metadata.block_offsets,
                            attn_metadata.q_start_loc, attn_metadata.q_seqlens, attn_metadata.kv_seqlens)
        return out, fresh
