# sglang sparse decode: a top-k page selector object keeps a reference to the token pool.
import torch


class PageSelector:
    def __init__(self, token_to_kv_pool, page_size):
        self.pool = token_to_kv_pool
        self.page_size = page_size

    def key_cache(self, layer_id):
        return self.pool.get_key_buffer(layer_id)


class SparseFlashInferBackend:
    def __init__(self, model_runner):
        self.selector = PageSelector(model_runner.token_to_kv_pool, model_runner.page_size)
        self.k_min = self.selector.key_cache(0).to(torch.float32).amin()  # negative: __init__ setup

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = self.selector.key_cache(layer.layer_id)
        scores = torch.einsum("bhd,nhd->bn", q.float(), keys.float())  # positive: f1 CL001 whole key buffer via selector
        top = scores.topk(self.top_pages, dim=-1).indices
        picked = keys[top.flatten()].to(q.dtype)  # negative: rows gathered first
        return self._attend(q, picked, layer)
