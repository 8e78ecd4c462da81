import torch


class TritonDecodeFallback:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kbuf = pool.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f6 CL001 decode side of a hybrid backend
        vbuf = pool.get_value_buffer(layer.layer_id)
        return kbuf, vbuf


class FA3Prefill:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return q, k.to(q.dtype)  # negative: the chunk's keys


class HybridAttnBackend:
    def __init__(self, model_runner, prefill_backend, decode_backend):
        self.prefill_backend = prefill_backend
        self.decode_backend = decode_backend

    def _select(self, forward_batch):
        if forward_batch.forward_mode.is_decode_or_idle():
            return self.decode_backend
        return self.prefill_backend

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        backend = self._select(forward_batch)
        if forward_batch.forward_mode.is_decode_or_idle():
            return backend.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return backend.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)
