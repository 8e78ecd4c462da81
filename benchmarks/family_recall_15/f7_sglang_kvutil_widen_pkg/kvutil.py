import torch


def widen_layer(buf, dtype):
    """Used by backend.forward_decode with a whole pool layer."""
    if buf.dtype == dtype:
        return buf
    return buf.to(dtype)  # positive: f7 CL001 every caller passes a whole pool layer


def widen_rows(buf, loc, dtype):
    return buf[loc].to(dtype)  # negative: gathered rows


def widen_key_planes(bufs, dtype):
    """backend.forward_decode passes every layer's key buffer once per step (first layer only)."""
    return [b.to(dtype) for b in bufs]  # positive: f7 CL001 list of whole pool key buffers


def pack_meta(seq_lens):
    return torch.stack([seq_lens, seq_lens.cumsum(0)]).to(torch.int32)  # negative: metadata
