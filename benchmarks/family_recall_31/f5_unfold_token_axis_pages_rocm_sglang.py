# sglang ROCm (gfx942) paged decode for an FP8 pool stored token by token: the backend forms pages with
# unfold on the token axis and moves the in-page axis next to the pages before widening.
import torch


class HipPagedDecodeBackend:
    def __init__(self, model_runner, page_size=16):
        self.pool = model_runner.token_to_kv_pool
        self.page_size = page_size
        self.model_dtype = model_runner.dtype

    def _pages(self, buf):
        # [tokens, heads, dim] -> [tokens // page, heads, dim, page] -> [pages, page, heads, dim]
        return buf.unfold(0, self.page_size, self.page_size).movedim(-1, 1)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_pages = self._pages(self.pool.get_key_buffer(layer.layer_id)).to(self.model_dtype)  # positive: f5 CL001 every slot of the key buffer, as pages
        v_pages = self._pages(self.pool.get_value_buffer(layer.layer_id)).to(self.model_dtype)  # positive: f5 CL001 every slot of the value buffer, as pages
        used = int(forward_batch.seq_lens.max()) // self.page_size + 1
        k_head = self._pages(self.pool.get_key_buffer(layer.layer_id))[:used].to(self.model_dtype)  # negative: a prefix of the pages
        page_table = forward_batch.req_to_token_pool.req_to_token // self.page_size
        return self.paged_decode(q, k_pages, v_pages, k_head, page_table)
