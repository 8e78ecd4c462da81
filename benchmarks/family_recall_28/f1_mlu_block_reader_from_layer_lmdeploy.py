"""lmdeploy Cambricon MLU paged attention: a reader object is built per layer from the cache pair."""
import torch


class _MluBlockReader:
    def __init__(self, k_cache, v_cache, dtype):
        self.k_cache = k_cache
        self.v_cache = v_cache
        self.dtype = dtype

    def dense(self):
        return self.k_cache.to(self.dtype), self.v_cache.to(self.dtype)  # positive: f1 CL001 both whole layer caches of the reader (one line, one finding)

    def pick(self, block_offsets):
        return self.k_cache[block_offsets].to(self.dtype), self.v_cache[block_offsets].to(self.dtype)  # negative: this batch's blocks gathered first


class CambPagedAttentionImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        reader = _MluBlockReader(k_cache, v_cache, query.dtype)
        if attn_metadata.is_decoding:
            k, v = reader.dense()
        else:
            k, v = reader.pick(attn_metadata.block_offsets)
        key = key.to(query.dtype)  # negative: new tokens
        return self._attend(query, key, value, k, v, attn_metadata)

    def _attend(self, query, key, value, k, v, attn_metadata):
        return torch.ops.mlu_ops.paged_attention(query, k, v, attn_metadata.q_seqlens, self.scale)
