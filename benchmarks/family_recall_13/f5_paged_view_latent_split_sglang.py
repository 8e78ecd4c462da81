import torch


class CutlassFallbackBackend:
    def __init__(self, model_runner):
        self.page_size = model_runner.page_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        paged = buf.view(-1, self.page_size, 1, buf.shape[-1])
        ckv = paged[..., : self.kv_lora_rank].to(q.dtype)  # positive: f5 CL001 latent part of every page, all slots kept
        kpe = paged[..., self.kv_lora_rank :].to(q.dtype)  # positive: f5 CL001 rope part of every page, all slots kept
        raw = paged.view(torch.uint8)  # negative: reinterpret
        first = paged[: forward_batch.batch_size].to(q.dtype)  # negative: step-bounded slice of pages
        return self._mla(q, ckv, kpe, raw, first)

    def _mla(self, q, ckv, kpe, raw, first):
        return q
