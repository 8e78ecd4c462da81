import torch


class Int8KVDequantAttention:
    """INT8 KV manager with separate per-block scale pools."""

    def __init__(self, layer_idx, compute_dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        data = mgr.get_buffers(self.layer_idx)
        scales = mgr.get_scale_buffers(self.layer_idx)
        s32 = scales.float()  # negative: scale pool, not KV data
        deq = data.to(torch.float32) * s32.unsqueeze(-1)  # positive: f5 CL001 the whole INT8 buffer widened
        vals = data[:, 1].float()  # positive: f5 CL001 value plane of every block
        blk = attn_metadata.kv_cache_block_offsets[0, :, 0]
        part = data[blk].float() * scales[blk].float().unsqueeze(-1)  # negative: gathered blocks
        inv = torch.reciprocal(scales.to(self.compute_dtype))  # negative: scale pool
        return self._fmha(q, deq.to(self.compute_dtype), part, inv)

    def _fmha(self, q, *xs):
        return q
