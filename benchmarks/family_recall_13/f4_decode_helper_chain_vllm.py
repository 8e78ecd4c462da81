import torch


class TritonMLAImplFallback:
    def __init__(self, num_heads, kv_lora_rank, qk_rope_head_dim, scale):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.scale = scale

    def _latent_cache(self, kv_c_and_k_pe_cache, dtype):
        return kv_c_and_k_pe_cache.to(dtype)  # positive: f4 CL001 only caller passes the whole latent cache

    def _decode(self, q, kv_c_and_k_pe_cache, attn_metadata):
        cache = self._latent_cache(kv_c_and_k_pe_cache, q.dtype)
        bt = attn_metadata.decode.block_table.to(torch.int32)  # negative: decode block table
        return self._kernel(q, cache, bt, attn_metadata.decode.seq_lens)

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        if isinstance(q, tuple):
            q = torch.cat(q, dim=-1)
        return self._decode(q, kv_c_and_k_pe_cache, attn_metadata)

    def _kernel(self, q, cache, bt, lens):
        return q
