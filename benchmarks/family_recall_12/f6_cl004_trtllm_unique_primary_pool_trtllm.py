import torch


class KVCacheManager:
    def get_unique_primary_pool(self):
        return self.impl.get_primary_pool_data(0)

    def get_buffers(self, layer_idx):
        return self.impl.get_primary_pool_data(layer_idx)


class DenseViewKVCacheManager(KVCacheManager):
    def __init__(self, impl, dtype):
        self.impl = impl
        self.dense_dtype = dtype

    def get_unique_primary_pool(self):
        pool = super().get_unique_primary_pool()
        return pool.to(self.dense_dtype)  # positive: f6 CL004 manager override converts the whole primary pool

    def get_block_offsets(self, request_ids):
        offs = self.impl.copy_batch_block_offsets(request_ids)
        return offs.to(torch.int32)  # negative: block offsets


class PoolReaderAttention:
    def forward(self, q, k, v, attn_metadata, **kwargs):
        pool = attn_metadata.kv_cache_manager.get_unique_primary_pool()  # note: CL004 accessor, not labelled again
        q16 = q.to(pool.dtype)  # negative: batch query
        return q16
