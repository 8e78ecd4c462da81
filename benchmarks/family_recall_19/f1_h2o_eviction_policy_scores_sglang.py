import torch


class H2OEvictionPolicy:
    """Heavy-hitter scores, refreshed every decode step from the whole key pool."""

    def __init__(self, token_to_kv_pool, decay: float = 0.9):
        self.pool = token_to_kv_pool
        self.decay = decay
        self.acc = {}
        self.pool_dtype = token_to_kv_pool.dtype
        self.pool_dtype_keys = token_to_kv_pool.get_key_buffer(0).float()  # negative: __init__ setup

    def observe(self, layer_id: int, q: torch.Tensor, live_loc: torch.Tensor):
        keys = self.pool.get_key_buffer(layer_id).float()  # positive: f1 CL001 whole key pool widened for scoring every step
        scores = torch.einsum("hd,nhd->n", q.float(), keys)
        live = self.pool.get_key_buffer(layer_id)[live_loc].float()  # negative: gathered live rows
        prev = self.acc.get(layer_id)
        self.acc[layer_id] = scores if prev is None else self.decay * prev + scores
        return live


class FlashInferBackendWithEviction:
    def __init__(self, model_runner):
        self.policy = H2OEvictionPolicy(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.policy.observe(layer.layer_id, q[0], forward_batch.out_cache_loc)
        v_all = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        return v_all.to(q.device)  # negative: device only
