"""sglang: a head-dim permutation applied with a fancy index on the last dimension keeps
every slot; the same index on the first dimension gathers rows."""
import torch


class PermutedHeadDimBackend:
    def __init__(self, model_runner):
        head_dim = model_runner.model_config.head_dim
        half = head_dim // 2
        self.perm = torch.cat([torch.arange(half, head_dim), torch.arange(0, half)]).to(model_runner.device)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        v_buf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        k_rot = k_buf[..., self.perm].to(q.dtype)  # positive: f5 CL001 permuted head dim, every slot
        v_rot = v_buf[:, :, self.perm].to(q.dtype)  # positive: f5 CL001 same, spelled with explicit slices
        live = k_buf[forward_batch.out_cache_loc][..., self.perm].to(q.dtype)  # negative: rows first
        return self._sdpa(q, k_rot, v_rot, live)

    def _sdpa(self, q, k, v, live):
        return q
