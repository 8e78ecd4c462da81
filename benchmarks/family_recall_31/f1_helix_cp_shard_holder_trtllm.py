# TensorRT-LLM PyTorch flow, Helix context parallelism: each rank keeps a shard holder built around the
# KV cache manager; the generation fallback widens the local shard before the all-to-all exchange.
import torch


class _HelixShard:
    def __init__(self, kv_cache_manager, cp_rank: int, cp_size: int):
        self.mgr = kv_cache_manager
        self.cp_rank = cp_rank
        self.cp_size = cp_size

    def local_kv(self, layer_idx: int, dtype: torch.dtype):
        buf = self.mgr.get_buffers(layer_idx)
        return buf.to(dtype)  # positive: f1 CL001 every block of the local shard's layer buffer

    def local_blocks(self, layer_idx: int, block_ids, dtype: torch.dtype):
        return self.mgr.get_buffers(layer_idx)[block_ids].to(dtype)  # negative: blocks of the batch


class HelixGenerationFallback:
    def __init__(self, layer_idx, kv_cache_manager, mapping):
        self.layer_idx = layer_idx
        self.shard = _HelixShard(kv_cache_manager, mapping.cp_rank, mapping.cp_size)

    def forward(self, q, metadata):
        if metadata.kv_cache_params.use_dense_fallback:
            kv = self.shard.local_kv(self.layer_idx, q.dtype)
        else:
            kv = self.shard.local_blocks(self.layer_idx, metadata.block_ids_per_seq, q.dtype)
        scale = metadata.kv_scale.to(torch.float32)  # negative: the scale
        return self._attend_and_exchange(q, kv, scale)
