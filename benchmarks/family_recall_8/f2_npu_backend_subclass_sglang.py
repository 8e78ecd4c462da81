import torch


class AscendBaseBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size

    def _paged(self, layer):
        k, v = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        return k.view(-1, self.page_size, *k.shape[1:]), v.view(-1, self.page_size, *v.shape[1:])


class AscendFP8Backend(AscendBaseBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kp, vp = self._paged(layer)
        kp = kp.to(torch.float16)  # positive: f2 CL001 base helper's paged view of the whole K buffer
        vp = vp.to(torch.float16)  # positive: f2 CL001 paged view of the whole V buffer
        return kp, vp

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kp, _ = self._paged(layer)
        used = kp[forward_batch.req_pool_indices].to(torch.float16)  # negative: gathered pages
        scale = layer.k_scale.to(torch.float32)  # negative: scale
        return used, scale
