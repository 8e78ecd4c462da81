"""MLA backend importing the helpers from kv_utils (directly and via the package)."""
import torch

from f7_helper_pkg import whole_latent
from f7_helper_pkg.kv_utils import dequant_layer, live_latent

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class HelperMLABackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = whole_latent(pool, layer).to(q.dtype)  # positive: f7 CL001 helper imported via package re-export
        deq = dequant_layer(pool, layer.layer_id, layer.k_scale)
        return kv, deq

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        rows = live_latent(pool, layer, forward_batch.out_cache_loc).to(q.dtype)  # negative: imported helper gathers rows
        return rows
