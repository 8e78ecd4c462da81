"""Whole-keeping layout ops: swapaxes/swapdims, view_as/reshape_as, as_strided to its own size, clone(memory_format)."""
import torch


class LayoutOpsAttention:
    def __init__(self, layer_idx, num_kv_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_kv_heads = num_kv_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = buf.swapaxes(2, 3).to(q.dtype)  # positive: f5 CL001 swapaxes keeps the whole layer buffer
        b = buf[:, 0].swapdims(1, 2).float()  # positive: f5 CL001 every block's K half, swapdims
        ref = torch.empty_like(buf[:, 1])
        c = buf[:, 1].view_as(ref).to(q.dtype)  # positive: f5 CL001 every block's V half, view_as
        d = buf.reshape_as(buf).half()  # positive: f5 CL001 reshape_as itself
        e = buf.as_strided(buf.size(), buf.stride()).to(q.dtype)  # positive: f5 CL001 as_strided to its own size and stride
        f = buf.clone(memory_format=torch.contiguous_format).to(q.dtype)  # positive: f5 CL001 a clone of the whole buffer
        g = buf.as_strided((4,) + tuple(buf.shape[1:]), buf.stride()).to(q.dtype)  # negative: the first four blocks only
        h = k.swapaxes(0, 1).to(q.dtype)  # negative: batch keys
        i = buf.swapaxes(2, 3).to(q.device)  # negative: device move only
        return a, b, c, d, e, f, g, h
