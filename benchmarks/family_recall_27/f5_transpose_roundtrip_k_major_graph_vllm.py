import torch


class CUDAGraphWrapper:
    def __init__(self, runnable, vllm_config, runtime_mode):
        self.runnable = runnable
        self.entries = {}

    def __call__(self, *args, batch_descriptor=None, **kwargs):
        entry = self.entries.get(batch_descriptor)
        if entry is None:
            return self.runnable(*args, **kwargs)  # the model forward, which reaches KMajorDecodeImpl.forward
        entry.cudagraph.replay()  # replays the captured kernels, the cast below included
        return entry.output


class KMajorDecodeImpl:
    """Reference decode whose kernel wants each block K-major, run inside a FULL cudagraph."""

    def __init__(self, num_heads, head_size, scale, kv_cache_dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k_major = key_cache.transpose(-1, -2).contiguous().transpose(-1, -2).float()  # positive: f5 CL001 layout round-trip keeps every block
        used = attn_metadata.num_used_blocks
        v_used = value_cache[:used].float()  # negative: prefix of the blocks
        q = query.float()  # negative: the query
        out = self._ref_decode(q, k_major, v_used, attn_metadata.block_table, self.scale)
        return output.copy_(out.to(output.dtype))  # negative: the output
