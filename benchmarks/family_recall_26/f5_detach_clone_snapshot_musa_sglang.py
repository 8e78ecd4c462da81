import torch


class MusaMLAAttnBackend:
    """MUSA FA backend for MLA: the kernel takes bf16 latent caches only."""

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        kv = self.pool.get_key_buffer(layer.layer_id)
        kv = kv.detach().clone().to(q.dtype)  # positive: f5 CL001 detach/clone keep the whole buffer, then the cast
        kv_pages = kv.view(-1, self.page_size, 1, kv.shape[-1])
        c_kv, k_pe = kv_pages[..., : self.kv_lora_rank], kv_pages[..., self.kv_lora_rank :]
        return self._mla(q, c_kv, k_pe, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.pool.get_key_buffer(layer.layer_id)
        prefix = kv[forward_batch.prefix_loc].detach().clone().to(q.dtype)  # negative: prefix rows gathered before the cast
        same = kv.detach().clone().to(kv.dtype)  # negative: same dtype, no conversion
        return self._mla(q, prefix, same, forward_batch)

    def _mla(self, *args):
        return args
