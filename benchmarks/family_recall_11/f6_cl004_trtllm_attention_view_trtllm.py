import torch


class KVCacheManager:
    def get_buffers(self, layer_idx):
        return self.impl.get_primary_pool_data(layer_idx)


class MixedPrecisionKVCacheManager(KVCacheManager):
    def __init__(self, compute_dtype=torch.bfloat16):
        self.compute_dtype = compute_dtype

    def get_buffers_for_attention(self, layer_idx, native_fp8=False):
        buf = self.get_buffers(layer_idx)
        if native_fp8:
            return buf
        return buf.to(self.compute_dtype)  # positive: f6 CL004 manager accessor returns the whole layer buffer converted

    def get_block_table(self, request_ids):
        return torch.tensor(self.get_batch_cache_indices(request_ids)).to(torch.int32)  # negative: block table


class ViewAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers_for_attention(self.layer_idx, native_fp8=metadata.fp8_fmha)  # note: per-step caller of the CL004 accessor
        return buf, mgr.get_block_table(metadata.request_ids)
