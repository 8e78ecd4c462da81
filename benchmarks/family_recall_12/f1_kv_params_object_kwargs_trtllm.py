import torch


class KVCacheParams:
    def __init__(self, kv_cache_manager, num_cached_tokens_per_seq):
        self.kv_cache_manager = kv_cache_manager
        self.num_cached_tokens_per_seq = num_cached_tokens_per_seq


class ParamsAttention:
    def __init__(self, layer_idx, compute_dtype):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def forward(self, q, k, v, attn_metadata, **kwargs):
        params = kwargs["kv_cache_params"]
        mgr = params.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        ref = buf.to(self.compute_dtype)  # positive: f1 CL001 manager reached through a params object passed in kwargs
        cached = torch.tensor(params.num_cached_tokens_per_seq).to(torch.int32)  # negative: per-seq counts
        kv_new = k.to(self.compute_dtype)  # negative: new keys of the step
        return ref, cached, kv_new
