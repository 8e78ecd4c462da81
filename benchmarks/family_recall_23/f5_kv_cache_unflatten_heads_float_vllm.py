# vLLM v1 Triton backend, sliding-window debug check: the cache is unflattened into heads and widened.
import torch


class TritonAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self._check_swa:
            k_heads = key_cache.flatten(-2).unflatten(-1, (self.num_kv_heads, self.head_size))
            self._norm = k_heads.float().norm(dim=-1).amax()  # positive: f5 CL001 whole key plane reshaped then widened
        tail = value_cache[-self.sliding_window :].float()  # negative: a prefix/tail of blocks
        self._tail_norm = tail.norm()
        return self._unified_attention(query, key_cache, value_cache, attn_metadata, output)
