import torch


class PoolSwitch(Exception):
    """Raised by the spec helper when the step must read another pool."""

    def __init__(self, pool, rows=None):
        super().__init__("switch pool")
        self.pool = pool
        self.rows = rows


class SpecAwareMLABackend:
    def __init__(self, model_runner, draft_pool):
        self.target_pool = model_runner.token_to_kv_pool
        self.draft_pool = draft_pool

    def _check_pool(self, forward_batch):
        if forward_batch.forward_mode.is_draft_extend():
            raise PoolSwitch(self.draft_pool)
        if forward_batch.forward_mode.is_target_verify():
            loc = forward_batch.out_cache_loc
            raise PoolSwitch(self.target_pool, self.target_pool.get_key_buffer(0)[loc])

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        try:
            self._check_pool(forward_batch)
            kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        except PoolSwitch as sw:
            if sw.rows is not None:
                kv = sw.rows.to(q.dtype)  # negative: rows gathered at out_cache_loc before the cast
            else:
                kv = sw.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 draft pool's whole latent buffer carried by the exception
        return self._mla(q, kv, layer)

    def _mla(self, q, kv, layer):
        return torch.matmul(q, kv[: q.shape[0]].transpose(-1, -2))
