"""sglang FA3 MLA backend fallback for an FP8 pool (head dim 576 > 256, so q stays bf16)."""
from .casts import TO_DEVICE, widen_for


class FA3MLAFallbackBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self._widen = widen_for(model_runner.dtype)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self._widen(self.pool.get_key_buffer(layer.layer_id))  # positive: f7 CL001 whole per-layer latent buffer through the methodcaller built in casts
        page_table = TO_DEVICE(forward_batch.page_table)  # negative: device move of the page table
        return self._fa3_mla(q, kv, page_table, forward_batch.seq_lens)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        rows = self._widen(self.pool.get_key_buffer(layer.layer_id)[loc])  # negative: rows of the batch
        return self._fa3_mla(q, rows, None, forward_batch.extend_seq_lens)
