"""HPU attention impl decoding its cache through a codec built by the package's make_codec."""
import torch

from vllm.attention.backends.abstract import AttentionImpl

from . import make_codec


class HPUCodecAttentionImpl(AttentionImpl):
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype="auto", **kw):
        self.scale = scale
        self.codec = make_codec(kv_cache_dtype)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_cache, v_cache = kv_cache
        if attn_metadata.is_prompt:
            k = self.codec.decode_blocks(k_cache, attn_metadata.block_list)
            v = self.codec.decode_blocks(v_cache, attn_metadata.block_list)
        else:
            k = self.codec.decode(k_cache)
            v = self.codec.decode(v_cache)
        q = query.to(torch.bfloat16)  # negative: the query
        return torch.ops.hpu.paged_attention(q, k, v, attn_metadata.block_list, self.scale)
