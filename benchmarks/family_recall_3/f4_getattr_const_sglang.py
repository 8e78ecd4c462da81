import torch


class GetattrBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        accessor = getattr(pool, "get_key_buffer")
        kc = accessor(layer.layer_id).to(q.dtype)  # positive: f4 CL001 accessor fetched by getattr with a constant name
        vc = getattr(pool.get_value_buffer(layer.layer_id), "float")()  # positive: f4 CL001 method fetched by getattr on the whole pool
        scale = getattr(layer, "k_scale", None)
        if scale is not None:
            scale = scale.to(q.dtype)  # negative: scale
        return kc, vc, scale
