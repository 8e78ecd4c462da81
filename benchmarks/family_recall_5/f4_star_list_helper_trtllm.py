"""*args helpers: one only ever gets pool planes, one is generic."""

import torch


def upcast_planes(*planes, dtype):
    return [p.to(dtype) for p in planes]  # positive: f4 CL001 every caller passes whole k/v planes of the layer pool


def cast_pair(*args):
    t, dt = args
    return t.to(dt)  # note: generic (pool and batch tensors); labelled at the callers


class StarArgsAttention:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        kd, vd = upcast_planes(*buf.unbind(1), dtype=self.dtype)
        packed = (buf, self.dtype)
        whole = cast_pair(*packed)  # positive: f4 CL001 the layer buffer travels in a *args tuple to a generic cast
        qd = cast_pair(*(q, self.dtype))  # negative: batch query through the same helper
        lens = cast_pair(attn_metadata.seq_lens_cuda, torch.int64)  # negative: lengths
        live = cast_pair(*(buf[attn_metadata.block_ids_flat], self.dtype))  # negative: gathered blocks in the *args tuple
        same = cast_pair(buf, buf.dtype)  # negative: cast to the buffer's own dtype
        out = torch.empty_like(qd)
        torch.ops.trtllm.attn(qd, kd, vd, whole, lens, live, same, out)
        return out
