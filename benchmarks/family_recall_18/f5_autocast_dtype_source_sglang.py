"""sglang-style torch backend: dtype read from the autocast state; fp32 path with autocast disabled."""
import torch


class AutocastTorchDecodeBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        v_buf = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            dt = torch.get_autocast_dtype("cuda")
            keys = k_buf.to(dt)  # positive: f5 CL001 whole key layer to the autocast dtype
            q_ac = q.to(dt)  # negative: the query, not the pool
        with torch.autocast("cuda", enabled=False):
            values = v_buf.float()  # positive: f5 CL001 whole value layer widened in the fp32 region
            rows = v_buf[forward_batch.out_cache_loc].float()  # negative: rows of this batch
        return self._sdpa(q_ac, keys, values, rows)

    def _sdpa(self, q, keys, values, rows):
        return q
