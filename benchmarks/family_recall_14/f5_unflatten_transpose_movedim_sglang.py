"""Paged views built with unflatten/transpose/movedim before the upcast."""
import torch


class PagedTorchDecodeBackend:
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        key_buf = pool.get_key_buffer(layer.layer_id)
        value_buf = pool.get_value_buffer(layer.layer_id)
        paged = key_buf.unflatten(0, (-1, self.page_size))
        k_hnd = paged.transpose(1, 2).to(q.dtype)  # positive: f5 CL001 every page of the key layer, head-major
        v_hnd = value_buf.unflatten(0, (-1, self.page_size)).movedim(2, 1).flatten(0, 1).to(q.dtype)  # positive: f5 CL001 every page of the value layer
        fp8_pages = key_buf.view(self.kv_cache_dtype).unflatten(0, (-1, self.page_size))  # negative: reinterpret, no conversion
        n = forward_batch.seq_lens_sum
        live = key_buf[:n].unflatten(0, (-1, 1)).to(q.dtype)  # negative: a batch-sized prefix
        page_table = self.forward_metadata.page_table.to(torch.int64)  # negative: index tensor
        return self._paged_sdpa(q, k_hnd, v_hnd, page_table, fp8_pages, live)
