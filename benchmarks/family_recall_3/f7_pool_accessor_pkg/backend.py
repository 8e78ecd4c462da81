import torch

from .pool import ArenaMLAPool


class ArenaMLABackend:
    def __init__(self, model_runner):
        self.pool: ArenaMLAPool = model_runner.token_to_kv_pool
        self.kv_lora_rank = 512

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = self.pool.latent_cache(layer.layer_id).to(q.dtype)  # positive: f7 CL001 accessor of a pool defined in pool.py
        rows = self.pool.latent_rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: rows gathered by the accessor
        early = self._rows_upcast(q, layer, forward_batch)
        return ckv, rows, early

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.latent_cache(layer.layer_id)
        return lat[..., : self.kv_lora_rank].bfloat16()  # positive: f7 CL001 feature slice of the whole latent cache

    def _rows_upcast(self, q, layer, forward_batch):
        return self.pool.latent_cache(layer.layer_id).to(q.dtype).index_select(0, forward_batch.out_cache_loc)  # positive: f7 CL003 cast of the whole latent cache then index_select
