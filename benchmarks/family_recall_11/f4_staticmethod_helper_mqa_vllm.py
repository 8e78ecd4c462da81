import torch


class RefMLAImpl:
    def __init__(self, num_heads, kv_lora_rank, qk_rope_head_dim):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim

    @staticmethod
    def _dense(cache, dtype):
        return cache.to(dtype)  # positive: f4 CL001 staticmethod helper only ever given the whole latent cache

    @staticmethod
    def _rows(cache, block_table, dtype):
        return cache[block_table].to(dtype)  # negative: blocks gathered first

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        if attn_metadata.decode.use_gather:
            kv = self._rows(kv_c_and_k_pe_cache, attn_metadata.decode.block_table, q.dtype)
        else:
            kv = RefMLAImpl._dense(kv_c_and_k_pe_cache, q.dtype)
        seq = attn_metadata.decode.seq_lens.to(torch.int32)  # negative: lengths
        return kv, seq

    def forward_mha(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata, k_scale, output):
        k_pe_c = k_pe.to(q.dtype)  # negative: the step's rope keys
        ctx = self._dense(kv_c_and_k_pe_cache, q.dtype)
        return k_pe_c, ctx
