"""vLLM FlexAttention backend used by an EAGLE draft model: FlexAttention has no fp8 KV path."""
import torch


class FlexAttentionImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.num_heads, self.head_size, self.scale = num_heads, head_size, scale
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_cache_dtype != "auto":
            key_cache = key_cache.view(torch.float8_e4m3fn).to(query.dtype) * layer._k_scale_float  # positive: f6 CL001 whole key cache for flex_attention
            value_cache = value_cache.view(torch.float8_e4m3fn).to(query.dtype) * layer._v_scale_float  # positive: f6 CL001 whole value cache
        block_mask = attn_metadata.block_mask
        doc_ids = attn_metadata.doc_ids.to(torch.int32)  # negative: document ids
        q = query.view(-1, self.num_heads, self.head_size).transpose(0, 1).unsqueeze(0)
        return self._flex(q, key_cache, value_cache, block_mask, doc_ids, output)


class EagleProposer:
    def propose(self, target_token_ids, target_hidden_states, common_attn_metadata):
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        return self.model(target_token_ids, hidden, common_attn_metadata)
