import torch
import torch_npu


class AscendMLATorchairImpl:
    """vLLM-Ascend torchair graph mode: _forward_decode is compiled into the decode graph."""

    def __init__(self, num_heads, kv_lora_rank, qk_rope_head_dim, scale, kv_cache_dtype):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.scale = scale
        self.int8_kv = kv_cache_dtype == "int8"
        self.kv_scale = None

    def _forward_decode(self, q_nope, q_pe, k_nope, k_pe, kv_c_and_k_pe_cache, attn_metadata):
        nope_cache, rope_cache = kv_c_and_k_pe_cache
        if self.int8_kv:
            nope_cache = nope_cache.to(torch.bfloat16)  # positive: f6 CL001 whole latent cache, no int8 route in the fused graph op
            rope_cache = rope_cache.to(torch.bfloat16)  # positive: f6 CL001 whole rope cache
            scale = self.kv_scale.to(torch.bfloat16)  # negative: the scale
        block_table = attn_metadata.decode.block_table.to(torch.int32)  # negative: block table
        q_nope = q_nope.to(nope_cache.dtype)  # negative: the query
        return torch_npu.npu_fused_infer_attention_score(
            q_nope, nope_cache, nope_cache, query_rope=q_pe, key_rope=rope_cache,
            num_heads=self.num_heads, num_key_value_heads=1, input_layout="BNSD",
            scale=self.scale, block_table=block_table, block_size=nope_cache.shape[1],
            actual_seq_lengths_kv=attn_metadata.decode.seq_lens_list,
        )[0]
