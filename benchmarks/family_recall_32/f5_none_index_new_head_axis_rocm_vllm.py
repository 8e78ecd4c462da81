"""vLLM ROCm (gfx90a) Triton MLA: buf[:, None] adds a head axis to the whole latent cache before the widen."""
import torch


class RocmTritonMLAImpl:
    def __init__(self, model_dtype):
        self.model_dtype = model_dtype

    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache.flatten(0, 1)  # [blocks * block_size, 576]
        if attn_metadata.decode.use_dense_fallback:
            kv = cache[:, None].to(q.dtype)  # positive: f5 CL001 every slot, new head axis added by None indexing
        else:
            slots = attn_metadata.decode.slot_ids
            kv = cache[slots, None].to(q.dtype)  # negative: slot gather
        k_scale = layer._k_scale.to(q.dtype)  # negative: scale
        return self._triton_mla(q, kv, k_scale, attn_metadata)

    def _triton_mla(self, q, kv, s, m):
        return q, kv, s
