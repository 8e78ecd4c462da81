import torch


class LayerCursor:
    """Walks a KVCacheManager layer by layer; next() hands out the whole layer buffer."""

    def __init__(self, kv_cache_manager, num_layers):
        self._mgr = kv_cache_manager
        self._num_layers = num_layers
        self._idx = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._idx >= self._num_layers:
            raise StopIteration
        buf = self._mgr.get_buffers(self._idx)
        self._idx += 1
        return buf


class GenerationStep:
    def __init__(self, kv_cache_manager, num_layers, compute_dtype=torch.bfloat16):
        self.kv_cache_manager = kv_cache_manager
        self.num_layers = num_layers
        self.compute_dtype = compute_dtype

    def _forward_step(self, attn_metadata, block_ids):
        cursor = LayerCursor(self.kv_cache_manager, self.num_layers)
        first = next(cursor)
        dense_first = first.to(self.compute_dtype)  # positive: f1 CL001 the cursor's next() returns the whole layer buffer
        rest = [layer[block_ids].to(self.compute_dtype) for layer in cursor]  # negative: blocks gathered before the cast
        moved = first.to(attn_metadata.device)  # negative: .to(device) only
        return dense_first, rest, moved
