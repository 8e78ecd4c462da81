import torch


class LazyLatentMLABackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self._latent = None
        self._scales = None

    def _ensure(self, forward_batch):
        if self._latent is None:
            pool = forward_batch.token_to_kv_pool
            self._latent = [pool.get_key_buffer(i) for i in range(pool.layer_num)]
            self._scales = torch.ones(pool.layer_num, dtype=torch.float32)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self._ensure(forward_batch)
        cache = self._latent[layer.layer_id]
        ckv = cache.to(q.dtype)  # positive: f1 CL001 whole layer buffer cached on the backend at the first forward
        s = self._scales[layer.layer_id].to(q.dtype)  # negative: one per-layer scale
        return self._run(q, ckv, s)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self._ensure(forward_batch)
        locs = forward_batch.out_cache_loc
        rows = self._latent[layer.layer_id][locs].to(q.dtype)  # negative: gather-then-cast of the step's slots
        return self._run(q, rows, None)

    def _run(self, q, kv, s):
        return q
