import torch

import fused_kv_ext  # noqa: F401  (optional extension; ImportError falls back)


class Pool:
    def __init__(self, size, layer_num, heads, dim, dtype):
        self._planes = [torch.empty((size + 1, heads, dim), dtype=dtype, device="cuda") for _ in range(layer_num)]

    def plane(self, layer_id):
        return self._planes[layer_id]

    def rows(self, layer_id, loc):
        return self._planes[layer_id].index_select(0, loc)
