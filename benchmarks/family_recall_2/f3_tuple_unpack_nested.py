# Tuples unpacked, nested containers and starred targets over whole caches.
from typing import List, Tuple

import torch


class NestedPoolBackend:
    def __init__(self, model_runner, layer_num: int):
        self.pool = model_runner.token_to_kv_pool
        self.layer_num = layer_num
        self.groups: List[List[torch.Tensor]] = [[self.pool.get_key_buffer(i), self.pool.get_value_buffer(i)] for i in range(layer_num)]

    def _layer_bundle(self, layer_id: int):
        k_pool, v_pool = self.pool.get_kv_buffer(layer_id)
        scales = (torch.ones(1, device=k_pool.device), torch.ones(1, device=k_pool.device))
        return (k_pool, v_pool), scales

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        (kp, vp), (ks, vs) = self._layer_bundle(layer.layer_id)
        kp16 = kp.to(q.dtype)  # positive: f3 CL001 nested tuple unpacking of a helper's return
        vp16 = vp.half()  # positive: f3 CL001 nested tuple unpacking, second element
        ks32 = ks.to(torch.float32)  # negative: scale tensor of one element
        first, *rest = self.groups[layer.layer_id]
        rest_v = rest[0].float()  # positive: f3 CL001 starred target keeps the whole value pool
        inner = self.groups[layer.layer_id][1].bfloat16()  # positive: f3 CL001 nested list of [k, v] per layer
        swapped = (vp, kp)
        back = swapped[1].to(torch.float16)  # positive: f3 CL001 tuple display indexed by constant
        rows = first[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows gathered
        return kp16, vp16, ks32, rest_v, inner, back, rows

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        new_pair = (k, v)
        nk, nv = new_pair
        nv16 = nv.half()  # negative: tuple of the new tokens
        return nv16
