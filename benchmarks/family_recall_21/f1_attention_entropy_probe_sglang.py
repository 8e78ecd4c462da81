import torch


class AttentionEntropyProbe:
    """Debug probe: attention entropy of the current decode token over the whole cache."""

    def __init__(self, model_runner, every_n: int = 100):
        self.pool = model_runner.token_to_kv_pool
        self.every_n = every_n
        self.step = 0

    def entropy(self, q: torch.Tensor, layer_id: int) -> torch.Tensor:
        keys = self.pool.get_key_buffer(layer_id)
        kf = keys.to(q.dtype)  # positive: f1 CL001 whole key buffer to the query dtype
        logits = torch.einsum("bhd,thd->bht", q, kf)
        p = torch.softmax(logits, dim=-1, dtype=torch.float32)  # negative: scores, not the pool
        return -(p * p.clamp_min(1e-9).log()).sum(-1)

    def entropy_active(self, q, layer_id, loc):
        keys = self.pool.get_key_buffer(layer_id)[loc]
        return keys.to(q.dtype)  # negative: active token rows gathered first


class ProbedTritonBackend:
    def __init__(self, model_runner):
        self.probe = AttentionEntropyProbe(model_runner)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.probe.step += 1
        if self.probe.step % self.probe.every_n == 0:
            return self.probe.entropy(q.view(q.shape[0], layer.tp_q_head_num, -1), layer.layer_id)
        return self.probe.entropy_active(q, layer.layer_id, forward_batch.out_cache_loc)
