import torch


class AttentionBackend:
    def _layer_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)


class WaveFallbackBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self._layer_kv(layer, forward_batch)
        if k_buf.dtype != q.dtype:
            k_buf = k_buf.to(q.dtype)  # positive: f2 CL001 whole layer returned by the inherited base helper
            v_buf = v_buf.to(q.dtype)  # positive: f2 CL001 whole layer returned by the inherited base helper
        return self._decode(q, k_buf, v_buf, forward_batch)

    def _decode(self, q, k, v, fb):
        return q


class GatherBackend(AttentionBackend):
    def _layer_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        return pool.get_key_buffer(layer.layer_id)[loc], pool.get_value_buffer(layer.layer_id)[loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_rows, v_rows = self._layer_kv(layer, forward_batch)
        return k_rows.to(q.dtype) @ v_rows.to(q.dtype).T  # negative: override gathers the step's rows first
