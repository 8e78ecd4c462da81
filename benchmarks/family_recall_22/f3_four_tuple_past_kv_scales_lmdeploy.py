import torch


def unpack_layer(past_key_value):
    k_cache, v_cache, *quant = past_key_value
    return k_cache, v_cache, (quant or [None, None])


class LlamaAttention(torch.nn.Module):
    def __init__(self, compute_dtype=torch.float16):
        super().__init__()
        self.compute_dtype = compute_dtype

    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache, (k_sz, v_sz) = unpack_layer(past_key_value)
        if attn_metadata.is_decoding and k_cache.dtype == torch.int8:
            k_dense = (k_cache.to(self.compute_dtype) - k_sz[..., 1:]) * k_sz[..., :1]  # positive: f3 CL001 whole int8 key cache from the tuple widened
            v_dense = v_cache[attn_metadata.block_offsets].to(self.compute_dtype)  # negative: blocks gathered first
            return k_dense, v_dense
        return k_sz.to(self.compute_dtype) if k_sz is not None else None  # negative: scales/zeros
