"""lmdeploy FA3 backend inside the decode CUDA graph: FP8 caches are widened because FA3 decode has no FP8-KV path here."""
import torch


class FA3Impl:
    def __init__(self, num_heads, head_size, scale, quant_policy, compute_dtype):
        self.num_heads = num_heads
        self.scale = scale
        self.quant_policy = quant_policy
        self.compute_dtype = compute_dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if attn_metadata.is_decoding and k_cache.dtype == torch.float8_e4m3fn:
            k_cache = k_cache.to(self.compute_dtype)  # positive: f6 CL001 whole key cache; the decode is captured and replayed every step
            v_cache = v_cache.to(self.compute_dtype)  # positive: f6 CL001 whole value cache
        elif not attn_metadata.is_decoding:
            k_cache = k_cache[attn_metadata.block_offsets].to(self.compute_dtype)  # negative: blocks gathered first (prefill, eager)
            v_cache = v_cache[attn_metadata.block_offsets].to(self.compute_dtype)  # negative: blocks gathered first
        scale = k_scales_zeros.to(self.compute_dtype) if k_scales_zeros is not None else None  # negative: scales
        return torch.ops.lmdeploy.fa3_paged(query, k_cache, v_cache, attn_metadata.kv_seqlens, self.scale, scale)


class FA3GraphRunner:
    def __init__(self, model):
        self.model = model
        self.graphs = {}

    def __call__(self, input_ids, attn_metadata, past_key_values):
        self.graphs[input_ids.size(0)].replay()
        return self.model.static_output[input_ids.size(0)]
