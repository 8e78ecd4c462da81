"""CL004: a KV manager subclass with a `get_compute_buffers` accessor; an attention op reading pool data."""
import torch
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


class ComputeViewKVCacheManager(KVCacheManager):
    compute_dtype = torch.bfloat16

    def get_compute_buffers(self, layer_idx):
        raw = self.get_buffers(layer_idx)
        return raw.to(self.compute_dtype)  # positive: f6 CL004 manager accessor returns the converted whole layer

    def get_block_table(self, request_ids):
        return torch.tensor(self.get_batch_cache_indices(request_ids), dtype=torch.int32)  # negative: block table


class PoolDataAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        data = mgr.impl.get_primary_pool_data(self.layer_idx)
        dense = data.to(q.dtype)  # positive: f6 CL001 primary pool data of the layer converted
        viewed = mgr.get_compute_buffers(self.layer_idx)  # note: per-step caller of the CL004 accessor, not labelled again
        tbl = mgr.get_block_table(metadata.request_ids)
        return dense, viewed, tbl
