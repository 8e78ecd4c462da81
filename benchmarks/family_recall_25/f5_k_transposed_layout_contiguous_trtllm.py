import torch


class TorchSdpaGenerationStep:
    """K stored transposed ([blocks, heads, dim, tokens]) in this debug manager."""

    def __init__(self, layer_idx, dtype=torch.float16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        k_t, v_c = buf.chunk(2, dim=1)
        k_dense = k_t.squeeze(1).transpose(-1, -2).contiguous().to(self.dtype)  # positive: f5 CL001 kv_factor half, transpose, contiguous keep every slot
        v_dense = v_c.squeeze(1).to(self.dtype)  # positive: f5 CL001 value half, whole
        first = k_t[:1].squeeze(1).to(self.dtype)  # negative: first block only
        return k_dense, v_dense, first
