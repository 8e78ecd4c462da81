from .dequant import dequant_layer, dequant_rows


class DequantBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        full = dequant_layer(pool, layer.layer_id, q.dtype)
        part = dequant_rows(pool, layer.layer_id, forward_batch.out_cache_loc, q.dtype)
        return full, part
