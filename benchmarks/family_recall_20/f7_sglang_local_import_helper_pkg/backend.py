import torch


class MusaFlashMLABackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        from .widen import dense_latent, dense_rope, prefix_rows

        pool = forward_batch.token_to_kv_pool
        latent = dense_latent(pool.get_key_buffer(layer.layer_id), self.dtype)
        recent = prefix_rows(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, self.dtype)
        rope = dense_rope(pool.get_key_buffer(layer.layer_id), layer.v_head_dim, self.dtype)
        q_c = q.to(self.dtype)  # negative: the query
        return latent, rope, recent, q_c
