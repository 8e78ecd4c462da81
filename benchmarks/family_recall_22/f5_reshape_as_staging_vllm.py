import torch


class CudaGraphStaging:
    def __init__(self, kv_cache: torch.Tensor, dtype=torch.bfloat16):
        self.staging = torch.empty(kv_cache.numel(), dtype=dtype, device=kv_cache.device)  # negative: allocation
        self.dtype = dtype

    def refresh(self, kv_cache: torch.Tensor):
        wide = kv_cache.reshape(-1).to(self.dtype)  # positive: f5 CL001 whole cache flattened and widened
        self.staging.copy_(wide)
        return self.staging.reshape_as(kv_cache)  # negative: staging already bf16, only a reshape


class ROCmAttentionImpl:
    def __init__(self, staging: CudaGraphStaging):
        self.staging = staging

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        cache = self.staging.refresh(kv_cache)
        head = kv_cache[:, : attn_metadata.num_blocks].reshape(-1).to(query.dtype)  # negative: used blocks only
        return cache, head
