"""torch.rot90 and torch.atleast_2d of whole buffers, next to bounded/reinterpret/alloc look-alikes."""
import torch


class RotateAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = torch.rot90(buf, 1, (3, 4)).to(q.dtype)  # positive: f5 CL001 rotated whole buffer
        b = torch.atleast_2d(buf[:, 1]).half()  # positive: f5 CL001 atleast_2d of the V half
        c = buf[: metadata.num_contexts].float()  # negative: bounded by the step's contexts
        d = buf.view(torch.int8)  # negative: reinterpret
        e = buf.to(q.device)  # negative: device-only
        f = torch.zeros_like(buf, dtype=torch.bfloat16)  # negative: allocation
        g = metadata.kv_scale_orig_quant.to(q.dtype)  # negative: scale
        blk = metadata.kv_cache_manager.get_block_ids_per_seq(metadata.request_ids[0])
        h = buf[torch.as_tensor(blk)].to(q.dtype)  # negative: gathered blocks
        return a, b, c, d, e, f, g, h
