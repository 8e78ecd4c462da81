"""sglang Triton backend on Turing (SM75, no fp8 loads): a dict subclass whose __missing__ builds (and does not keep) a widened layer."""
import torch


class _DenseLayers(dict):
    def __init__(self, pool, dtype: torch.dtype):
        super().__init__()
        self.pool, self.dtype = pool, dtype

    def __missing__(self, layer_id: int) -> torch.Tensor:
        return self.pool.get_key_buffer(layer_id).to(self.dtype)  # positive: f3 CL001 whole key buffer, built on every lookup (nothing stored)


class TuringTritonAttnBackend:
    def __init__(self, model_runner):
        self.dense = _DenseLayers(model_runner.token_to_kv_pool, model_runner.dtype)
        self.scales = {i: s.to(model_runner.dtype) for i, s in enumerate(model_runner.kv_scales)}  # negative: scales, setup

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = self.dense[layer.layer_id]
        v_rows = pool.get_value_buffer(layer.layer_id)[forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices]]
        v_rows = v_rows.to(q.dtype)  # negative: rows gathered on the line above
        return self._triton_decode(q, k_buf * self.scales[layer.layer_id], v_rows, forward_batch)
