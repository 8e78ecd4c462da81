import torch


class PagedLatentMixin:
    page_size = 64

    def _paged_latent(self, layer, forward_batch):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return buf.view(-1, self.page_size, 576)


class AttentionBackendBase:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        raise NotImplementedError


class CutlassStyleBackend(PagedLatentMixin, AttentionBackendBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pages = self._paged_latent(layer, forward_batch)
        if pages.dtype != q.dtype:
            pages = pages.to(q.dtype)  # positive: f2 CL001 every page of the layer's latent buffer from the shared mixin
        return pages, forward_batch.block_tables.to(torch.int32)  # negative: block table


class FlashMLAStyleBackend(PagedLatentMixin, AttentionBackendBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pages = self._paged_latent(layer, forward_batch)
        q8 = q.to(torch.float8_e4m3fn)  # negative: the step's q quantized
        descale = layer.k_scale.float()  # negative: scale
        return q8, pages, descale


class TritonStyleBackend(PagedLatentMixin, AttentionBackendBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pages = self._paged_latent(layer, forward_batch)
        used = pages[forward_batch.block_tables.flatten()].to(q.dtype)  # negative: pages of the batch gathered first
        return used
