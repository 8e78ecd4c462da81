import torch


class TritonMLAFallbackImpl:
    def __init__(self, kv_lora_rank, qk_rope_head_dim, model_dtype):
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.model_dtype = model_dtype

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        kv_c, k_pe = torch.tensor_split(kv_c_and_k_pe_cache, [self.kv_lora_rank], dim=-1)
        kv_c16 = kv_c.to(self.model_dtype)  # positive: f5 CL001 tensor_split on the last dim keeps every slot
        k_pe16 = k_pe.to(self.model_dtype)  # positive: f5 CL001 the rope part, every slot
        head_blocks = torch.tensor_split(kv_c_and_k_pe_cache, 4, dim=0)[0]
        first = head_blocks.to(self.model_dtype)  # negative: a quarter of the blocks (split on dim 0)
        tbl = attn_metadata.decode.block_table
        rows = kv_c_and_k_pe_cache[tbl].to(self.model_dtype)  # negative: block-table gather
        return self._mqa(q, kv_c16, k_pe16, first, rows)

    def _mqa(self, q, *xs):
        return q
