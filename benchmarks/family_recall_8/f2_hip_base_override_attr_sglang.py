import torch


class TritonLikeBackend:
    upcast_to = None

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self.upcast_to is not None:
            kb = kb.to(self.upcast_to)  # positive: f2 CL001 base converts when a subclass sets upcast_to
        return kb


class HipFP8Backend(TritonLikeBackend):
    upcast_to = torch.float16


class HipRowsBackend(TritonLikeBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return kb[forward_batch.out_cache_loc].to(torch.float16)  # negative: gathered rows
