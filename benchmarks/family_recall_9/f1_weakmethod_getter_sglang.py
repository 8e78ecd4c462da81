"""A bound pool accessor kept as a weakref.WeakMethod and dereferenced on every step."""
import weakref

import torch


class WeakAccessorBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self._key_of = weakref.WeakMethod(pool.get_key_buffer)
        self._pair_of = weakref.WeakMethod(pool.get_kv_buffer)
        self._lens_of = weakref.WeakMethod(model_runner.req_to_token_pool.get_seq_lens)
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        getter = self._key_of()
        lat = getter(layer.layer_id)
        up = lat.to(self.dtype)  # positive: f1 CL001 key buffer via a dereferenced WeakMethod
        lens = self._lens_of()(forward_batch.req_pool_indices)
        lens_f = lens.float()  # negative: per-request lengths via another WeakMethod
        return q, up, lens_f

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self._pair_of()(layer.layer_id)
        vb_up = vb.bfloat16()  # positive: f1 CL001 value half of the pair via WeakMethod
        kb_bytes = kb.view(torch.uint8)  # negative: reinterpret, no copy
        return q, kb_bytes, vb_up
