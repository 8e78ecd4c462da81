import torch


class TritonMLADecodeFallback:
    kv_lora_rank = 512

    def __init__(self, model_dtype):
        self.model_dtype = model_dtype

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache
        latent = cache.to(copy=False, dtype=self.model_dtype)  # positive: f5 CL001 keyword dtype after copy flag
        dense = cache.to(q)  # positive: f5 CL001 to(tensor) takes the query's dtype
        pinned = cache.to(device=q.device, copy=True)  # negative: device and copy only
        kv_c = cache[..., : self.kv_lora_rank]
        ref = kv_c.to(kv_c)  # negative: to(itself) keeps the dtype
        rows = cache[attn_metadata.decode.block_table[:, 0]].to(q)  # negative: block rows
        return latent, dense, pinned, ref, rows
