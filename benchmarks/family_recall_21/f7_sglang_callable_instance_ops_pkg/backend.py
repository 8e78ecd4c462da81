from .ops import dense_latent, row_gather


class TritonMLAFallbackBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        kv = dense_latent(buf, q.dtype)
        k_nope = dense_latent.nope(buf, q.dtype)
        return kv, k_nope

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return row_gather(buf, forward_batch.out_cache_loc, q.dtype)
