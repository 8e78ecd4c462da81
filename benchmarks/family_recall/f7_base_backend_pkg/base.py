"""Base backend module: the accessor helpers live here."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class CacheReadingBackend(AttentionBackend):
    def cache_for(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)

    def latent_for(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def rows_for(self, layer, forward_batch, loc):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]

    def upcast_latent(self, layer, forward_batch, dtype):
        return self.latent_for(layer, forward_batch).to(dtype)  # positive: f7 CL001 base-module helper converts the whole latent
