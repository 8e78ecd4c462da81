"""sglang-style: factories build backend subclasses at runtime (classes defined inside functions)."""
import torch


class FlashInferMLABackendBase:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.data_type = model_runner.kv_cache_dtype

    def _latent(self, layer):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = self._latent(layer)
        return self._run(q, k_buffer, forward_batch)

    def _run(self, q, k_buffer, forward_batch):
        return q


def make_upcast_backend(compute_dtype):
    class UpcastMLABackend(FlashInferMLABackendBase):
        def _latent(self, layer):
            return super()._latent(layer).to(compute_dtype)  # positive: f2 CL001 nested subclass override, whole latent layer

    return UpcastMLABackend


def make_rows_backend(compute_dtype):
    class RowsMLABackend(FlashInferMLABackendBase):
        def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
            rows = self._latent(layer)[forward_batch.out_cache_loc].to(compute_dtype)  # negative: rows of this step
            return self._run(q, rows, forward_batch)

    return RowsMLABackend


def create_backend(model_runner):
    if model_runner.sm_major == 12:  # no FP8-KV MLA route on SM120
        return make_upcast_backend(model_runner.dtype)(model_runner)
    return make_rows_backend(model_runner.dtype)(model_runner)
