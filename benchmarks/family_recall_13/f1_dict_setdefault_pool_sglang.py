import torch


class AscendFallbackBackend:
    """The pool is stashed in the instance __dict__ on first use."""

    def __init__(self, model_runner):
        self.page_size = model_runner.page_size

    def _pool(self, forward_batch):
        return self.__dict__.setdefault("_cached_pool", forward_batch.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self._pool(forward_batch)
        keys = pool.get_key_buffer(layer.layer_id)
        values = pool.get_value_buffer(layer.layer_id)
        keys = keys.to(torch.float16)  # positive: f1 CL001 pool recovered from instance __dict__ setdefault
        tail = values[: forward_batch.seq_lens_sum].to(torch.float16)  # negative: step-bounded slice
        page_table = self.__dict__.get("page_table")
        pt = page_table.to(torch.int32) if page_table is not None else None  # negative: page table
        return self._paged(q, keys, tail, pt)

    def _paged(self, q, k, v, pt):
        return q
