# sglang n-gram speculative decoding, target verify on the Triton backend with an FP8 pool: the verify
# backend's override returns the base's bound dense reader (uncalled) and the base's forward calls it.
import torch


class TritonReadBase:
    def _dense_key(self, layer_id: int):
        return self.pool.get_key_buffer(layer_id).to(self.model_dtype)  # positive: f2 CL001 whole per-layer key buffer, reached through super()'s bound method

    def _row_key(self, layer_id: int):
        return self.pool.get_key_buffer(layer_id)[self.loc].to(self.model_dtype)  # negative: rows of the batch

    def _key_reader(self):
        return self._row_key

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.loc = forward_batch.out_cache_loc
        key = self._key_reader()(layer.layer_id)
        value = self.pool.get_value_buffer(layer.layer_id)
        return self.extend_kernel(q, key, value.view(self.pool.dtype), forward_batch)  # negative: view to the pool dtype, zero-copy


class TritonAttnBackend(TritonReadBase):
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype


class NgramVerifyTritonBackend(TritonAttnBackend):
    def _key_reader(self):
        return super()._dense_key
