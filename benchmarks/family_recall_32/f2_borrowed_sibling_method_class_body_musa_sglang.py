"""sglang MUSA: the MLA backend borrows forward_decode from an unrelated _DenseDecodeMixin in its class body."""
import torch


class _DenseDecodeMixin:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole MLA key buffer, reached through the borrowed method
        return self._mla(q, kv, layer, forward_batch)


class MusaFlashAttentionBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        kv = pool.get_key_buffer(layer.layer_id)[loc].to(q.dtype)  # negative: row gather before the cast
        return self._mla(q, kv, layer, forward_batch)

    def _mla(self, q, kv, layer, forward_batch):
        return q, kv


class MusaMLABackend(MusaFlashAttentionBackend):
    forward_decode = _DenseDecodeMixin.forward_decode

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k = k.to(q.dtype)  # negative: new tokens
        return self._mla(q, k, layer, forward_batch)
