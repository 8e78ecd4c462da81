# Bound pool accessors stored on the backend under unrelated names.
from typing import Optional

import torch


class BoundAccessorTritonBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self._k_of = pool.get_key_buffer
        self._v_of = pool.get_value_buffer
        self._kv_of = pool.get_kv_buffer
        self._loc_table = model_runner.req_to_token_pool.req_to_token
        self.device = model_runner.device
        self.scratch = torch.empty((model_runner.max_bs, 8, 128), dtype=torch.float16, device=self.device)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        key_cache = self._k_of(layer.layer_id)
        key_cache = key_cache.to(torch.float16)  # positive: f1 CL001 bound get_key_buffer stored as _k_of
        val16 = self._v_of(layer.layer_id).bfloat16()  # positive: f1 CL001 bound get_value_buffer stored as _v_of
        fetch = self._kv_of
        kc, vc = fetch(layer.layer_id)
        vc32 = vc.float()  # positive: f1 CL001 bound get_kv_buffer copied into a local then unpacked
        rows = self._k_of(layer.layer_id)[forward_batch.out_cache_loc].float()  # negative: gathered before the cast
        scratch32 = self.scratch.float()  # negative: batch-sized staging buffer the class allocates
        return key_cache, val16, vc32, rows, scratch32

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        get_v = forward_batch.token_to_kv_pool.get_value_buffer
        v_all = get_v(layer.layer_id).half()  # positive: f1 CL001 local bound accessor of the forward batch's pool
        v_moved = get_v(layer.layer_id).to(self.device, non_blocking=True)  # negative: device move
        k_bytes = self._k_of(layer.layer_id).view(torch.uint8)  # negative: reinterpret, not a conversion
        k_sel = self._k_of(layer.layer_id).float()[forward_batch.out_cache_loc]  # positive: f1 CL003 bound accessor: whole-pool cast, then a gather
        return v_all, v_moved, k_bytes, k_sel


class LayerBinder:
    """Binds a pool's reader for one layer once, at model construction."""

    def __init__(self, pool, layer_id: int):
        self.read = pool.get_key_buffer
        self.layer_id = layer_id

    def __call__(self):
        return self.read(self.layer_id)


class BinderBackend:
    def __init__(self, model_runner, num_layers: int):
        self.binders = [LayerBinder(model_runner.token_to_kv_pool, i) for i in range(num_layers)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        binder = self.binders[layer.layer_id]
        whole = binder().to(q.dtype)  # positive: f1 CL001 calling the binder returns the whole key pool
        return whole
