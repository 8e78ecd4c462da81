import torch


class TritonMLAFallbackImpl:
    """Converts the cached rope part from the interleaved (GPT-J) layout to neox halves."""

    def __init__(self, kv_lora_rank, kv_cache_dtype):
        self.kv_lora_rank = kv_lora_rank
        self.kv_cache_dtype = kv_cache_dtype

    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        rope = kv_c_and_k_pe_cache[..., self.kv_lora_rank :]
        even, odd = rope[..., ::2], rope[..., 1::2]
        neox = torch.cat((even, odd), dim=-1).to(q.dtype)  # positive: f5 CL001 last-dim strides keep every slot, whole rope part converted
        nope = kv_c_and_k_pe_cache[..., : self.kv_lora_rank].to(q.dtype)  # positive: f5 CL001 last-dim prefix keeps every block
        half_blocks = kv_c_and_k_pe_cache[::2].to(q.dtype)  # negative: every other block is a block selection
        used = kv_c_and_k_pe_cache[attn_metadata.decode.block_table].to(q.dtype)  # negative: blocks gathered first
        return neox, nope, half_blocks, used
