import torch


class PagedViewMLABackend:
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.dtype = model_runner.dtype

    def _pages(self, forward_batch, layer):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return buf.view(-1, self.page_size, 1, buf.shape[-1])

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pages = self._pages(forward_batch, layer)
        pages_cl = pages.contiguous(memory_format=torch.channels_last).to(self.dtype)  # positive: f5 CL001 every page, re-laid-out channels-last then converted
        used = int(forward_batch.seq_lens.max()) // self.page_size + 1
        head = pages[:used].to(self.dtype)  # negative: pages bounded by the batch's longest sequence
        bt = forward_batch.block_tables.to(torch.int32)  # negative: block table
        return pages_cl, head, bt

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pages = self._pages(forward_batch, layer)
        if forward_batch.forward_mode.is_target_verify():
            return pages.permute(0, 2, 1, 3).contiguous().to(q.dtype)  # positive: f5 CL001 whole paged view permuted then converted
        return pages.view(torch.uint8)  # negative: reinterpret
