# Subclass in another module than its base; base imported under another name.
import torch

from .base import PoolReadingBackend as Base


class FlashLikeBackend(Base):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all = self._keys(layer).to(q.dtype)  # positive: f7 CL001 base-class accessor defined in .base
        k_sup = super()._keys(layer).float()  # positive: f7 CL001 super() call into the other module's base
        sel = self._selected_keys(layer, forward_batch.out_cache_loc).to(q.dtype)  # negative: base helper gathers
        k_dev = self._keys(layer).to(self.device)  # negative: device move
        return k_all, k_sup, sel, k_dev
