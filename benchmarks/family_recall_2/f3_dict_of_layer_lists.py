# A pool that keeps its arenas in a dict of per-layer lists.
from typing import Dict, List

import torch


class DictArenaPool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int, dtype: torch.dtype, device: str):
        self.size = size
        self.device = device
        self.arenas: Dict[str, List[torch.Tensor]] = {
            "k": [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)],
            "v": [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)],
        }
        self.scales = {"k": torch.ones(layer_num, dtype=torch.float32, device=device)}


class DictArenaBackend:
    def __init__(self, pool: DictArenaPool, compute_dtype: torch.dtype):
        self.pool = pool
        self.compute_dtype = compute_dtype
        self.by_name = {"key": pool.arenas["k"], "value": pool.arenas["v"]}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all = self.pool.arenas["k"][layer.layer_id].to(q.dtype)  # positive: f3 CL001 dict entry "k" is a per-layer list of whole arenas
        v_all = self.pool.arenas.get("v")[layer.layer_id].float()  # positive: f3 CL001 .get() of the same dict
        alias = self.by_name["value"][layer.layer_id].half()  # positive: f3 CL001 a second dict that re-stores the per-layer lists
        rows = self.pool.arenas["k"][layer.layer_id][forward_batch.out_cache_loc].to(q.dtype)  # negative: rows gathered after selecting the layer
        sc = self.pool.scales["k"][layer.layer_id].to(q.dtype)  # negative: a per-layer scalar scale
        late = self.pool.arenas["v"][layer.layer_id].half()[forward_batch.out_cache_loc]  # positive: f3 CL003 dict-held arena cast whole, then gathered
        return k_all, v_all, alias, rows, sc, late

    def offload(self, layer_id: int):
        return {name: bufs[layer_id].to("cpu") for name, bufs in self.pool.arenas.items()}  # negative: device move of each arena
