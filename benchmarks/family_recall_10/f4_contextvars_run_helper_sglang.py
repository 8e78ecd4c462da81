"""A conversion helper invoked through contextvars.copy_context().run(helper, buf)."""
import contextvars

import torch

_phase = contextvars.ContextVar("phase", default="decode")


class ContextRunBackend:
    def __init__(self, dtype):
        self.dtype = dtype

    def _upcast(self, buf):
        _phase.set("upcast")
        return buf.to(self.dtype)  # positive: f4 CL001 helper run in a copied context, given the pool layer

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        ctx = contextvars.copy_context()
        lat = ctx.run(self._upcast, pool.get_key_buffer(layer.layer_id))
        tag = ctx.run(_phase.get)
        scale = torch.tensor(layer.k_scale_float or 1.0).to(self.dtype)  # negative: a scalar scale
        return lat, tag, scale
