import torch


class AscendPagedAttnBackend:
    """NPU backend: torch_npu's paged kernels take the cache in the activation dtype only."""

    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.read_pair = pool.get_kv_buffer
        self.page_size = model_runner.page_size
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_cache, v_cache = self.read_pair(layer.layer_id)
        if k_cache.dtype != q.dtype:
            k_cache = k_cache.to(q.dtype)  # positive: f1 CL001 whole key buffer from a bound accessor kept under another name
            v_cache = v_cache.to(q.dtype)  # positive: f1 CL001 whole value buffer, same accessor
        k_new = k.to(k_cache.dtype)  # negative: new tokens
        return self._paged(q, k_cache, v_cache, forward_batch, k_new)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, _ = self.read_pair(layer.layer_id)
        prefix = k_cache[forward_batch.req_to_token[:, 0]].to(q.dtype)  # negative: prefix rows gathered before the cast
        return self._paged(q, prefix, None, forward_batch, k)

    def _paged(self, *args):
        return args
