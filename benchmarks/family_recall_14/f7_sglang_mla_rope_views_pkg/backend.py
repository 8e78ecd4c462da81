"""The pool comes in here (forward_batch.token_to_kv_pool); views.py converts it."""
from . import views


class TorchMLAFallbackBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def init_forward_metadata(self, forward_batch):
        self.page_table = views.page_table_i32(forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices])

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        latent, rope = views.latent_and_rope(buf, self.kv_lora_rank, self.dtype)
        return self._absorbed_decode(q, latent, rope, self.page_table)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        rows = views.rows_of(buf, forward_batch.out_cache_loc, self.dtype)
        return self._ragged_extend(q, rows, forward_batch)
