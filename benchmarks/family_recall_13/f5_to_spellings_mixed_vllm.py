import torch


class RocmFallbackImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        kc = key_cache.to(query)  # positive: f5 CL001 .to(tensor) takes query's dtype, whole key cache
        vc = value_cache.to(query.device, query.dtype, non_blocking=True)  # positive: f5 CL001 device and dtype positional, whole value cache
        moved = key_cache.to(query.device)  # negative: device move only
        same = value_cache.to(dtype=value_cache.dtype)  # negative: same dtype
        cl = key_cache.to(memory_format=torch.contiguous_format)  # negative: memory format only
        return self._run(query, kc, vc, moved, same, cl, output)

    def _run(self, *args):
        return args[-1]
