import torch


class FlatAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        kv = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        flat = kv.flatten(0, 1).to(q.dtype)  # positive: f5 CL001 flatten of the whole layer buffer then cast
        expanded = kv.unsqueeze(1).bfloat16()  # positive: f5 CL001 unsqueeze of the whole layer buffer then bfloat16
        squeezed = kv.squeeze().contiguous()
        sq = squeezed.to(dtype=q.dtype)  # positive: f5 CL001 squeeze+contiguous of the whole buffer
        return flat, expanded, sq
