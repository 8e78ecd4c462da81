"""Conversions spelled through the tensor's class: type(t).to(t, dt), t.__class__.float(t), getattr(type(t), "half")(t)."""
import torch


class ClassSpellingBackend:
    def __init__(self, dtype):
        self.dtype = dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = type(buf).to(buf, self.dtype)  # positive: f5 CL001 to via type(buf)
        b = buf.__class__.float(buf)  # positive: f5 CL001 float via __class__
        c = getattr(type(buf), "half")(buf)  # positive: f5 CL001 half via getattr on the class
        d = type(q).to(q, torch.float32)  # negative: the step's queries
        e = type(buf).to(buf, buf.device)  # negative: device-only move
        return a, b, c, d, e
