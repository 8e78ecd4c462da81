"""Subclass module: the base class is imported from base.py."""
import torch

from f7_base_backend_pkg.base import CacheReadingBackend


class FlashFallbackBackend(CacheReadingBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = self.cache_for(layer, forward_batch)
        k_cache = k_cache.to(q.dtype)  # positive: f7 CL001 tuple from an imported base-class method
        latent = super().latent_for(layer, forward_batch).bfloat16()  # positive: f7 CL001 imported base-class method via super()
        up = self.upcast_latent(layer, forward_batch, q.dtype)
        return k_cache, v_cache, latent, up

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rows = self.rows_for(layer, forward_batch, forward_batch.out_cache_loc).to(q.dtype)  # negative: base method gathers rows
        return rows
