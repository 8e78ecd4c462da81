import torch


class MusaMLABackend:
    """MUSA-style MLA backend; the pool lives on the model runner."""

    def __init__(self, model_runner):
        self._runner = model_runner
        self.compute_dtype = model_runner.dtype

    @property
    def kv_pool(self):
        return self._runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        kv = self.kv_pool.get_key_buffer(layer.layer_id)
        kv = kv.to(self.compute_dtype)  # positive: f1 CL001 pool reached through a property
        return kv

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kk = k.to(self.compute_dtype)  # negative: the step's keys
        pk = self.kv_pool.get_key_buffer(layer.layer_id)[: forward_batch.extend_num_tokens].half()  # negative: bounded window
        return kk, pk
