"""lmdeploy fp8 decode fallback: k.view(-1).view(k.shape) round trip keeps every slot."""
import torch


class Fp8RoundTripDecodeImpl:
    def __init__(self, compute_dtype=torch.bfloat16):
        self.compute_dtype = compute_dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        if attn_metadata.is_decoding:
            k = k_cache.view(-1).view(k_cache.shape).to(self.compute_dtype)  # positive: f5 CL001 flat round trip of the whole key cache
            v = v_cache.view(-1).view(v_cache.shape).to(self.compute_dtype)  # positive: f5 CL001 flat round trip of the whole value cache
        else:
            blocks = attn_metadata.block_offsets[:, 0]
            k = k_cache[blocks].view(-1).to(self.compute_dtype)  # negative: first-block gather
            v = v_cache.view(torch.uint8)  # negative: view(dtype) reinterpret
        return query, k, v

    def update_step_context(self, step_ctx):
        return step_ctx
