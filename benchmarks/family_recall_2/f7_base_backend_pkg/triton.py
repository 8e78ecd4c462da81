# Uses the module object and the package re-exports rather than names.
import torch

from . import base
from f7_base_backend_pkg import FlashLikeBackend


class TritonLikeBackend(FlashLikeBackend):
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vals = base.read_whole_values(self.token_to_kv_pool, layer.layer_id).half()  # positive: f7 CL001 from . import base; module helper returns the whole value pool
        keys = self._keys(layer)
        keys16 = keys.to(torch.float16)  # positive: f7 CL001 accessor two modules up the hierarchy, reached via a re-export
        new_k = k.to(keys.dtype)  # negative: new tokens
        return vals, keys16, new_k
