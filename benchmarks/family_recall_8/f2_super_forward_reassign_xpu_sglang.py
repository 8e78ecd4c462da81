import torch


class XPUAttnBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, kv_override=None):
        kv = kv_override if kv_override is not None else self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return torch.matmul(q, kv.transpose(-1, -2))


class XPUFP8Backend(XPUAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, kv_override=None):
        lat = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return super().forward_decode(
            q, k, v, layer, forward_batch, save_kv_cache,
            kv_override=lat.to(q.dtype),  # positive: f2 CL001 whole layer converted and handed to super()
        )


class XPUWindowBackend(XPUAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, kv_override=None):
        lat = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        part = lat[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered
        return super().forward_decode(q, k, v, layer, forward_batch, save_kv_cache, kv_override=part)
