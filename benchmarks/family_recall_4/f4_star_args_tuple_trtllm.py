"""Argument tuples built earlier in the step, then star-unpacked into casts."""
import torch


def _upcast(t, dtype):
    return t.to(dtype)  # note: generic, labelled at the callers that pass a whole buffer


class StarArgsAttention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        call = (mgr.get_buffers(self.layer_idx), q.dtype)
        t = torch.Tensor.to(*call)  # positive: f4 CL001 unbound Tensor.to star-applied to a tuple holding the layer buffer
        pair = (mgr.get_buffers(self.layer_idx)[:, 1], torch.bfloat16)
        vb = _upcast(*pair)  # positive: f4 CL001 generic helper given the whole value plane through *pair
        qpair = (q, torch.bfloat16)
        qb = _upcast(*qpair)  # negative: batch q through the same helper
        return self._attend(qb, t, vb)

    def __call__(self, q, k, v, metadata):
        blob = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        cast_args = (q.device, torch.float16)
        h = blob.to(*cast_args)  # positive: f4 CL001 device and dtype from a tuple built earlier
        dev_args = (q.device,)
        d = blob.to(*dev_args, non_blocking=True)  # negative: the tuple holds only a device
        ids = metadata.block_ids
        args = (blob[ids], torch.float16)
        used = _upcast(*args)  # negative: blocks gathered before the helper's cast
        return h, d, used

    def _attend(self, q, k_all, v_all):
        return torch.empty_like(q)


def write_kv(mgr, layer_idx, k, v, slots):
    buf = mgr.get_buffers(layer_idx)
    args = (k, buf.dtype)
    buf.view(-1, *buf.shape[2:])[slots] = torch.Tensor.to(*args)  # negative: batch k to the cache dtype
    return buf
