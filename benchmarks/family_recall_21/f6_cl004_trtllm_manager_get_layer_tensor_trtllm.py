import torch


class KVCacheManagerWithCompute:
    """Manager variant for attention backends that cannot read FP8."""

    def __init__(self, num_layers, num_blocks, tokens_per_block, num_kv_heads, head_dim, dtype, compute_dtype):
        self.dtype = dtype
        self.compute_dtype = compute_dtype
        self._pool = torch.empty(num_layers, num_blocks, 2, tokens_per_block, num_kv_heads, head_dim, dtype=dtype)

    def get_buffers(self, layer_idx: int) -> torch.Tensor:
        return self._pool[layer_idx]

    def get_layer_tensor(self, layer_idx: int) -> torch.Tensor:
        buf = self._pool[layer_idx]
        if self.compute_dtype != self.dtype:
            buf = buf.to(self.compute_dtype)  # positive: f6 CL004 accessor widens the whole per-layer buffer
        return buf

    def get_block_tensor(self, layer_idx: int, block_ids: torch.Tensor) -> torch.Tensor:
        return self._pool[layer_idx, block_ids].to(self.compute_dtype)  # negative: blocks first

    def get_scales(self, layer_idx: int, scales: torch.Tensor) -> torch.Tensor:
        return scales[layer_idx].to(self.compute_dtype)  # negative: scales
